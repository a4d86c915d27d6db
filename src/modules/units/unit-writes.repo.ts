import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { jsonMerge, returning, versionBumpSql, versionedUpdate, type WriteAt } from '../../db/versioned.repo.ts';
import { UNIT_COLUMNS } from './units.repo.ts';
import type { UnitRow } from './units.record.ts';
import { HOLD_CLEARED, holdLiveSql, leavesHold, unitFreeSql } from '../holds/hold-rules.ts';

/**
 * Every write to `units` but a hold's: created, changed (one, or many for bulk PATCH and imports), reserved, deleted.
 * Placing, extending and releasing a hold, and writing a lapsed one back, are the holds module's (holds.repo.ts). The
 * rules of a hold these writes apply (leaving on_hold, a unit free to reserve) are written once, in holds/hold-rules.ts.
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
export function updateUnit(db: Q, id: string, change: UnitChange, write: WriteAt): Promise<boolean> {
  const set = { ...change.columns, ...(leavesHold(change.columns.availability) ? HOLD_CLEARED : {}), data: jsonMerge('data', change.data) };
  return versionedUpdate(db, 'units', id, set, write);
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
export async function updateUnits(db: Q, sets: UnitSet[], now: number): Promise<Set<string>> {
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
        ${versionBumpSql(now, 'u')}
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
  const free = heldByAllocation ? sql<boolean>`(${unitFreeSql(now, 'u')} or ${holdLiveSql(now, 'u')})` : unitFreeSql(now, 'u');
  return versionedUpdate(
    db,
    'units',
    unitId,
    { availability: 'reserved', ...HOLD_CLEARED },
    {
      at: now,
      as: 'u',
      where: sql<boolean>`${sql.ref('u.project_id')} = ${projectId} and ${free}`,
      returning: returning<UnitRow & { before: string; held_before: string | null }>([
        ...UNIT_COLUMNS,
        sql`(select availability from units b where b.id = u.id) as before`,
        // The hold the reservation ends (the realtor's own), so its record can say it was released.
        sql`(select held_by from units b where b.id = u.id) as held_before`,
      ]),
    },
  );
}

/**
 * Reserves the unit of a paid deposit: while its hold (`holdId`) still names it (lapsed or not, as long as no one took
 * it over), or while it is free. Undefined when someone else has it now.
 */
export function reserveDepositUnit(db: Q, unitId: string, holdId: string, now: number): Promise<(UnitRow & { before: string }) | undefined> {
  return versionedUpdate(
    db,
    'units',
    unitId,
    { availability: 'reserved', ...HOLD_CLEARED },
    {
      at: now,
      as: 'u',
      where: sql<boolean>`((${sql.ref('u.held_by')} = ${holdId} and ${sql.ref('u.availability')} = 'on_hold') or ${unitFreeSql(now, 'u')})`,
      returning: returning<UnitRow & { before: string }>([...UNIT_COLUMNS, sql`(select availability from units b where b.id = u.id) as before`]),
    },
  );
}
