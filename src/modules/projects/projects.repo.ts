import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { jsonMerge, versionBumpSql, versionedUpdate, type WriteAt } from '../../db/versioned.repo.ts';
import { publishedSql } from './drafts.ts';
import { namedStatement } from '../../db/prepared.ts';
import { addMember, listInvite, transferOwner, unlistInvite, type MemberLevel } from '../../db/member-lists.repo.ts';
import { pageWithTotal, visibleList, visibleShape, visibleValues, type VisiblePage, type VisibleShape, type VisibleValues } from '../shared/list.repo.ts';
import { FLOOR_IDS_SQL, PROJECT_RECORD_SQL, type ProjectRow } from './projects.record.ts';

type Q = Kysely<Database>;

const floorIds = sql<string[]>`coalesce((${sql.raw(FLOOR_IDS_SQL)}), '{}')`.as('floor_ids');

const COLUMNS = [
  'p.id',
  'p.user_id',
  'p.name',
  'p.namespace',
  'p.host_name',
  'p.project_type',
  'p.administrators',
  'p.editors',
  'p.data',
  'p.secrets',
  'p.version',
  'p.content_version',
  'p.created_at',
  'p.updated_at',
] as const;

export function findProject(db: Q, id: string): Promise<ProjectRow | undefined> {
  return db
    .selectFrom('projects as p')
    .select([...COLUMNS, floorIds])
    .where('p.id', '=', id)
    .executeTakeFirst();
}

/** A change outside the projects (the owner's payments account) that their public bundles show: their ETags move. */
export async function touchOwnerBundles(db: Q, userId: string): Promise<void> {
  await db
    .updateTable('projects')
    .set({ content_version: sql`content_version + 1` })
    .where('user_id', '=', userId)
    .execute();
}

/** Just what an access check needs, for routes that act on a project's children. */
export function findProjectMembership(db: Q, id: string) {
  return db.selectFrom('projects').select(['id', 'user_id', 'administrators', 'editors', 'data']).where('id', '=', id).executeTakeFirst();
}

/** The membership of each of these projects that exists, for checks over many at once (a group's `projects`). */
export function findProjectMemberships(db: Q, ids: readonly string[]) {
  return db.selectFrom('projects').select(['id', 'user_id', 'administrators', 'editors']).where('id', 'in', ids).execute();
}

export interface ProjectListParams extends VisiblePage {
  name?: string | undefined;
  projectType?: string | undefined;
}

