import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

/**
 * Kysely over embedded PGlite. PGlite is one connection, so the driver hands it out to one caller at a time;
 * a transaction holds it from BEGIN to COMMIT, which gives the same isolation a pooled client would.
 */
export class PGliteDialect implements Dialect {
  #driver: PGliteDriver | undefined;
  constructor(private readonly pglite: PGlite) {}
  /** PGlite's one connection: idle or handed out, and how many callers wait for it. */
  connections() {
    return this.#driver?.counts() ?? { total: 1, idle: 1, waiting: 0 };
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return (this.#driver = new PGliteDriver(this.pglite));
  }
  // Kysely's Dialect interface declares this parameter as Kysely<any>.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  readonly #connection: PGliteConnection;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;
  #waiting = 0;

  constructor(private readonly pglite: PGlite) {
    this.#connection = new PGliteConnection(pglite);
  }

  counts() {
    return { total: 1, idle: this.#release ? 0 : 1, waiting: this.#waiting };
  }

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((r) => (release = r));
    this.#waiting++;
    try {
      await previous;
    } finally {
      this.#waiting--;
    }
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }
  async commitTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection() {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }
  async destroy() {
    if (!this.pglite.closed) await this.pglite.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Without parameters use the simple protocol, which (like node-postgres) accepts multi-statement scripts.
    const result =
      compiled.parameters.length === 0
        ? ((await this.pglite.exec(compiled.sql)).at(-1) ?? { rows: [], affectedRows: 0 })
        : await this.pglite.query<R>(compiled.sql, compiled.parameters as unknown[]);
    const command = compiled.sql.trimStart().slice(0, 6).toLowerCase();
    const changes = command === 'insert' || command === 'update' || command === 'delete' || command === 'merge ';
    return {
      rows: result.rows as R[],
      ...(changes ? { numAffectedRows: BigInt(result.affectedRows ?? 0) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not stream query results');
  }
}
