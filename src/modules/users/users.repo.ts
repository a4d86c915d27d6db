import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, UsersTable } from '../../db/schema.ts';
import { jsonMerge, versionedUpdate, type WriteAt } from '../../db/versioned.repo.ts';
import type { Role, User } from './users.schemas.ts';

type Q = Kysely<Database>;
export type UserRow = Omit<Selectable<UsersTable>, 'secrets'>;

const COLUMNS = ['id', 'username', 'password_hash', 'role', 'profile', 'version', 'created_at', 'updated_at', 'deactivated_at'] as const;

/** What GET /users/me works out rather than stores: who shares the user's projects, their invitations, a next namespace. */
export type Derived = Pick<User, 'administrators' | 'editors' | 'invites' | 'projectNameURL'>;

export function toUser(row: UserRow, memberships: { projects: string[]; groups: string[] } = { projects: [], groups: [] }, derived: Derived = {}): User {
  const profile = row.profile;
  const fullName = (profile.fullName as string | undefined) ?? ([profile.name, profile.lastName].filter(Boolean).join(' ') || undefined);
  return {
    ...(profile as Partial<User>),
    ...(fullName ? { fullName } : {}),
    ...derived,
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
export function mergeUserProfile(db: Q, id: string, patch: Record<string, unknown>, passwordHash: string | undefined, write: WriteAt): Promise<boolean> {
  const set = { profile: jsonMerge('profile', patch), ...(passwordHash ? { password_hash: passwordHash } : {}) };
  return versionedUpdate(db, 'users', id, set, write);
}

/** The user whose connected Stripe account this is (profile `paymentsAccountId`). */
export function findUserByPaymentsAccount(db: Q, accountId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'profile'])
    .where(sql<boolean>`profile->>'paymentsAccountId' = ${accountId}`)
    .executeTakeFirst();
}

/** The user whose Stripe customer this is (profile `paymentsCustomer.id`, plans). */
export function findUserByPaymentsCustomer(db: Q, customerId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'username', 'profile'])
    .where(sql<boolean>`profile->'paymentsCustomer'->>'id' = ${customerId}`)
    .executeTakeFirst();
}

/** A new password (a reset): the record's version moves like any other write. */
export function setUserPassword(db: Q, id: string, passwordHash: string, at: number | Date): Promise<boolean> {
  return versionedUpdate(db, 'users', id, { password_hash: passwordHash }, { at });
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

/** The people who share a user's projects, and the invitations waiting for the user's address (GET /users/me). */
export interface Circle {
  administrators: string[];
  editors: string[];
  invites: {
    id: string;
    email: string;
    first_name: string | null;
    last_name: string | null;
    level: 'administrator' | 'editor' | 'owner';
    created_at: string;
    expires_at: string;
    target_kind: 'project' | 'group';
    target_id: string;
    target_name: string;
  }[];
}

/**
 * The other administrators and editors of the projects the user owns or belongs to (ids, each once, the user left
 * out), and the invitations to the user's address that are still open at `now`, oldest first, each with its project's
 * or group's name (an invitation to a deleted one is not listed). One statement.
 */
export async function findCircle(db: Q, userId: string, username: string, now: Date): Promise<Circle> {
  const me = sql`array[${userId}]::char(24)[]`;
  const { rows } = await sql<Circle>`
    with shared as (select administrators, editors from projects where user_id = ${userId} or administrators @> ${me} or editors @> ${me})
    select
      coalesce((select array_agg(distinct a::text order by a::text) from shared, unnest(shared.administrators) a where a::text <> ${userId}), '{}') as administrators,
      coalesce((select array_agg(distinct e::text order by e::text) from shared, unnest(shared.editors) e where e::text <> ${userId}), '{}') as editors,
      coalesce((select json_agg(json_build_object('id', i.id, 'email', i.email, 'first_name', i.first_name, 'last_name', i.last_name,
                  'level', i.level, 'created_at', i.created_at, 'expires_at', i.expires_at, 'target_kind', i.target_kind,
                  'target_id', i.target_id, 'target_name', coalesce(p.name, g.name)) order by i.created_at, i.id)
                from invites i
                left join projects p on i.target_kind = 'project' and p.id = i.target_id
                left join groups g on i.target_kind = 'group' and g.id = i.target_id
                where i.email = ${username.toLowerCase()} and i.accepted_at is null and i.revoked_at is null and i.expires_at > ${now}
                  and coalesce(p.id, g.id) is not null), '[]'::json) as invites`.execute(db);
  const row = rows[0];
  return { administrators: row?.administrators ?? [], editors: row?.editors ?? [], invites: row?.invites ?? [] };
}

/** The namespaces of projects that start with `slug` (a slug: letters, digits and dashes, nothing LIKE reads). */
export async function findNamespacesLike(db: Q, slug: string): Promise<string[]> {
  const rows = await db.selectFrom('projects').select('namespace').where('namespace', 'like', `${slug}%`).execute();
  return rows.flatMap((r) => (r.namespace === null ? [] : [r.namespace]));
}

/** One account as the administrators' list shows it: the user, when it last signed in, and its projects with its role. */
export interface AccountRow {
  id: string;
  username: string;
  role: string;
  profile: Record<string, unknown>;
  version: number;
  created_at: Date;
  updated_at: Date;
  deactivated_at: Date | null;
  last_sign_in_at: Date | null;
  projects: { _id: string; name: string; role: 'owner' | 'administrator' | 'editor' }[];
  total: string;
}

/**
 * A page of accounts, by e-mail (then id), each with its projects and role in each; `q` matches the e-mail or the name
 * (case-insensitive, as a substring), `active` keeps active or deactivated ones, `id` one account. One statement, the total
 * before paging.
 */
export async function listAccounts(
  db: Q,
  f: { id?: string; q?: string | undefined; active?: boolean | undefined; skip: number; limit: number },
): Promise<AccountRow[]> {
  const like = f.q === undefined ? null : `%${f.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const me = sql`array[u.id]::char(24)[]`;
  const { rows } = await sql<AccountRow>`
    select u.id, u.username, u.role, u.profile, u.version, u.created_at, u.updated_at, u.deactivated_at,
           (select max(s.created_at) from sessions s where s.user_id = u.id) as last_sign_in_at,
           coalesce((select json_agg(json_build_object('_id', p.id, 'name', p.name, 'role',
                       case when p.user_id = u.id then 'owner' when p.administrators @> ${me} then 'administrator' else 'editor' end)
                     order by p.created_at, p.id)
                     from projects p where p.user_id = u.id or p.administrators @> ${me} or p.editors @> ${me}), '[]'::json) as projects,
           count(*) over () as total
    from users u
    where (${f.id ?? null}::text is null or u.id = ${f.id ?? null})
      and (${like}::text is null or lower(u.username) like ${like} or lower(coalesce(u.profile->>'name', '') || ' ' || coalesce(u.profile->>'lastName', '')) like ${like})
      and (${f.active ?? null}::boolean is null or (u.deactivated_at is null) = ${f.active ?? null}::boolean)
    order by lower(u.username), u.id
    limit ${f.limit} offset ${f.skip}`.execute(db);
  return rows;
}

/** Deactivates (at `at`) or reactivates an account, as a versioned write; false when the row moved past `ifVersion`. */
export function setAccountActive(db: Q, id: string, active: boolean, at: Date, ifVersion?: number): Promise<boolean> {
  return versionedUpdate(db, 'users', id, { deactivated_at: active ? null : at }, { at, ifVersion });
}
