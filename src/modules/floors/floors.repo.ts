import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, FloorsTable } from '../../db/schema.ts';
import { jsonMerge, versionedUpdate, type WriteAt } from '../../db/versioned.repo.ts';
import { childOrderSql } from '../../db/reorder.repo.ts';
import { sortOf, windowTotal, type Page } from '../shared/list.ts';

type Q = Kysely<Database>;
export type FloorRow = Selectable<FloorsTable> & { unit_ids: string[]; user_id: string; administrators: string[]; editors: string[] };

/** `floor.units` is derived from the units' floor and position. */
const unitIds = sql<string[]>`coalesce((select array_agg(u.id order by ${childOrderSql('u')}) from units u where u.floor_id = f.id), '{}')`.as('unit_ids');
const COLUMNS = ['f.id', 'f.project_id', 'f.name', 'f.position', 'f.data', 'f.version', 'f.created_at', 'f.updated_at'] as const;
const MEMBERSHIP = ['p.user_id', 'p.administrators', 'p.editors'] as const;

export function toFloor(row: Omit<FloorRow, 'user_id' | 'administrators' | 'editors'>): Record<string, unknown> {
  return {
    ...row.data,
    _id: row.id,
    __v: row.version,
    project: row.project_id,
    units: row.unit_ids,
    name: row.name,
    position: row.position,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The floor with its project's membership, for the access check, in one query. */
export function findFloor(db: Q, id: string): Promise<FloorRow | undefined> {
  return db
    .selectFrom('floors as f')
    .innerJoin('projects as p', 'p.id', 'f.project_id')
    .select([...COLUMNS, ...MEMBERSHIP, unitIds])
    .where('f.id', '=', id)
    .executeTakeFirst();
}

/** Where a floor created without a position goes: after the project's last floor (0 for the first). */
export async function nextFloorPosition(db: Q, projectId: string): Promise<number> {
  const r = await db
    .selectFrom('floors')
    .select(sql<number>`greatest(coalesce(max(position) + 1, 0), 0)`.as('next'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return r.next;
}

/** The project of each of these floors that exists (a floor id a client sends must be one of its unit's project). */
export async function projectsOfFloors(db: Q, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db
    .selectFrom('floors')
    .select(['id', 'project_id'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((f) => [f.id, f.project_id]));
}

/** A page of a project's floors; without a sort in position order. Rows carry the count before paging. */
export function pageFloors(db: Q, projectId: string, params: Page & { updatedSince?: string | undefined }) {
  let q = db
    .selectFrom('floors as f')
    .select([...COLUMNS, unitIds, windowTotal])
    .where('f.project_id', '=', projectId);
  if (params.updatedSince) q = q.where('f.updated_at', '>=', new Date(params.updatedSince));
  if (params.sort) {
    const { column, direction } = sortOf(params.sort, { name: 'f.name', createdAt: 'f.created_at', updatedAt: 'f.updated_at' } as const);
    q = q.orderBy(column, direction).orderBy('f.id', direction);
  } else q = q.orderBy(childOrderSql('f'));
  return q.offset(params.skip).limit(params.limit).execute();
}

export interface NewFloor {
  id: string;
  projectId: string;
  name: string;
  position: number;
  data: Record<string, unknown>;
}

/** One floor, or several in one statement (the demo seed). */
export async function insertFloor(db: Q, floors: NewFloor | NewFloor[]) {
  const rows = [floors].flat();
  if (!rows.length) return;
  await db
    .insertInto('floors')
    .values(rows.map((f) => ({ id: f.id, project_id: f.projectId, name: f.name, position: f.position, data: JSON.stringify(f.data) })))
    .execute();
}

export function updateFloor(
  db: Q,
  id: string,
  change: { columns: Partial<{ name: string; position: number }>; data: Record<string, unknown> },
  write: WriteAt,
): Promise<boolean> {
  return versionedUpdate(db, 'floors', id, { ...change.columns, data: jsonMerge('data', change.data) }, write);
}

/** With `ifVersion`, deletes only if the row is still at that version; false when nothing was deleted. */
export async function deleteFloor(db: Q, id: string, ifVersion?: number): Promise<boolean> {
  let q = db.deleteFrom('floors').where('id', '=', id);
  if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
  return Number((await q.executeTakeFirst()).numDeletedRows) === 1;
}

/** A floor's units in position order, with what a copy takes (name, position, availability aside, the fields). */
export function listFloorUnits(db: Q, floorId: string) {
  return db.selectFrom('units').select(['id', 'name', 'position', 'data']).where('floor_id', '=', floorId).orderBy(childOrderSql()).execute();
}

/** The names of a project's floors (a renumbered copy takes a number none of them has). */
export async function floorNamesOf(db: Q, projectId: string): Promise<string[]> {
  const rows = await db.selectFrom('floors').select('name').where('project_id', '=', projectId).execute();
  return rows.map((r) => r.name);
}
