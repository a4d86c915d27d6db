import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * A hot-path query built and compiled once per Kysely instance, then run with new parameters: Kysely otherwise
 * rebuilds and recompiles the same SQL on every request. The builder receives placeholders in the order the
 * compiled statement will take its parameters.
 */
export function prepared<Row, P extends unknown[]>(build: (db: Kysely<Database>, ...placeholders: P) => Compilable<Row>, placeholders: P) {
  const cache = new WeakMap<Kysely<Database>, CompiledQuery<Row>>();
  return async (db: Kysely<Database>, ...params: P): Promise<Row[]> => {
    let compiled = cache.get(db);
    if (!compiled) {
      compiled = build(db, ...placeholders).compile();
      if (compiled.parameters.length !== params.length) throw new Error('prepared query: parameter count mismatch');
      cache.set(db, compiled);
    }
    const result = await db.executeQuery<Row>({ ...compiled, parameters: params });
    return result.rows;
  };
}
