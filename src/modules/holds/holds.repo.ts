import { sql, type Kysely } from 'kysely';
import { KEYED_LOCKS, LOCKS } from '../../db/locks.ts';
import type { Database } from '../../db/schema.ts';
import { returning, versionBumpSql, versionedUpdate } from '../../db/versioned.repo.ts';
import { publishedSql } from '../projects/drafts.ts';
import { UNIT_COLUMNS } from '../units/units.repo.ts';
import type { UnitRow } from '../units/units.record.ts';
import { HOLD_CLEARED, holdLapsedSql, holdLiveSql, stillHeldSql, unitFreeSql } from './hold-rules.ts';

type Q = Kysely<Database>;

/**
 * A hold's SQL: its record (`holds`) and its unit's hold columns (availability on_hold and back, the expiry, the
 * holder): placed, extended, released by its holder, written back when it lapsed, swept.
 */

/** A unit as a hold's write answers it (`RETURNING`), the same columns as a read. */
const UNIT_ROW = returning<UnitRow>(UNIT_COLUMNS);

/** The unit a visitor asks to hold, with its project's settings; none in a draft. */
export function findHoldTarget(
  db: Q,
  unitId: string,
): Promise<
  | { id: string; name: string; project_id: string; project_name: string; namespace: string | null; availability: string; settings: Record<string, unknown> }
  | undefined
> {
  return db
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .select(['u.id', 'u.name', 'u.project_id', 'p.name as project_name', 'p.namespace', 'u.availability', 'p.data as settings'])
    .where('u.id', '=', unitId)
    .where(publishedSql('p'))
    .executeTakeFirst();
}

/**
 * The unit's hold as it stands, its row locked until the transaction ends: a hold placed on a unit whose hold lapsed
 * takes it over from the lapsed one, and nothing else (the sweep) can write that lapse back meanwhile.
 */
export function lockUnitHold(
  db: Q,
  unitId: string,
): Promise<{ availability: string; held_by: string | null; on_hold_expires_at: Date | string | null } | undefined> {
  return db.selectFrom('units').select(['availability', 'held_by', 'on_hold_expires_at']).where('id', '=', unitId).forUpdate().executeTakeFirst();
}