export function listProjects(db: Q, principal: Principal, params: ProjectListParams) {
  const name = params.name !== undefined && params.name !== '';
  const shape = { ...visibleShape(principal, params), name, type: params.projectType !== undefined };
  const values = {
    ...visibleValues(principal, params),
    pattern: name ? `%${(params.name ?? '').replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined,
    type: params.projectType,
  };
  return pageWithTotal((skip, limit) => listProjectsQuery(db, { ...values, skip, limit }, shape), params);
}

export const listProjectsQuery = namedStatement(
  (db, v: VisibleValues & { pattern: string | undefined; type: string | undefined }, s: VisibleShape & { name: boolean; type: boolean }) => {
    let q = db.selectFrom('projects as p').select(sql<string>`${sql.raw(PROJECT_RECORD_SQL)}`.as('item'));
    if (s.name) q = q.where(sql<boolean>`p.name ilike ${v.pattern}`);
    if (s.type) q = q.where(sql<boolean>`p.project_type = ${v.type}`);
    return visibleList(q, 'p', s, v);
  },
);

export interface ProjectInsert {
  id: string;
  userId: string;
  name: string;
  namespace: string | null;
  hostName: string | null;
  projectType: string | null;
  administrators: string[];
  editors: string[];
  data: Record<string, unknown>;
  secrets: Record<string, string>;
}

export async function insertProject(db: Q, p: ProjectInsert): Promise<ProjectRow> {
  await db
    .insertInto('projects')
    .values({
      id: p.id,
      user_id: p.userId,
      name: p.name,
      namespace: p.namespace,
      host_name: p.hostName,
      project_type: p.projectType,
      administrators: p.administrators,
      editors: p.editors,
      data: JSON.stringify(p.data),
      secrets: JSON.stringify(p.secrets),
    })
    .execute();
  const row = await findProject(db, p.id);
  if (!row) throw new Error(`project ${p.id} vanished in its own transaction`);
  return row;
}

/** An import's time, in the project's `lastSync` (a write to the project: its version moves). */
export async function setLastSync(db: Q, projectId: string, at: Date) {
  await versionedUpdate(db, 'projects', projectId, { data: jsonMerge('data', { lastSync: at.toISOString() }) }, { at });
}

export interface ProjectChange {
  columns: Partial<{
    user_id: string;
    name: string;
    namespace: string | null;
    host_name: string | null;
    project_type: string | null;
    administrators: string[];
    editors: string[];
  }>;
  data: Record<string, unknown>;
  /** `data` keys taken out before the merge (the billing fields of a project going to draft). */
  dataRemove?: string[];
  secretsSet: Record<string, string>;
  secretsRemove: string[];
}

/** `secrets` with the removed keys taken out and the set ones merged, in the statement (as `jsonMerge` does for `data`). */
function secretsMerge(remove: string[], set: Record<string, string>) {
  return sql<string>`(secrets - ${sql.val(remove)}::text[]) || ${JSON.stringify(set)}::jsonb`;
}

/**
 * Applies one change in one versioned statement: typed columns set, `data` merged key by key, secrets merged and removed.
 * With `ifVersion` it writes only if the row is still at that version; false when it was not.
 */
export function updateProject(db: Q, id: string, change: ProjectChange, write: WriteAt): Promise<boolean> {
  const data = change.dataRemove?.length ? dataWithout(change.dataRemove, change.data) : jsonMerge('data', change.data);
  const set = { ...change.columns, data, secrets: secretsMerge(change.secretsRemove, change.secretsSet) };
  return versionedUpdate(db, 'projects', id, set, write);
}

/** `data` with `remove` taken out and `merge` merged, in the statement. */
function dataWithout(remove: string[], merge: Record<string, unknown>) {
  return sql<string>`(data - ${sql.val(remove)}::text[]) || ${JSON.stringify(merge)}::jsonb`;
}

/** The fields that say what a published project is billed on (plans, docs/billing.md). */
export const BILLING_FIELDS = ['plan', 'subscriptionItem'];

/**
 * The owner's published projects all say they are billed on `fields` (`plan`, `subscriptionItem`); only those that
 * said otherwise are written (their version moves). Answers their ids.
 */
export async function markOwnerProjectsBilled(db: Q, userId: string, fields: Record<string, unknown>, at: number | Date): Promise<string[]> {
  const plan = JSON.stringify(fields.plan ?? null);
  const item = JSON.stringify(fields.subscriptionItem ?? null);
  const { rows } = await sql<{ id: string }>`
    update projects p set data = (p.data - ${sql.val(BILLING_FIELDS)}::text[]) || ${JSON.stringify(fields)}::jsonb, ${versionBumpSql(at, 'p')}
    where p.user_id = ${userId} and ${publishedSql('p')}
      and (coalesce(p.data->'plan', 'null'::jsonb), coalesce(p.data->'subscriptionItem', 'null'::jsonb)) is distinct from (${plan}::jsonb, ${item}::jsonb)
    returning p.id`.execute(db);
  return rows.map((r) => r.id);
}

/** The owner's published projects go to draft (their plan ended unpaid), without their billing fields; answers their ids and names. */
export async function draftOwnerProjects(db: Q, userId: string, at: number | Date): Promise<{ id: string; name: string }[]> {
  const { rows } = await sql<{ id: string; name: string }>`
    update projects p set data = (p.data - ${sql.val(BILLING_FIELDS)}::text[]) || '{"published":false}'::jsonb, ${versionBumpSql(at, 'p')}
    where p.user_id = ${userId} and ${publishedSql('p')}
    returning p.id, p.name`.execute(db);
  return rows;
}

/**
 * Deletes the project (floors, units, leads and group memberships go by ON DELETE CASCADE); with `ifVersion`,
 * only while it is at that version. False when nothing was deleted. The groups that listed it change too: the
 * service bumps them first, in the same transaction (`touchGroupsListing`).
 */
export async function deleteProject(db: Q, id: string, ifVersion?: number): Promise<boolean> {
  let q = db.deleteFrom('projects').where('id', '=', id);
  if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
  return Number((await q.executeTakeFirst()).numDeletedRows) === 1;
}

/** Appends an invite to the project's `invites` (a write to the project: its version moves). */
export function listProjectInvite(db: Q, id: string, invite: Record<string, unknown>, at: number | Date): Promise<void> {
  return listInvite(db, 'projects', id, invite, at);
}

/** Takes the invite out of the project's `invites`. */
export function unlistProjectInvite(db: Q, id: string, inviteId: string, at: number | Date): Promise<void> {
  return unlistInvite(db, 'projects', id, inviteId, at);
}

/** Puts the user in the project's `administrators` or `editors` (and out of the other); its owner stays the owner. */
export function addProjectMember(db: Q, id: string, userId: string, level: MemberLevel, at: number | Date): Promise<void> {
  return addMember(db, 'projects', id, userId, level, at);
}

/** Hands the project to `userId` (an accepted ownership invitation); answers the previous owner, if it changed. */
export function transferProjectOwner(db: Q, id: string, userId: string, at: number | Date): Promise<string | undefined> {
  return transferOwner(db, 'projects', id, userId, at);
}
