import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, GroupsTable } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';

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

export async function listGroups(db: Q, principal: Principal, page: { skip: number; limit: number; sort: string; updatedSince?: string | undefined }) {
  const desc = page.sort.startsWith('-');
  const col = ({ name: 'g.name', createdAt: 'g.created_at', updatedAt: 'g.updated_at' } as const)[page.sort.replace(/^-/, '') as 'name'];
  const dir = desc ? 'desc' : 'asc';
  let q = db.selectFrom('groups as g').select([...COLUMNS, projectIds, sql<number | string>`count(*) over()`.as('total')]);
  if (principal.role !== 'admin') {
    q = q.where((eb) =>
      eb.or([
        eb('g.user_id', '=', principal.id),
        eb('g.administrators', '@>', sql<string[]>`array[${principal.id}]::char(24)[]`),
        eb('g.editors', '@>', sql<string[]>`array[${principal.id}]::char(24)[]`),
      ]),
    );
  }
  if (page.updatedSince) q = q.where('g.updated_at', '>=', new Date(page.updatedSince));
  const rows = await q.orderBy(col, dir).orderBy('g.id', dir).offset(page.skip).limit(page.limit).execute();
  return { rows, total: Number(rows[0]?.total ?? 0) };
}

export interface GroupChange {
  columns: Partial<{ user_id: string; name: string; namespace: string | null; host_name: string | null; administrators: string[]; editors: string[] }>;
  data: Record<string, unknown>;
}

export async function insertGroup(db: Q, g: { id: string; userId: string; change: GroupChange }) {
  await db
    .insertInto('groups')
    .values({
      id: g.id,
      user_id: g.userId,
      name: g.change.columns.name!,
      namespace: g.change.columns.namespace ?? null,
      host_name: g.change.columns.host_name ?? null,
      administrators: g.change.columns.administrators ?? [],
      editors: g.change.columns.editors ?? [],
      data: JSON.stringify(g.change.data),
    })
    .execute();
}

export async function updateGroup(db: Q, id: string, change: GroupChange, ifVersion?: number) {
  let q = db
    .updateTable('groups')
    .set({ ...change.columns, data: sql`data || ${JSON.stringify(change.data)}::jsonb`, version: sql`version + 1`, updated_at: sql`now()` })
    .where('id', '=', id);
  if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
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

/** With `ifVersion`, deletes only if the row is still at that version; false when nothing was deleted. */
export async function deleteGroup(db: Q, id: string, ifVersion?: number): Promise<boolean> {
  let q = db.deleteFrom('groups').where('id', '=', id);
  if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
  return Number((await q.executeTakeFirst()).numDeletedRows) === 1;
}