/** Until the transaction ends, one client's holds are counted and placed one request at a time. */
export async function lockClientHolds(db: Q, client: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${KEYED_LOCKS.clientHolds}, hashtext(${client}))`.execute(db);
}

/** How many live holds a client has, and when the first of them lapses. */
export function countLiveHolds(db: Q, client: string, now: number): Promise<{ n: number; first_lapse: Date | null }> {
  return db
    .selectFrom('holds as h')
    .innerJoin('units as u', 'u.held_by', 'h.id')
    .select([sql<number>`count(*)::int`.as('n'), sql<Date | null>`min(u.on_hold_expires_at)`.as('first_lapse')])
    .where('h.client', '=', client)
    .where(holdLiveSql(now, 'u'))
    .executeTakeFirstOrThrow();
}

export interface NewHold {
  id: string;
  unitId: string;
  projectId: string;
  tokenHash: string;
  client: string;
  leadId: string | null;
  createdAt: Date;
}

/** The record of a hold just placed (the unit's held_by names it). */
export async function insertHold(db: Q, hold: NewHold): Promise<void> {
  await db
    .insertInto('holds')
    .values({
      id: hold.id,
      unit_id: hold.unitId,
      project_id: hold.projectId,
      token_hash: hold.tokenHash,
      client: hold.client,
      lead_id: hold.leadId,
      created_at: hold.createdAt,
    })
    .execute();
}

/** A hold found by its token, with its unit (and whether the unit is still held by it) and its project. */
export type TokenHold = UnitRow & {
  hold_id: string;
  extended_at: Date | null;
  held_by: string | null;
  project_name: string;
  namespace: string | null;
  settings: Record<string, unknown>;
};

/**
 * The hold a token's hash names, its unit and project. With `lock`, the unit's row stays locked until the
 * transaction ends: every change to a hold (release, extension) happens under its unit's lock, so two requests
 * with one token, on any nodes, take turns.
 */
export function findHoldByToken(db: Q, tokenHash: string, lock: boolean): Promise<TokenHold | undefined> {
  const q = db
    .selectFrom('holds as h')
    .innerJoin('units as u', 'u.id', 'h.unit_id')
    .innerJoin('projects as p', 'p.id', 'h.project_id')
    .select([...UNIT_COLUMNS, 'u.held_by', 'h.id as hold_id', 'h.extended_at', 'p.name as project_name', 'p.namespace', 'p.data as settings'])
    .where('h.token_hash', '=', tokenHash);
  return (lock ? q.modifyEnd(sql`for update of u`) : q).executeTakeFirst();
}

/** Marks a hold extended, once: false when it already was. */
export async function markHoldExtended(db: Q, holdId: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('holds')
    .set({ extended_at: new Date(now) })
    .where('id', '=', holdId)
    .where('extended_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Marks a hold released by its holder. */
export async function markHoldReleased(db: Q, holdId: string, now: number): Promise<void> {
  await db
    .updateTable('holds')
    .set({ released_at: new Date(now) })
    .where('id', '=', holdId)
    .execute();
}

/** Writes an expired hold back as available; conditional, so it is harmless if another node did it first. */
export function releaseExpiredHold(db: Q, id: string, now: number): Promise<boolean> {
  return versionedUpdate(db, 'units', id, { availability: 'available', ...HOLD_CLEARED }, { at: now, where: holdLapsedSql(now, 'units') });
}

/**
 * Puts an available unit (or one whose hold has lapsed) on hold by hold `holdId` until `until`; one conditional
 * UPDATE, so of concurrent calls exactly one gets the row. Undefined when the unit was not free.
 */
export function holdUnit(db: Q, unitId: string, holdId: string, until: Date, now: number): Promise<UnitRow | undefined> {
  const set = { availability: 'on_hold', on_hold_expires_at: until, held_by: holdId };
  return versionedUpdate(db, 'units', unitId, set, { at: now, as: 'u', where: unitFreeSql(now, 'u'), returning: UNIT_ROW });
}

/** Makes the unit of a live hold available again; undefined when the hold no longer holds it. */
export function releaseHeldUnit(db: Q, unitId: string, holdId: string, now: number): Promise<UnitRow | undefined> {
  const set = { availability: 'available', ...HOLD_CLEARED };
  return versionedUpdate(db, 'units', unitId, set, { at: now, as: 'u', where: stillHeldSql(holdId, now), returning: UNIT_ROW });
}

/** Moves a live hold's expiry to `until`; undefined when the hold no longer holds its unit. */
export function extendHeldUnit(db: Q, unitId: string, holdId: string, until: Date, now: number): Promise<UnitRow | undefined> {
  return versionedUpdate(db, 'units', unitId, { on_hold_expires_at: until }, { at: now, as: 'u', where: stillHeldSql(holdId, now), returning: UNIT_ROW });
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
      update units u set availability = 'available', on_hold_expires_at = null, held_by = null, ${versionBumpSql(now, 'u')}
      from lapsed where u.id = lapsed.id
      returning u.id, u.project_id, lapsed.on_hold_expires_at as expired_at, lapsed.held_by`.execute(db);
  return released.rows;
}

/** Every node competes for it, so one sweep runs per interval however many nodes there are. */
const SWEEP_LOCK = LOCKS.holdSweep;

/** Takes the sweep's lock for the transaction; false when another node holds it. */
export async function trySweepLock(db: Q): Promise<boolean> {
  const lock = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${SWEEP_LOCK}) as locked`.execute(db);
  return lock.rows[0]?.locked === true;
}

/** Deletes the ended holds (released or spent) placed with these leads; running ones stay. */
export async function deleteEndedLeadHolds(db: Kysely<Database>, leadIds: string[]): Promise<number> {
  if (!leadIds.length) return 0;
  const result = await db.deleteFrom('holds').where('lead_id', 'in', leadIds).where('released_at', 'is not', null).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A lapsed hold as its expiry mail tells it: the holder's details (its lead), the unit, the project. */
export interface EndedHold {
  id: string;
  client: string;
  unit_id: string;
  unit_name: string;
  project_id: string;
  project_name: string;
  namespace: string | null;
  settings: Record<string, unknown>;
  lead: Record<string, unknown> | null;
}

/** The hold `holdId` with what its expiry mail needs; undefined for an id no hold has (a row from before 0027). */
export function findEndedHold(db: Q, holdId: string): Promise<EndedHold | undefined> {
  return db
    .selectFrom('holds as h')
    .innerJoin('units as u', 'u.id', 'h.unit_id')
    .innerJoin('projects as p', 'p.id', 'h.project_id')
    .leftJoin('leads as l', 'l.id', 'h.lead_id')
    .select([
      'h.id',
      'h.client',
      'h.unit_id',
      'u.name as unit_name',
      'h.project_id',
      'p.name as project_name',
      'p.namespace',
      'p.data as settings',
      sql<Record<string, unknown> | null>`l.data`.as('lead'),
    ])
    .where('h.id', '=', holdId)
    .executeTakeFirst();
}
