// `npm run gen:schema`: src/db/schema.ts, the tables as Kysely sees them, generated from the migrated database. It
// migrates a new in-memory PGlite database, reads every table of the public schema from information_schema, and
// writes one interface per table. test/unit/schema-types.test.ts fails when the committed file is not what this writes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { format, resolveConfig } from 'prettier';
import { openPGlite } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('../src/db/schema.ts', import.meta.url));

interface Column {
  table_name: string;
  column_name: string;
  /** PostgreSQL's name of the type (`text`, `timestamptz`; an array's is its element's with `_` before it). */
  udt_name: string;
  nullable: boolean;
  /** Whether an insert may leave it out: a default, an identity or a generated column. */
  has_default: boolean;
}

/** A column's type as read (select), as written by an insert and by an update, before null and defaults are added. */
interface Shape {
  select: string;
  insert: string;
  update: string;
}

const same = (t: string): Shape => ({ select: t, insert: t, update: t });

/**
 * What each PostgreSQL type reads as, through node-postgres and PGlite alike, and what a write may pass. JSON is
 * written as its text (`JSON.stringify`), so a statement never depends on how a driver would encode an object.
 */
const TYPES: Record<string, Shape> = {
  bpchar: same('string'),
  text: same('string'),
  varchar: same('string'),
  int2: same('number'),
  int4: same('number'),
  float4: same('number'),
  float8: same('number'),
  // node-postgres reads a bigint as text (it may not fit a double), PGlite as a number.
  int8: same('number | string'),
  numeric: same('string'),
  bool: same('boolean'),
  timestamptz: { select: 'Date', insert: 'Date | string', update: 'Date | string' },
  date: { select: 'Date', insert: 'Date | string', update: 'Date | string' },
  jsonb: { select: 'Record<string, unknown>', insert: 'string', update: 'string' },
  // node-postgres reads a Buffer, PGlite a Uint8Array (which a Buffer is).
  bytea: same('Uint8Array'),
};

/**
 * Where the code knows more than the database says: the values a text column holds (its CHECK, or the service's
 * rule), the shape of a JSON column, what a write passes. `type` is the type read; a write takes the same values
 * (JSON as its text), or `write` when given.
 */
export const OVERRIDES: Record<string, { type: string; write?: string; why: string }> = {
  'users.secrets': { type: 'Record<string, string>', why: 'Sealed secrets by name.' },
  'projects.secrets': { type: 'Record<string, string>', why: "Sealed secrets by name (an allocation's password under `allocation:<name>`)." },
  'inventory_syncs.errors': { type: 'unknown[]', why: 'The rows an import refused, in order.' },
  'inventory_syncs.source': { type: "'upload' | 'ftp' | 'rentcafe'", why: 'Its CHECK.' },
  'inventory_syncs.status': { type: "'applied' | 'failed'", why: 'Its CHECK.' },
  'invites.target_kind': { type: "'project' | 'group'", why: 'Its CHECK.' },
  'invites.level': { type: "'administrator' | 'editor' | 'owner'", why: 'Its CHECK.' },
  'idempotency_keys.body': { type: 'unknown', why: 'The stored answer: any JSON value.' },
  'deposits.amount': { type: 'number | string', write: 'number', why: 'In minor units (cents), written as a number.' },
};

function shapeOf(c: Column): Shape {
  const array = c.udt_name.startsWith('_');
  const udt = array ? c.udt_name.slice(1) : c.udt_name;
  const base = TYPES[udt];
  if (!base) throw new Error(`gen:schema: no TypeScript type for ${c.table_name}.${c.column_name} (${c.udt_name}): add it to TYPES`);
  const override = OVERRIDES[`${c.table_name}.${c.column_name}`];
  // JSON is still written as its text; any other overridden column takes the values it reads, or its `write`.
  const shape = !override
    ? base
    : udt === 'jsonb'
      ? { ...base, select: override.type }
      : { select: override.type, insert: override.write ?? override.type, update: override.write ?? override.type };
  return array ? { select: `${shape.select}[]`, insert: `${shape.insert}[]`, update: `${shape.update}[]` } : shape;
}

/** The column's type in Kysely's terms: the plain type when reads and writes agree, else `ColumnType<read, insert, update>`. */
function columnType(c: Column): string {
  const { select, insert, update } = shapeOf(c);
  const orNull = (t: string) => (c.nullable && t !== 'unknown' ? `${t} | null` : t);
  // Kysely already lets an insert leave out a column whose type takes null.
  const optional = c.has_default && !c.nullable;
  if (select === insert && insert === update) {
    if (c.nullable) return orNull(select);
    return optional ? `Generated<${select}>` : select;
  }
  return `ColumnType<${orNull(select)}, ${orNull(insert)}${optional || c.nullable ? ' | undefined' : ''}, ${orNull(update)}>`;
}

const pascal = (name: string) => name.replace(/(^|_)([a-z])/g, (_, __: string, ch: string) => ch.toUpperCase());

/** The columns of every table of the migrated database's public schema, in table and column order. */
async function readColumns(): Promise<Column[]> {
  const db = await openPGlite(undefined);
  try {
    await migrate(db);
    const { rows } = await sql<Column>`
      select c.table_name, c.column_name, c.udt_name, c.is_nullable = 'YES' as nullable,
        (c.column_default is not null or c.is_identity = 'YES' or c.is_generated = 'ALWAYS') as has_default
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
      order by c.table_name, c.ordinal_position`.execute(db.kysely);
    return rows;
  } finally {
    await db.close();
  }
}

const HEADER = `/**
 * The tables as Kysely sees them, generated from the migrated database by \`npm run gen:schema\`
 * (scripts/gen-schema.ts). Do not edit: change a migration, or the generator's OVERRIDES where the code knows more
 * than the database says, and generate again. Columns are snake_case; JSON columns hold the API's camelCase fields
 * and are written as JSON text.
 */
import type { ColumnType, Generated } from 'kysely';
`;

/** The file's text as the script writes it (formatted as the repository formats src/). */
export async function schemaText(): Promise<string> {
  const columns = await readColumns();
  const unused = Object.keys(OVERRIDES).filter((k) => !columns.some((c) => `${c.table_name}.${c.column_name}` === k));
  if (unused.length) throw new Error(`gen:schema: overrides of columns the database does not have: ${unused.join(', ')}`);
  const tables = [...new Set(columns.map((c) => c.table_name))];
  const interfaces = tables.map((table) => {
    const body = columns
      .filter((c) => c.table_name === table)
      .map((c) => {
        const why = OVERRIDES[`${table}.${c.column_name}`]?.why;
        return `${why ? `  /** ${why} */\n` : ''}  ${c.column_name}: ${columnType(c)};`;
      });
    return `export interface ${pascal(table)}Table {\n${body.join('\n')}\n}`;
  });
  const database = `export interface Database {\n${tables.map((t) => `  ${t}: ${pascal(t)}Table;`).join('\n')}\n}`;
  const text = `${HEADER}\n${interfaces.join('\n\n')}\n\n${database}\n`;
  return format(text, { ...(await resolveConfig(SCHEMA_FILE)), filepath: SCHEMA_FILE });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, await schemaText());
  console.log(`wrote ${SCHEMA_FILE}`);
}
