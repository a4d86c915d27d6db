import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { jsonMerge, versionedUpdate } from '../../db/versioned.repo.ts';
import { UNIT_COLUMNS } from './units.repo.ts';
import { HOLD_CLEARED, holdLapsedSql, holdLiveSql, leavesHold, stillHeldSql, unitFreeSql, type UnitRow } from './units.record.ts';

/**
 * Every write to `units`: created, changed (one, or many for bulk PATCH and imports), held, released, reserved,
 * deleted. The rules of a hold they apply are written once, in units.record.ts.
 */

type Q = Kysely<Database>;

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

/** One unit's change in one versioned statement; leaving on_hold (`leavesHold`) clears the hold in it too. */
export function updateUnit(db: Q, id: string, change: UnitChange, ifVersion?: number): Promise<boolean> {
  const set = { ...change.columns, ...(leavesHold(change.columns.availability) ? HOLD_CLEARED : {}), data: jsonMerge('data', change.data) };
  return versionedUpdate(db, 'units', id, set, ifVersion);
}

/** Writes an expired hold back as available; conditional, so it is harmless if another node did it first. */
export async function releaseExpiredHold(db: Q, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('units')
    .set({ availability: 'available', ...HOLD_CLEARED, version: sql`version + 1`, updated_at: sql`now()` })
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

export interface UnitInsert {
  id: string;
  floorId: string | null;
  name: string;
  position: number;
  availability: string;
  data: Record<string, unknown>;
}

const CHUNK = 1000;

/** New units, a thousand per statement. */
export async function insertUnits(db: Q, projectId: string, units: UnitInsert[]) {
  for (let i = 0; i < units.length; i += CHUNK) {
    await db
      .insertInto('units')
      .values(
        units.slice(i, i + CHUNK).map((u) => ({
          id: u.id,
          project_id: projectId,
          floor_id: u.floorId,
          name: u.name,
          position: u.position,
          availability: u.availability,
          on_hold_expires_at: null,
          data: JSON.stringify(u.data),
        })),
      )
      .execute();
  }
}

export interface UnitSet {
  id: string;
  name?: string;
  position?: number;
  /** Present: the unit moves to this floor (null: to no floor). */
  floorId?: string | null;
  availability?: string;
  /** Present: the hold's expiry is set to this (null clears it). */
  onHoldExpiresAt?: string | null;
  /** Write only if the unit is still at this version (a bulk item's ifMatch). */
  ifVersion?: number;
  data: Record<string, unknown>;
}

/**
 * Changes many units, a thousand per statement, with the rules of a unit PATCH: only the given columns change,
 * `data` is merged field by field, leaving on_hold clears the hold, every changed unit's version goes up.
 * Returns the ids written (a unit whose `ifVersion` no longer matches is not).
 */
export async function updateUnits(db: Q, sets: UnitSet[]): Promise<Set<string>> {
  const written = new Set<string>();
  for (let i = 0; i < sets.length; i += CHUNK) {
    const rows = sets.slice(i, i + CHUNK).map((s) => ({
      id: s.id,
      name: s.name ?? null,
      position: s.position ?? null,
      move: s.floorId !== undefined,
      floor_id: s.floorId ?? null,
      availability: s.availability ?? null,
      release: leavesHold(s.availability),
      set_hold: s.onHoldExpiresAt !== undefined,
      hold_until: s.onHoldExpiresAt ?? null,
      if_version: s.ifVersion ?? null,
      data: s.data,
    }));
    // `release`: the unit leaves on_hold (`leavesHold`, as in updateUnit), so the hold is cleared.
    const r = await sql<{ id: string }>`
      update units u set
        name = coalesce(c.name, u.name),
        position = coalesce(c.position, u.position),
        floor_id = case when c.move then c.floor_id else u.floor_id end,
        availability = coalesce(c.availability, u.availability),
        on_hold_expires_at = case when c.release then null when c.set_hold then c.hold_until else u.on_hold_expires_at end,
        held_by = case when c.release then null else u.held_by end,
        data = u.data || c.data,
        version = u.version + 1,
        updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as c(id char(24), name text, position double precision, move boolean, floor_id char(24), availability text,
             release boolean, set_hold boolean, hold_until timestamptz, if_version integer, data jsonb)
      where u.id = c.id and (c.if_version is null or u.version = c.if_version)
      returning u.id`.execute(db);
    for (const row of r.rows) written.add(row.id);
  }
  return written;
}

/**
 * Puts an available unit (or one whose hold has lapsed) on hold by hold `holdId` until `until`; one conditional
 * UPDATE, so of concurrent calls exactly one gets the row. Undefined when the unit was not free.
 */
export function holdUnit(db: Q, unitId: string, holdId: string, until: Date, now: number): Promise<UnitRow | undefined> {
  return db
    .updateTable('units as u')
    .set({ availability: 'on_hold', on_hold_expires_at: until, held_by: holdId, version: sql`u.version + 1`, updated_at: sql`now()` })
    .where('u.id', '=', unitId)
    .where(unitFreeSql(now, 'u'))
    .returning(UNIT_COLUMNS)
    .executeTakeFirst();
}

/** Makes the unit of a live hold available again; undefined when the hold no longer holds it. */
export function releaseHeldUnit(db: Q, unitId: string, holdId: string, now: number): Promise<UnitRow | undefined> {
  return db
    .updateTable('units as u')
    .set({ availability: 'available', ...HOLD_CLEARED, version: sql`u.version + 1`, updated_at: sql`now()` })
    .where('u.id', '=', unitId)
    .where(stillHeldSql(holdId, now))
    .returning(UNIT_COLUMNS)
    .executeTakeFirst();
}

/** Moves a live hold's expiry to `until`; undefined when the hold no longer holds its unit. */
export function extendHeldUnit(db: Q, unitId: string, holdId: string, until: Date, now: number): Promise<UnitRow | undefined> {
  return db
    .updateTable('units as u')
    .set({ on_hold_expires_at: until, version: sql`u.version + 1`, updated_at: sql`now()` })
    .where('u.id', '=', unitId)
    .where(stillHeldSql(holdId, now))
    .returning(UNIT_COLUMNS)
    .executeTakeFirst();
}

export interface ReleasedHold {
  id: string;
  project_id: string;
  /** The expiry the row had, read in the same statement that clears it. */
  expired_at: Date;
  /** The hold that lapsed (holds.id), or a client address for a hold placed before holds had records. */
  held_by: string | null;
}

/** Writes every lapsed hold back as available. */
export async function releaseLapsedHolds(db: Q, now: number): Promise<ReleasedHold[]> {
  const released = await sql<ReleasedHold>`
      with lapsed as (
        select id, on_hold_expires_at, held_by from units l
        where ${holdLapsedSql(now, 'l')}
        order by project_id, id
        for update
      )
      update units u set availability = 'available', on_hold_expires_at = null, held_by = null, version = u.version + 1, updated_at = now()
      from lapsed where u.id = lapsed.id
      returning u.id, u.project_id, lapsed.on_hold_expires_at as expired_at, lapsed.held_by`.execute(db);
  return released.rows;
}

/**
 * Reserves a unit for an accepted worksheet: only when it is available (or its hold lapsed), or on hold while it
 * belongs to the worksheet's allocation (`heldByAllocation`: only that realtor's token can hold an allocated unit).
 * One conditional UPDATE: of two acceptances racing for one unit, exactly one changes the row.
 */
export function reserveUnit(
  db: Q,
  unitId: string,
  projectId: string,
  heldByAllocation: boolean,
  now: number,
): Promise<(UnitRow & { before: string; held_before: string | null }) | undefined> {
  return db
    .updateTable('units as u')
    .set({ availability: 'reserved', ...HOLD_CLEARED, version: sql`u.version + 1`, updated_at: sql`now()` })
    .where('u.id', '=', unitId)
    .where('u.project_id', '=', projectId)
    .where((eb) => eb.or([unitFreeSql(now, 'u'), ...(heldByAllocation ? [holdLiveSql(now, 'u')] : [])]))
    .returning([
      ...UNIT_COLUMNS,
      sql<string>`(select availability from units b where b.id = u.id)`.as('before'),
      // The hold the reservation ends (the realtor's own), so its record can say it was released.
      sql<string | null>`(select held_by from units b where b.id = u.id)`.as('held_before'),
    ])
    .executeTakeFirst();
}
