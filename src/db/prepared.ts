import type { Compilable, CompiledQuery, Kysely, PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

/**
 * Statement texts run as named (server-side prepared) statements on PostgreSQL: parsed and planned once per
 * connection instead of on every call. Only the hot-path queries of `prepared()` are registered, so the set is
 * small and fixed (one entry per query, whatever its parameters).
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
 * A hot-path query built and compiled once per Kysely instance, then run with new parameters: Kysely otherwise
 * rebuilds and recompiles the same SQL on every request, and PostgreSQL re-plans it. The builder receives
 * placeholders in the order the compiled statement will take its parameters.
 */
export function prepared<Row, P extends unknown[]>(build: (db: Kysely<Database>, ...placeholders: P) => Compilable<Row>, placeholders: P) {
  const cache = new WeakMap<Kysely<Database>, CompiledQuery<Row>>();
  return async (db: Kysely<Database>, ...params: P): Promise<Row[]> => {
    let compiled = cache.get(db);
    if (!compiled) {
      compiled = build(db, ...placeholders).compile();
      if (compiled.parameters.length !== params.length) throw new Error('prepared query: parameter count mismatch');
      if (!NAMED.has(compiled.sql)) NAMED.set(compiled.sql, `showsuite_${NAMED.size + 1}`);
      cache.set(db, compiled);
    }
    const result = await db.executeQuery<Row>({ ...compiled, parameters: params });
    return result.rows;
  };
}
