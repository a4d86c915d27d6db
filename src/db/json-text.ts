import { sql, type RawBuilder } from 'kysely';

/**
 * A stored `jsonb` document as PostgreSQL's JSON text, less the given keys: the hot reads write their bodies from it
 * instead of parsing the document in Node and serialising it again. The keys are the record's own (kept in columns)
 * and anything else a document must never carry into a response; they come from code, never from a request.
 */
export function documentText(column: string, without: readonly string[]): RawBuilder<string> {
  return sql<string>`${sql.raw(documentTextSql(column, without))}`;
}

/** `documentText` as plain SQL text, for statements written as text (`recordTextSql`, the benchmark's bare server). */
export function documentTextSql(column: string, without: readonly string[]): string {
  return `(${column} - array[${without.map((k) => `'${k}'`).join(', ')}]::text[])::text`;
}

/**
 * SQL for a whole record's JSON text, written by PostgreSQL: the stored document (less the given keys) as its JSON
 * text, then the record's fields after its own. `fields` is SQL giving `"key":value,…` text. Plain SQL text (no
 * parameters), so the benchmark's bare server can send the very same statement.
 */
export function recordTextSql(column: string, without: readonly string[], fields: string): string {
  return `(select case when d.doc = '{}' then '{' else left(d.doc, -1) || ',' end || ${fields} || '}' from (select ${documentTextSql(column, without)} as doc) as d)`;
}

/** SQL for a timestamp as JSON's ISO text, as `Date.prototype.toISOString` writes it (UTC, milliseconds truncated). */
export function isoTextSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** The document's JSON text with the record's fields (`"key":value,…`, already JSON) added after its own. */
export function withFields(document: string, fields: string): string {
  return document.length > 2 ? `${document.slice(0, -1)},${fields}}` : `{${fields}}`;
}
