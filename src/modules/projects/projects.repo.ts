import { isoTextSql, recordTextSql } from '../../db/json-text.ts';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, ProjectsTable } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { jsonMerge, versionedUpdate } from '../../db/versioned.repo.ts';
import { namedStatement } from '../../db/prepared.ts';
import { pageWithTotal, visibleList, visibleShape, visibleValues, type VisiblePage, type VisibleShape, type VisibleValues } from '../shared/list.repo.ts';
import { PROJECT_SECRETS } from './projects.schemas.ts';

type Q = Kysely<Database>;
export type ProjectRow = Selectable<ProjectsTable> & { floor_ids: string[] };

/** Ids of the project's floors in position order (null for none): `project.floors` is derived, never stored twice. */
const FLOOR_IDS_SQL = 'select array_agg(f.id order by f.position, f.id) from floors f where f.project_id = p.id';
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

/**
 * Names of the secrets that are set, as `configuredSecrets` shows them, in code point order (the order PostgreSQL's
 * "C" collation gives `GET /projects`, which writes the list in SQL).
 */
export function secretNames(secrets: Record<string, string>): string[] {
  return Object.keys(secrets).map(secretName).sort(byCodePoint);
}

function byCodePoint(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** How an allocation's password is keyed among a project's sealed secrets: this prefix, then the allocation's name. */
export const ALLOCATION_SECRET_PREFIX = 'allocation:';

/** A secret's key as clients know it: an allocation's password by the allocation's name. */
export function secretName(key: string): string {
  return key.startsWith(ALLOCATION_SECRET_PREFIX) ? `allocations[${key.slice(ALLOCATION_SECRET_PREFIX.length)}].password` : key;
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

/** The membership of each of these projects that exists, for checks over many at once (a group's `projects`). */
export function findProjectMemberships(db: Q, ids: readonly string[]) {
  return db.selectFrom('projects').select(['id', 'user_id', 'administrators', 'editors']).where('id', 'in', ids).execute();
}

export interface ProjectListParams extends VisiblePage {
  name?: string | undefined;
  projectType?: string | undefined;
}

/**
 * Keys a stored document must never carry into a response: the record's own (kept in columns or derived) and the
 * write-only secrets (kept sealed in `secrets`). The service never stores them in `data`; they are removed in SQL too.
 */
export const PROJECT_NOT_IN_DOCUMENT = [
  ...[
    '_id',
    '__v',
    'user',
    'name',
    'namespace',
    'hostName',
    'projectType',
    'administrators',
    'editors',
    'floors',
    'configuredSecrets',
    'createdAt',
    'updatedAt',
  ],
  ...PROJECT_SECRETS,
];

/**
 * `toProject`'s record as JSON text, written wholly by PostgreSQL from the row `p`: the stored document's text (less
 * the record's keys and the secrets), then the record's fields in `toProject`'s order. Nothing of a listed project is
 * parsed or serialised in Node. The same JSON value as `toProject` of the full row (a test holds them equal).
 */
export const PROJECT_RECORD_SQL = recordTextSql(
  'p.data',
  PROJECT_NOT_IN_DOCUMENT,
  [
    `'"_id":"' || p.id || '","__v":' || p.version || ',"user":"' || p.user_id || '","name":' || to_json(p.name)::text`,
    `coalesce(',"namespace":' || to_json(p.namespace)::text, '')`,
    `coalesce(',"hostName":' || to_json(p.host_name)::text, '')`,
    `coalesce(',"projectType":' || to_json(p.project_type)::text, '')`,
    `',"administrators":' || to_json(p.administrators)::text || ',"editors":' || to_json(p.editors)::text`,
    `',"floors":' || coalesce(to_json((${FLOOR_IDS_SQL}))::text, '[]')`,
    // `secretName` and `secretNames`' order, in SQL.
    `',"configuredSecrets":' || to_json(array(select s.name from (select case when starts_with(k, '${ALLOCATION_SECRET_PREFIX}') then 'allocations[' || substr(k, ${ALLOCATION_SECRET_PREFIX.length + 1}) || '].password' else k end as name from jsonb_object_keys(p.secrets) as k) as s order by s.name collate "C"))::text`,
    `',"createdAt":"' || ${isoTextSql('p.created_at')} || '","updatedAt":"' || ${isoTextSql('p.updated_at')} || '"'`,
  ].join(' || '),
);

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

/** `secrets` with the removed keys taken out and the set ones merged, in the statement (as `jsonMerge` does for `data`). */
function secretsMerge(remove: string[], set: Record<string, string>) {
  return sql<string>`(secrets - ${sql.val(remove)}::text[]) || ${JSON.stringify(set)}::jsonb`;
}

/**
 * Applies one change in one versioned statement: typed columns set, `data` merged key by key, secrets merged and removed.
 * With `ifVersion` it writes only if the row is still at that version; false when it was not.
 */
export function updateProject(db: Q, id: string, change: ProjectChange, ifVersion?: number): Promise<boolean> {
  const set = { ...change.columns, data: jsonMerge('data', change.data), secrets: secretsMerge(change.secretsRemove, change.secretsSet) };
  return versionedUpdate(db, 'projects', id, set, ifVersion);
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
