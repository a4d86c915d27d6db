import { sql, type Kysely, type RawBuilder, type UpdateObject } from 'kysely';
import type { Database } from './schema.ts';

/** The tables whose rows carry `version` (the `__v` and ETag) and `updated_at`. */
export type VersionedTable = 'projects' | 'floors' | 'units' | 'groups' | 'users' | 'webhooks' | 'leads' | 'worksheets';

/** `column || value`: merges JSON fields key by key in the statement, so concurrent edits of different keys both survive. */
export function jsonMerge(column: 'data' | 'profile' | 'secrets', value: Record<string, unknown>): RawBuilder<string> {
  return sql<string>`${sql.ref(column)} || ${JSON.stringify(value)}::jsonb`;
}

/** The columns a versioned update answers with (`RETURNING`), and the row type they make. */
export interface Returning<R> {
  readonly columns: readonly (string | RawBuilder<unknown>)[];
  /** Carries the row type only; never set. */
  readonly row?: R;
}

/** `returning<UnitRow>(UNIT_COLUMNS)`: a column is a name (`u.id`) or an expression with its alias (sql`(…) as before`). */
export const returning = <R>(columns: readonly (string | RawBuilder<unknown>)[]): Returning<R> => ({ columns });

export interface VersionedWrite<R> {
  /** When the change is made, from the injected clock (`ctx.clock.now()`), never the database's: it is `updated_at`. */
  at: number | Date;
  /** Writes only while the row is still at this version (If-Match). */
  ifVersion?: number;
  /** Further conditions the row must meet (a hold still live, a unit still free), naming columns by `as`. */
  where?: RawBuilder<boolean>;
  /** The table's alias in the statement (`u`), for `where` and `returning`. */
  as?: string;
  /** The row as written; the update then answers it, or undefined when nothing was written. */
  returning?: Returning<R>;
}

/** When a versioned change is made (the injected clock) and the version it requires, as a repository function takes them. */
export type WriteAt = Pick<VersionedWrite<never>, 'at' | 'ifVersion'>;

/** Which rows: one id, or several (`{ in: ids }`, or a subquery of ids). */
export type VersionedRows = string | { in: readonly string[] | RawBuilder<unknown> };

/**
 * The one versioned update: sets the given columns, bumps `version` by one and sets `updated_at` to `at` (the injected
 * clock), in one statement. With `ifVersion` it writes only while the row is still at that version (If-Match), with
 * `where` only while the row meets it: false (or undefined, with `returning`) when nothing was written, which the
 * caller reports as 412 (stale), 404 (gone) or 409 (taken).
 */
export async function versionedUpdate<T extends VersionedTable, R = never>(
  db: Kysely<Database>,
  table: T,
  rows: VersionedRows,
  set: UpdateObject<Database, T>,
  write: VersionedWrite<R>,
): Promise<[NoInfer<R>] extends [never] ? boolean : NoInfer<R> | undefined> {
  const col = (c: string) => sql.ref(write.as ? `${write.as}.${c}` : c);
  const target = write.as ? sql`${sql.table(table)} as ${sql.id(write.as)}` : sql.table(table);
  const sets = [...assignments(set), versionBumpSql(write.at, write.as)];
  const which =
    typeof rows === 'string' ? sql`${col('id')} = ${rows}` : sql`${col('id')} in (${Array.isArray(rows.in) ? sql.join(rows.in as string[]) : rows.in})`;
  const conditions = [which, ...(write.ifVersion === undefined ? [] : [sql`${col('version')} = ${write.ifVersion}`]), ...(write.where ? [write.where] : [])];
  const answer = write.returning ? sql` returning ${sql.join(write.returning.columns.map((c) => (typeof c === 'string' ? sql.ref(c) : c)))}` : sql``;
  const r = await sql<R>`update ${target} set ${sql.join(sets)} where ${sql.join(conditions, sql` and `)}${answer}`.execute(db);
  return (write.returning ? r.rows[0] : Number(r.numAffectedRows) >= 1) as [R] extends [never] ? boolean : R | undefined;
}

/**
 * `version = version + 1, updated_at = <at>`: the bump itself, for the few versioned statements one row's update
 * cannot say (many rows from a recordset, a CTE, the owner's hand-over); `alias` the table's alias there.
 */
export function versionBumpSql(at: number | Date, alias?: string): RawBuilder<unknown> {
  return sql`version = ${sql.ref(alias ? `${alias}.version` : 'version')} + 1, updated_at = ${new Date(at)}`;
}

/** Bumps the version of rows whose derived lists changed (a project's floors, a floor's units, a group's projects). */
export async function bumpVersions(db: Kysely<Database>, table: VersionedTable, ids: readonly (string | null | undefined)[], at: number | Date): Promise<void> {
  const list = [...new Set(ids.filter((x): x is string => !!x))];
  if (!list.length) return;
  await versionedUpdate(db, table, { in: list }, {}, { at });
}

function assignments(set: object): RawBuilder<unknown>[] {
  return Object.entries(set)
    .filter(([, value]) => value !== undefined)
    .map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
}
