import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, UsersTable } from '../../db/schema.ts';
import { jsonMerge, versionedUpdate } from '../../db/versioned.repo.ts';
import type { Role, User } from './users.schemas.ts';

type Q = Kysely<Database>;
export type UserRow = Omit<Selectable<UsersTable>, 'secrets'>;

const COLUMNS = ['id', 'username', 'password_hash', 'role', 'profile', 'version', 'created_at', 'updated_at'] as const;

export function toUser(row: UserRow, memberships: { projects: string[]; groups: string[] } = { projects: [], groups: [] }): User {
  const profile = row.profile;
  const fullName = (profile.fullName as string | undefined) ?? ([profile.name, profile.lastName].filter(Boolean).join(' ') || undefined);
  return {
    ...(profile as Partial<User>),
    ...(fullName ? { fullName } : {}),
    _id: row.id,
    __v: row.version,
    role: row.role as Role,
    username: row.username,
    projects: memberships.projects,
    groups: memberships.groups,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function findUserByUsername(db: Q, username: string) {
  return db
    .selectFrom('users')
    .select(COLUMNS)
    .where(sql<string>`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
}

export function findUserById(db: Q, id: string) {
  return db.selectFrom('users').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function insertUser(db: Q, u: { id: string; username: string; passwordHash: string; role: Role; profile: Record<string, unknown> }) {
  return db
    .insertInto('users')
    .values({ id: u.id, username: u.username, password_hash: u.passwordHash, role: u.role, profile: JSON.stringify(u.profile), secrets: '{}' })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * Merges the given profile fields (and sets a new password hash) in one versioned statement, so concurrent edits of
 * different fields both survive. With `ifVersion`, writes only if the row is still at that version; false otherwise.
 */
export function mergeUserProfile(db: Q, id: string, patch: Record<string, unknown>, passwordHash?: string, ifVersion?: number): Promise<boolean> {
  const set = { profile: jsonMerge('profile', patch), ...(passwordHash ? { password_hash: passwordHash } : {}) };
  return versionedUpdate(db, 'users', id, set, ifVersion);
}

/** A new password (a reset): the record's version moves like any other write. */
export function setUserPassword(db: Q, id: string, passwordHash: string): Promise<boolean> {
  return versionedUpdate(db, 'users', id, { password_hash: passwordHash });
}

export async function recordAudit(db: Q, e: { actorId: string | null; action: string; subjectId: string | null; detail?: Record<string, unknown> }) {
  await db
    .insertInto('audit_log')
    .values({ actor_id: e.actorId, action: e.action, subject_id: e.subjectId, detail: JSON.stringify(e.detail ?? {}) })
    .execute();
}

/** Ids of the projects and groups the user owns or is an administrator or editor of, oldest first. One statement. */
export async function findMemberships(db: Q, userId: string): Promise<{ projects: string[]; groups: string[] }> {
  const me = sql`array[${userId}]::char(24)[]`;
  const member = sql`user_id = ${userId} or administrators @> ${me} or editors @> ${me}`;
  const { rows } = await sql<{ projects: string[] | null; groups: string[] | null }>`
    select (select array_agg(id::text order by created_at, id) from projects where ${member}) as projects,
           (select array_agg(id::text order by created_at, id) from groups where ${member}) as groups`.execute(db);
  return { projects: rows[0]?.projects ?? [], groups: rows[0]?.groups ?? [] };
}
