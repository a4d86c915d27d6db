import { documentText } from '../../db/json-text.ts';
import { sql, type Kysely } from 'kysely';
import { namedStatement } from '../../db/prepared.ts';
import type { Database } from '../../db/schema.ts';
import { numericField, sortOf, windowTotal, type Page } from '../shared/list.ts';
import { childOrderSql } from '../../db/reorder.repo.ts';
import { UNIT_RECORD_KEYS, type UnitDocument, type UnitRow } from './units.record.ts';
import { holdLiveSql, unitFreeSql } from '../holds/hold-rules.ts';

type Q = Kysely<Database>;
export type UnitWithAccess = UnitRow & { user_id: string; administrators: string[]; editors: string[] };

/** The one unit column list (table alias `u`): every read of a unit record selects these. */
export const UNIT_COLUMNS = [
  'u.id',
  'u.project_id',
  'u.floor_id',
  'u.name',
  'u.position',
  'u.availability',
  'u.on_hold_expires_at',
  'u.data',
  'u.version',
  'u.created_at',
  'u.updated_at',
] as const;
const COLUMNS = UNIT_COLUMNS;
const MEMBERSHIP = ['p.user_id', 'p.administrators', 'p.editors'] as const;

export const findUnitQuery = namedStatement((db, v: { id: string }) =>
  db
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .select([...COLUMNS, ...MEMBERSHIP])
    .where('u.id', '=', v.id),
);

/** The unit with its project's membership, for the access check, in one query (compiled once). */
export async function findUnit(db: Q, id: string): Promise<UnitWithAccess | undefined> {
  return (await findUnitQuery(db, { id }))[0];
}

export type UnitDocumentRow = UnitDocument & Pick<UnitWithAccess, 'user_id' | 'administrators' | 'editors'>;

export const findUnitDocumentQuery = namedStatement((db, v: { id: string }) =>
  db
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .select([...COLUMNS.filter((c) => c !== 'u.data'), ...MEMBERSHIP, documentText('u.data', UNIT_RECORD_KEYS).as('document')])
    .where('u.id', '=', v.id),
);

/**
 * GET /units/{id}, the hottest read: the unit with its project's membership, and its stored document as PostgreSQL's
 * own JSON text, which `unitJson` completes without parsing it. One named statement.
 */
export async function findUnitDocument(db: Q, id: string): Promise<UnitDocumentRow | undefined> {
  return (await findUnitDocumentQuery(db, { id }))[0];
}

export interface UnitListParams extends Page {
  floorId?: string | undefined;
  /** Any of these (lower case); a live hold counts as on_hold, a lapsed one as available. */
  availability?: string[] | undefined;
  updatedSince?: string | undefined;
  priceMin?: number | undefined;
  priceMax?: number | undefined;
  areaMin?: number | undefined;
  areaMax?: number | undefined;
  bedroomsMin?: number | undefined;
  bedroomsMax?: number | undefined;
  now: number;
}

const RANGES = [
  ['price', 'priceMin', 'priceMax'],
  ['squareFeet', 'areaMin', 'areaMax'],
  ['bedrooms', 'bedroomsMin', 'bedroomsMax'],
] as const;

/** A project's units, filtered; without a sort in floor and position order. Rows carry the count before paging. */
export function listUnits(db: Q, projectId: string, filter: UnitListParams) {
  let q = db
    .selectFrom('units as u')
    .select([...COLUMNS, windowTotal])
    .where('u.project_id', '=', projectId);
  if (filter.floorId) q = q.where('u.floor_id', '=', filter.floorId);
  if (filter.availability?.length) {
    const wanted = filter.availability;
    const now = filter.now;
    q = q.where((eb) => eb.or(wanted.map((a) => (a === 'available' ? unitFreeSql(now) : a === 'on_hold' ? holdLiveSql(now) : eb('u.availability', '=', a)))));
  }
  if (filter.updatedSince) q = q.where('u.updated_at', '>=', new Date(filter.updatedSince));
  for (const [field, min, max] of RANGES) {
    if (filter[min] !== undefined) q = q.where(numericField('u', field), '>=', filter[min]);
    if (filter[max] !== undefined) q = q.where(numericField('u', field), '<=', filter[max]);
  }
  if (filter.sort) {
    const { column, direction } = sortOf(filter.sort, { name: 'u.name', createdAt: 'u.created_at', updatedAt: 'u.updated_at' } as const);
    q = q.orderBy(column, direction).orderBy('u.id', direction);
  } else q = q.orderBy('u.floor_id').orderBy(childOrderSql('u'));
  return q.offset(filter.skip).limit(filter.limit).execute();
}

/** Several units with their projects' membership, in one query (bulk PATCH); absent ids are simply missing. */
export function findUnitsByIds(db: Q, ids: string[]): Promise<UnitWithAccess[]> {
  if (!ids.length) return Promise.resolve([]);
  return db
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .select([...COLUMNS, ...MEMBERSHIP])
    .where('u.id', 'in', ids)
    .execute();
}

/** Which of these ids are units of this project (a reference list may hold only the project's own units). */
export async function unitIdsInProject(db: Q, projectId: string, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .selectFrom('units')
    .select('id')
    .where('project_id', '=', projectId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** The ids of a project's units of one type, in floor and position order. */
export async function unitIdsOfType(db: Q, projectId: string, type: string): Promise<string[]> {
  const rows = await db
    .selectFrom('units as u')
    .select('u.id')
    .where('u.project_id', '=', projectId)
    .where(sql<string>`u.data->>'type'`, '=', type)
    .orderBy('u.floor_id')
    .orderBy(childOrderSql('u'))
    .execute();
  return rows.map((r) => r.id);
}
