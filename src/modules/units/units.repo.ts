import { documentText, withFields } from '../../db/json-text.ts';
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { namedStatement } from '../../db/prepared.ts';
import type { Database, UnitsTable } from '../../db/schema.ts';
import { jsonMerge, versionedUpdate } from '../../db/versioned.repo.ts';
import { numericField, sortOf, windowTotal, type Page } from '../shared/list.ts';

type Q = Kysely<Database>;
export type UnitRow = Omit<Selectable<UnitsTable>, 'held_by'>;
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

/** The lapsed-hold rule in SQL (the twin of `holdExpired`): an `on_hold` unit whose time has passed, on table alias `alias`. */
export function holdLapsedSql(now: number | Date, alias = 'u'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.availability`)} = 'on_hold' and ${sql.ref(`${alias}.on_hold_expires_at`)} <= ${new Date(now)})`;
}

/** A hold whose time has passed reads as available, with no expiry. The rule in TypeScript. */
export function holdExpired<T extends Pick<UnitRow, 'availability' | 'on_hold_expires_at'>>(
  row: T,
  now: number,
): row is T & { on_hold_expires_at: NonNullable<UnitRow['on_hold_expires_at']> } {
  return row.availability === 'on_hold' && row.on_hold_expires_at !== null && new Date(row.on_hold_expires_at).getTime() <= now;
}

/** The response record. `row.data` is parsed afresh for every query, so it is extended in place, not copied. */
export function toUnit(row: UnitRow, now: number): Record<string, unknown> {
  const expired = holdExpired(row, now);
  const out = Object.assign(row.data, {
    _id: row.id,
    __v: row.version,
    project: row.project_id,
    name: row.name,
    position: row.position,
    availability: expired ? 'available' : row.availability,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }) as Record<string, unknown>;
  if (row.floor_id) out.floor = row.floor_id;
  if (!expired && row.on_hold_expires_at) out.onHoldExpiresAt = new Date(row.on_hold_expires_at).toISOString();
  else delete out.onHoldExpiresAt;
  return out;
}

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

/** The record's own keys: kept in columns, so a stored document never carries them (removed in SQL to be sure). */
export const UNIT_RECORD_KEYS = ['_id', '__v', 'project', 'name', 'position', 'availability', 'createdAt', 'updatedAt', 'floor', 'onHoldExpiresAt'];

export type UnitDocumentRow = Omit<UnitWithAccess, 'data'> & { document: string };

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

/**
 * The response body of `toUnit`, as text: the stored document's JSON as PostgreSQL wrote it (so with a space after
 * `:` and `,`), then the record's own fields in `toUnit`'s order. The same JSON value as `JSON.stringify(toUnit(…))`.
 */
export function unitJson(row: UnitDocumentRow, now: number): string {
  const expired = holdExpired(row, now);
  let tail =
    `"_id":"${row.id}","__v":${row.version},"project":"${row.project_id}","name":${JSON.stringify(row.name)},"position":${JSON.stringify(row.position)}` +
    `,"availability":${JSON.stringify(expired ? 'available' : row.availability)},"createdAt":"${row.created_at.toISOString()}","updatedAt":"${row.updated_at.toISOString()}"`;
  if (row.floor_id) tail += `,"floor":"${row.floor_id}"`;
  if (!expired && row.on_hold_expires_at) tail += `,"onHoldExpiresAt":"${new Date(row.on_hold_expires_at).toISOString()}"`;
  return withFields(row.document, tail);
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
    const lapsed = holdLapsedSql(filter.now);
    q = q.where((eb) =>
      eb.or(
        wanted.map((a) =>
          a === 'available'
            ? eb.or([eb('u.availability', '=', 'available'), lapsed])
            : a === 'on_hold'
              ? eb.and([eb('u.availability', '=', 'on_hold'), eb.not(lapsed)])
              : eb('u.availability', '=', a),
        ),
      ),
    );
  }
  if (filter.updatedSince) q = q.where('u.updated_at', '>=', new Date(filter.updatedSince));
  for (const [field, min, max] of RANGES) {
    if (filter[min] !== undefined) q = q.where(numericField('u', field), '>=', filter[min]);
    if (filter[max] !== undefined) q = q.where(numericField('u', field), '<=', filter[max]);
  }
  if (filter.sort) {
    const { column, direction } = sortOf(filter.sort, { name: 'u.name', createdAt: 'u.created_at', updatedAt: 'u.updated_at' } as const);
    q = q.orderBy(column, direction).orderBy('u.id', direction);
  } else q = q.orderBy('u.floor_id').orderBy('u.position').orderBy('u.id');
  return q.offset(filter.skip).limit(filter.limit).execute();
}

export interface NewUnit {
  id: string;
  projectId: string;
  floorId: string | null;
  name: string;
  position: number;
  availability: string;
  onHoldExpiresAt: string | null;
  data: Record<string, unknown>;
}

/** One unit, or several in one statement (the demo seed). */
export async function insertUnit(db: Q, units: NewUnit | NewUnit[]) {
  const rows = [units].flat();
  if (!rows.length) return;
  await db
    .insertInto('units')
    .values(
      rows.map((u) => ({
        id: u.id,
        project_id: u.projectId,
        floor_id: u.floorId,
        name: u.name,
        position: u.position,
        availability: u.availability,
        on_hold_expires_at: u.onHoldExpiresAt,
        data: JSON.stringify(u.data),
      })),
    )
    .execute();
}

export interface UnitChange {
  columns: Partial<{ name: string; position: number; floor_id: string | null; availability: string; on_hold_expires_at: string | null }>;
  data: Record<string, unknown>;
}

/** Leaving on_hold (to any other availability) releases the hold: its expiry and holder go in the same statement. */
export function updateUnit(db: Q, id: string, change: UnitChange, ifVersion?: number): Promise<boolean> {
  const releasing = change.columns.availability !== undefined && change.columns.availability !== 'on_hold';
  const set = { ...change.columns, ...(releasing ? { on_hold_expires_at: null, held_by: null } : {}), data: jsonMerge('data', change.data) };
  return versionedUpdate(db, 'units', id, set, ifVersion);
}

/** Writes an expired hold back as available; conditional, so it is harmless if another node did it first. */
export async function releaseExpiredHold(db: Q, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('units')
    .set({ availability: 'available', on_hold_expires_at: null, held_by: null, version: sql`version + 1`, updated_at: sql`now()` })
    .where('id', '=', id)
    .where(holdLapsedSql(now, 'units'))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** With `ifVersion`, deletes only if the row is still at that version; false when nothing was deleted. */
export async function deleteUnit(db: Q, id: string, ifVersion?: number): Promise<boolean> {
  let q = db.deleteFrom('units').where('id', '=', id);
  if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
  return Number((await q.executeTakeFirst()).numDeletedRows) === 1;
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
