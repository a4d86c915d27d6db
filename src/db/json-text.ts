import { sql, type RawBuilder } from 'kysely';

/**
 * A stored `jsonb` document as PostgreSQL's JSON text, less the given keys: the hot reads write their bodies from it
 * instead of parsing the document in Node and serialising it again. The keys are the record's own (kept in columns)
 * and anything else a document must never carry into a response; they come from code, never from a request.
 */
export function documentText(column: string, without: readonly string[]): RawBuilder<string> {
  return sql<string>`(${sql.ref(column)} - ${sql.raw(`array[${without.map((k) => `'${k}'`).join(', ')}]`)}::text[])::text`;
}

/** The document's JSON text with the record's fields (`"key":value,…`, already JSON) added after its own. */
export function withFields(document: string, fields: string): string {
  return document.length > 2 ? `${document.slice(0, -1)},${fields}}` : `{${fields}}`;
}
