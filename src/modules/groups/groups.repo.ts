import { sql, type Kysely, type Selectable } from 'kysely';
import { jsonMerge, versionedUpdate, type WriteAt } from '../../db/versioned.repo.ts';
import type { Database, GroupsTable } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { namedStatement } from '../../db/prepared.ts';
import { addMember, listInvite, transferOwner, unlistInvite, type MemberLevel } from '../../db/member-lists.repo.ts';
import { pageWithTotal, visibleList, visibleShape, visibleValues, type VisiblePage, type VisibleShape, type VisibleValues } from '../shared/list.repo.ts';

type Q = Kysely<Database>;
export type GroupRow = Selectable<GroupsTable> & { project_ids: string[] };

const projectIds = sql<string[]>`coalesce((select array_agg(gp.project_id order by gp.position) from group_projects gp where gp.group_id = g.id), '{}')`.as(
  'project_ids',
);
const COLUMNS = [
  'g.id',
  'g.user_id',
  'g.name',
  'g.namespace',
  'g.host_name',
  'g.administrators',
  'g.editors',
  'g.data',
  'g.version',
  'g.created_at',
  'g.updated_at',
] as const;

export function toGroup(row: GroupRow): Record<string, unknown> {
  return {
    ...row.data,
    _id: row.id,
    __v: row.version,
    user: row.user_id,
    name: row.name,
    ...(row.namespace !== null ? { namespace: row.namespace } : {}),
    ...(row.host_name !== null ? { hostName: row.host_name } : {}),
    administrators: row.administrators,
    editors: row.editors,
    projects: row.project_ids,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function findGroup(db: Q, id: string): Promise<GroupRow | undefined> {
  return db
    .selectFrom('groups as g')
    .select([...COLUMNS, projectIds])
    .where('g.id', '=', id)
    .executeTakeFirst();
}

/** Visible groups, paged and sorted, with the count before paging. */
export function listGroups(db: Q, principal: Principal, page: VisiblePage) {
  const shape = visibleShape(principal, page);
  const values = visibleValues(principal, page);
  return pageWithTotal((skip, limit) => listGroupsQuery(db, { ...values, skip, limit }, shape), page);
}

export const listGroupsQuery = namedStatement((db, v: VisibleValues, s: VisibleShape) =>
  visibleList(db.selectFrom('groups as g').select([...COLUMNS, projectIds]), 'g', s, v),
);

export interface GroupChange {
  columns: Partial<{ user_id: string; name: string; namespace: string | null; host_name: string | null; administrators: string[]; editors: string[] }>;
  data: Record<string, unknown>;
}

export async function insertGroup(db: Q, g: { id: string; userId: string; name: string; change: GroupChange }) {
  await db
    .insertInto('groups')
    .values({
      id: g.id,
      user_id: g.userId,
      name: g.name,
      namespace: g.change.columns.namespace ?? null,
      host_name: g.change.columns.host_name ?? null,
      administrators: g.change.columns.administrators ?? [],
      editors: g.change.columns.editors ?? [],
      data: JSON.stringify(g.change.data),
    })
    .execute();
}

/** One versioned statement: columns set, `data` merged key by key; false when the row is not at `ifVersion`. */
export function updateGroup(db: Q, id: string, change: GroupChange, write: WriteAt): Promise<boolean> {
  return versionedUpdate(db, 'groups', id, { ...change.columns, data: jsonMerge('data', change.data) }, write);
}

/** Replaces the group's project list, in order. */
export async function setGroupProjects(db: Q, groupId: string, projectIds: string[]) {
  await db.deleteFrom('group_projects').where('group_id', '=', groupId).execute();
  if (projectIds.length) {
    await db
      .insertInto('group_projects')
      .values(projectIds.map((project_id, position) => ({ group_id: groupId, project_id, position })))
      .execute();
  }
}

/**
 * Bumps the version of every group that lists the project: a project about to be deleted leaves their `projects`
 * (ON DELETE CASCADE), so their ETags must move. Run before the delete, in its transaction, while the listing is
 * still there; the delete failing (gone, or not at its If-Match version) rolls this back with it.
 */
export async function touchGroupsListing(db: Q, projectId: string, at: number | Date): Promise<void> {
  await versionedUpdate(db, 'groups', { in: sql`select group_id from group_projects where project_id = ${projectId}` }, {}, { at });
}

/** With `ifVersion`, deletes only if the row is still at that version; false when nothing was deleted. */
export async function deleteGroup(db: Q, id: string, ifVersion?: number): Promise<boolean> {
  let q = db.deleteFrom('groups').where('id', '=', id);
  if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
  return Number((await q.executeTakeFirst()).numDeletedRows) === 1;
}

/** Appends an invite to the group's `invites` (a write to the group: its version moves). */
export function listGroupInvite(db: Q, id: string, invite: Record<string, unknown>, at: number | Date): Promise<void> {
  return listInvite(db, 'groups', id, invite, at);
}

/** Takes the invite out of the group's `invites`. */
export function unlistGroupInvite(db: Q, id: string, inviteId: string, at: number | Date): Promise<void> {
  return unlistInvite(db, 'groups', id, inviteId, at);
}

/** Puts the user in the group's `administrators` or `editors` (and out of the other); its owner stays the owner. */
export function addGroupMember(db: Q, id: string, userId: string, level: MemberLevel, at: number | Date): Promise<void> {
  return addMember(db, 'groups', id, userId, level, at);
}

/** Hands the group to `userId` (an accepted ownership invitation); answers the previous owner, if it changed. */
export function transferGroupOwner(db: Q, id: string, userId: string, at: number | Date): Promise<string | undefined> {
  return transferOwner(db, 'groups', id, userId, at);
}
