import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { versionBumpSql, versionedUpdate } from './versioned.repo.ts';

/**
 * The records people are invited to: an owner (`user_id`), `administrators` and `editors`, and the pending
 * invitations listed in `data.invites`. Their modules (projects, groups) call these with their own table.
 */
export type MemberTable = 'projects' | 'groups';
export type MemberLevel = 'administrator' | 'editor';

/** Appends the invite to the record's `invites` (a write to the record: its version moves). */
export async function listInvite(db: Kysely<Database>, table: MemberTable, id: string, invite: Record<string, unknown>, at: number | Date): Promise<void> {
  const invites = sql`(case when jsonb_typeof(data->'invites') = 'array' then data->'invites' else '[]'::jsonb end) || ${JSON.stringify([invite])}::jsonb`;
  await versionedUpdate(db, table, id, { data: sql<string>`jsonb_set(data, '{invites}', ${invites})` }, { at });
}

/** Takes the invite out of the record's `invites`. */
export async function unlistInvite(db: Kysely<Database>, table: MemberTable, id: string, inviteId: string, at: number | Date): Promise<void> {
  const data = sql<string>`jsonb_set(
          data, '{invites}',
          coalesce((select jsonb_agg(e) from jsonb_array_elements(data->'invites') e where e->>'_id' is distinct from ${inviteId}), '[]'::jsonb))`;
  await versionedUpdate(db, table, id, { data }, { at, where: sql<boolean>`jsonb_typeof(data->'invites') = 'array'` });
}

/**
 * Hands the record to `userId` (an accepted ownership invitation): they leave `administrators` and `editors`, and the
 * previous owner becomes an administrator (the new owner may remove them). Nothing changes when they already own it.
 */
export async function transferOwner(db: Kysely<Database>, table: MemberTable, id: string, userId: string, at: number | Date): Promise<string | undefined> {
  const user = sql`${userId}::char(24)`;
  const { rows } = await sql<{ previous: string }>`
    update ${sql.table(table)} t
    set user_id = ${userId},
        administrators = array_append(array_remove(array_remove(t.administrators, ${user}), t.user_id), t.user_id),
        editors = array_remove(array_remove(t.editors, ${user}), t.user_id),
        ${versionBumpSql(at, 't')}
    from (select id, user_id as previous from ${sql.table(table)} where id = ${id} for update) old
    where t.id = old.id and t.user_id <> ${userId}
    returning old.previous`.execute(db);
  return rows[0]?.previous;
}

/** Puts the user in `administrators` or `editors` (and out of the other list). The owner stays the owner. */
export async function addMember(db: Kysely<Database>, table: MemberTable, id: string, userId: string, level: MemberLevel, at: number | Date): Promise<void> {
  const admin = level === 'administrator';
  const user = sql`${userId}::char(24)`;
  const set = {
    administrators: sql<
      string[]
    >`case when ${admin} then array_append(array_remove(administrators, ${user}), ${user}) else array_remove(administrators, ${user}) end`,
    editors: sql<string[]>`case when ${admin} then array_remove(editors, ${user}) else array_append(array_remove(editors, ${user}), ${user}) end`,
  };
  await versionedUpdate(db, table, id, set, { at, where: sql<boolean>`user_id <> ${userId}` });
}
