import { sql, type Kysely, type RawBuilder, type UpdateObject } from 'kysely';
import type { Database } from './schema.ts';

/** The tables whose rows carry `version` (the `__v` and ETag) and `updated_at`. */
export type VersionedTable = 'projects' | 'floors' | 'units' | 'groups' | 'users' | 'webhooks' | 'leads';

/** `column || value`: merges JSON fields key by key in the statement, so concurrent edits of different keys both survive. */
export function jsonMerge(column: 'data' | 'profile' | 'secrets', value: Record<string, unknown>): RawBuilder<string> {
  return sql<string>`${sql.ref(column)} || ${JSON.stringify(value)}::jsonb`;
}

/**
 * The one versioned update: sets the given columns, bumps `version` by one and `updated_at` to now, in one
 * statement. With `ifVersion` it writes only while the row is still at that version (If-Match); false when nothing
 * was written, which the caller reports as 412 (stale) or 404 (gone).
 */
export async function versionedUpdate<T extends VersionedTable>(
  db: Kysely<Database>,
  table: T,
  id: string,
  set: UpdateObject<Database, T>,
  ifVersion?: number,
): Promise<boolean> {
  const sets = [...assignments(set), sql`version = version + 1`, sql`updated_at = now()`];
  const r =
    await sql`update ${sql.table(table)} set ${sql.join(sets)} where id = ${id}${ifVersion === undefined ? sql`` : sql` and version = ${ifVersion}`}`.execute(
      db,
    );
  return Number(r.numAffectedRows) === 1;
}

/** Bumps the version of rows whose derived lists changed (a project's floors, a floor's units, a group's projects). */
export async function bumpVersions(db: Kysely<Database>, table: VersionedTable, ids: readonly (string | null | undefined)[]): Promise<void> {
  const list = [...new Set(ids.filter((x): x is string => !!x))];
  if (!list.length) return;
  await sql`update ${sql.table(table)} set version = version + 1, updated_at = now() where id in (${sql.join(list)})`.execute(db);
}

function assignments(set: object): RawBuilder<unknown>[] {
  return Object.entries(set)
    .filter(([, value]) => value !== undefined)
    .map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
}
