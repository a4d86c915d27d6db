import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, ProjectsTable } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';

type Q = Kysely<Database>;
export type ProjectRow = Selectable<ProjectsTable> & { floor_ids: string[] };

/** Ids of the project's floors in position order: `project.floors` is derived, never stored twice. */
const floorIds = sql<string[]>`coalesce((select array_agg(f.id order by f.position, f.id) from floors f where f.project_id = p.id), '{}')`.as('floor_ids');

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

/** Names of the secrets that are set, as `configuredSecrets` shows them. */
export function secretNames(secrets: Record<string, string>): string[] {
  return Object.keys(secrets)
    .map((k) => (k.startsWith('allocation:') ? `allocations[${k.slice('allocation:'.length)}].password` : k))
    .sort();
}

/** The response record. `row.data` is parsed afresh for every query, so it is extended in place, not copied. */
export function toProject(row: ProjectRow): Record<string, unknown> {
  return Object.assign(row.data, {
    _id: row.id,
    __v: row.version,
    user: row.user_id,
    name: row.name,
    ...(row.namespace !== null ? { namespace: row.namespace } : {}),
    ...(row.host_name !== null ? { hostName: row.host_name } : {}),
    ...(row.project_type !== null ? { projectType: row.project_type } : {}),
    administrators: row.administrators,
    editors: row.editors,
    floors: row.floor_ids,
    configuredSecrets: secretNames(row.secrets),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  });
}

export function findProject(db: Q, id: string): Promise<ProjectRow | undefined> {
  return db
    .selectFrom('projects as p')
    .select([...COLUMNS, floorIds])
    .where('p.id', '=', id)
    .executeTakeFirst();
}

/** Just what an access check needs, for routes that act on a project's children. */
export function findProjectMembership(db: Q, id: string) {
  return db.selectFrom('projects').select(['id', 'user_id', 'administrators', 'editors', 'data']).where('id', '=', id).executeTakeFirst();
}

export interface ProjectListParams {
  name?: string | undefined;
  projectType?: string | undefined;
  updatedSince?: string | undefined;
  skip: number;
  limit: number;
  sort: string;
}

const SORT_COLUMNS = { name: 'p.name', createdAt: 'p.created_at', updatedAt: 'p.updated_at' } as const;

/** Visible projects, filtered, sorted with `_id` breaking ties (stable pages), with the count before paging. */
export async function listProjects(db: Q, principal: Principal, params: ProjectListParams) {
  const desc = params.sort.startsWith('-');
  const column = SORT_COLUMNS[params.sort.replace(/^-/, '') as keyof typeof SORT_COLUMNS];
  const direction = desc ? 'desc' : 'asc';
  let q = db.selectFrom('projects as p').select([...COLUMNS, floorIds, sql<number | string>`count(*) over()`.as('total')]);
  if (principal.role !== 'admin') {
    q = q.where((eb) =>
      eb.or([
        eb('p.user_id', '=', principal.id),
        eb('p.administrators', '@>', sql<string[]>`array[${principal.id}]::char(24)[]`),
        eb('p.editors', '@>', sql<string[]>`array[${principal.id}]::char(24)[]`),
      ]),
    );
  }
  if (params.name !== undefined && params.name !== '') {
    q = q.where('p.name', 'ilike', `%${params.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (params.projectType !== undefined) q = q.where('p.project_type', '=', params.projectType);
  if (params.updatedSince) q = q.where('p.updated_at', '>=', new Date(params.updatedSince));
  const rows = await q.orderBy(column, direction).orderBy('p.id', direction).offset(params.skip).limit(params.limit).execute();
  return { rows, total: Number(rows[0]?.total ?? 0) };
}

/** The count alone, for a page past the end (where the window count has no row to ride on). */
export async function countVisibleProjects(db: Q, principal: Principal, params: Omit<ProjectListParams, 'skip' | 'limit' | 'sort'>) {
  const r = await listProjects(db, principal, { ...params, skip: 0, limit: 1, sort: '-createdAt' });
  return r.total;
}

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
  return (await findProject(db, p.id))!;
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
  secretsSet: Record<string, string>;
  secretsRemove: string[];
}

/**
 * Applies one change in one statement: typed columns set, `data` merged key by key, secrets merged and removed.
 * With `ifVersion` it writes only if the row is still at that version; undefined means it was not.
 */
export async function updateProject(db: Q, id: string, change: ProjectChange, ifVersion?: number): Promise<boolean> {
  let q = db
    .updateTable('projects')
    .set({
      ...change.columns,
      data: sql`data || ${JSON.stringify(change.data)}::jsonb`,
      secrets: sql`(secrets - ${sql.val(change.secretsRemove)}::text[]) || ${JSON.stringify(change.secretsSet)}::jsonb`,
      version: sql`version + 1`,
      updated_at: sql`now()`,
    })
    .where('id', '=', id);
  if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function bumpProjectVersion(db: Q, id: string) {
  await db
    .updateTable('projects')
    .set({ version: sql`version + 1`, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/**
 * Deletes the project (floors, units, leads and group memberships go by ON DELETE CASCADE) and, in the same
 * statement, bumps the version of every group that listed it: their `projects` change, so must their ETags.
 */
export async function deleteProject(db: Q, id: string, ifVersion?: number): Promise<boolean> {
  // With If-Match the groups are touched only when the project is still at that version (the same snapshot).
  const current = (sub: Q) => {
    let q = sub.selectFrom('projects').select('id').where('id', '=', id);
    if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
    return q;
  };
  let q = db
    .with('touched', (qb) =>
      qb
        .updateTable('groups')
        .set({ version: sql`version + 1`, updated_at: sql`now()` })
        .where('id', 'in', (sub) => sub.selectFrom('group_projects').select('group_id').where('project_id', 'in', current(db))),
    )
    .deleteFrom('projects')
    .where('id', '=', id)
    .returning('id');
  if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
  // Counted from RETURNING: a statement that opens with a CTE reports no affected rows on every driver.
  return (await q.execute()).length === 1;
}
