import type { Compilable, CompiledQuery, Kysely, PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

/**
 * Statement texts run as named (server-side prepared) statements on PostgreSQL: parsed and planned once per
 * connection instead of on every call. Only the hot-path queries of `prepared()` and the list shapes given to
 * `named()` are registered, so the set is small and fixed (one entry per text, whatever its parameters).
 */
const NAMED = new Map<string, string>();

/**
 * Kysely's view of a pg pool whose clients send a registered text as a named statement (any other text as before).
 * Kysely only ever calls `query(text, parameters)` on a pooled client (no cursors here), and `release()`.
 */
export function namingPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, NamingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let w = wrapped.get(client);
      if (!w) wrapped.set(client, (w = new NamingClient(client)));
      return w;
    },
    end: () => pool.end(),
  };
}

class NamingClient implements PostgresPoolClient {
  constructor(private readonly client: pg.PoolClient) {}
  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sql: string | PostgresCursor<R>, parameters?: readonly unknown[]): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sql !== 'string') throw new Error('cursors are not used by this service');
    const name = NAMED.get(sql);
    const values = parameters ? [...parameters] : [];
    // pg types `command` as any string; Kysely only reads the ones it lists.
    return this.client.query(name === undefined ? { text: sql, values } : { name, text: sql, values }) as unknown as Promise<PostgresQueryResult<R>>;
  }
  release() {
    this.client.release();
  }
}

/**
 * The root Kysely instances whose hot statements go straight to their pg pool (`runsOnPool`). Kysely's executor
 * adds a connection provider, a driver and a result transform around `client.query`, several promises per query,
 * which profiling the unit read put at a few microseconds of a ~130 µs request (docs/performance.md). A transaction
 * is another Kysely instance, never registered here, so its statements stay on its own connection.
 */
const POOLS = new WeakMap<Kysely<Database>, pg.Pool>();

/** Sends `prepared()` and `shaped()` statements of this Kysely instance to its pool directly (PostgreSQL only). */
export function runsOnPool(kysely: Kysely<Database>, pool: pg.Pool): void {
  POOLS.set(kysely, pool);
}

/** Runs a compiled statement (a registered text goes as its named statement): on the pool when it may, else through Kysely. */
async function run<Row>(db: Kysely<Database>, query: CompiledQuery<Row>, parameters: unknown[]): Promise<Row[]> {
  const pool = POOLS.get(db);
  if (pool === undefined) return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  const result = await pool.query({ name: NAMED.get(query.sql), text: query.sql, values: parameters });
  return result.rows as Row[];
}

/** Runs this statement text as a named statement from now on (the name is the text's place in `NAMED`). */
function named(sql: string): void {
  if (!NAMED.has(sql)) NAMED.set(sql, `showsuite_${NAMED.size + 1}`);
}

/** What a statement's builder gets for each value: a mark standing where the value will go. */
type Placeholders<V> = { [K in keyof V]: V[K] };

/** A named statement: call it with the database and the values (and the shape, when it has shapes). */
export interface NamedStatement<Row, V extends Record<string, unknown>, S> {
  (db: Kysely<Database>, values: V, ...shape: S extends undefined ? [] : [S]): Promise<Row[]>;
}

/**
 * The one mechanism for hot statements: built and compiled once per shape and Kysely instance, then run as a named
 * (server-side prepared) statement with each call's values put in place. Kysely otherwise rebuilds and recompiles
 * the same SQL on every request, and PostgreSQL re-plans it.
 *
 * `build` gets a placeholder for each value, by name, and the shape (which filters, which sort; `undefined` for a
 * statement with one shape). It must decide the text from the shape alone, never from a value: a value of its own
 * in the compiled statement is refused. The compiled statement's parameters are matched back to the placeholders'
 * names, so a value may be used twice or in any order.
 */
export function namedStatement<Row, V extends Record<string, unknown>, S = undefined>(
  build: (db: Kysely<Database>, values: Placeholders<V>, shape: S) => Compilable<Row>,
): NamedStatement<Row, V, S> {
  const cache = new WeakMap<Kysely<Database>, Map<string, { query: CompiledQuery<Row>; order: (keyof V)[] }>>();
  const compiled = (db: Kysely<Database>, values: V, shape: S) => {
    let shapes = cache.get(db);
    if (!shapes) cache.set(db, (shapes = new Map<string, { query: CompiledQuery<Row>; order: (keyof V)[] }>()));
    const key = shape === undefined ? '' : JSON.stringify(shape);
    let entry = shapes.get(key);
    if (!entry) {
      const marks = new Map<unknown, keyof V>();
      const placeholders: Record<string, unknown> = {};
      for (const name of Object.keys(values)) {
        const mark = { placeholder: name };
        marks.set(mark, name);
        placeholders[name] = mark;
      }
      const query = build(db, placeholders as Placeholders<V>, shape).compile();
      const order = query.parameters.map((p) => {
        const name = marks.get(p);
        if (name === undefined) throw new Error(`named statement: a parameter is not one of the placeholders (${String(p)})`);
        return name;
      });
      named(query.sql);
      shapes.set(key, (entry = { query, order }));
    }
    return entry;
  };
  const statement = async (db: Kysely<Database>, values: V, ...rest: [S?]) => {
    const { query, order } = compiled(db, values, rest[0] as S);
    return run(
      db,
      query,
      order.map((name) => values[name]),
    );
  };
  return statement;
}
