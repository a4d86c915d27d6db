import { sql, type Kysely } from 'kysely';
import { KEYED_LOCKS, LOCKS } from '../db/locks.ts';
import type { Database } from '../db/schema.ts';
import { publishedSql } from './drafts.ts';
import { holdLapsedSql, UNIT_COLUMNS, type UnitRow } from '../modules/units/units.repo.ts';

type Q = Kysely<Database>;

/** The unit a visitor asks to hold, with its project's settings; none in a draft. */
export function findHoldTarget(
  db: Q,
  unitId: string,
): Promise<{ id: string; name: string; project_id: string; settings: Record<string, unknown> } | undefined> {
  return db
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .select(['u.id', 'u.name', 'u.project_id', 'p.data as settings'])
    .where('u.id', '=', unitId)
    .where(publishedSql('p'))
    .executeTakeFirst();
}

/** Until the transaction ends, one client's holds are counted and placed one request at a time. */
export async function lockClientHolds(db: Q, client: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${KEYED_LOCKS.clientHolds}, hashtext(${client}))`.execute(db);
}

/** How many live holds a client has, and when the first of them lapses. */
export function countLiveHolds(db: Q, client: string, now: number): Promise<{ n: number; first_lapse: Date | null }> {
  return db
    .selectFrom('units')
    .select([sql<number>`count(*)::int`.as('n'), sql<Date | null>`min(on_hold_expires_at)`.as('first_lapse')])
    .where('held_by', '=', client)
    .where('availability', '=', 'on_hold')
    .where('on_hold_expires_at', '>', new Date(now))
    .executeTakeFirstOrThrow();
}

/**
 * Puts an available unit (or one whose hold has lapsed) on hold for `client` until `until`; one conditional
 * UPDATE, so of concurrent calls exactly one gets the row. Undefined when the unit was not free.
 */
export function holdUnit(db: Q, unitId: string, client: string, until: Date, now: number): Promise<UnitRow | undefined> {
  return db
    .updateTable('units as u')
    .set({ availability: 'on_hold', on_hold_expires_at: until, held_by: client, version: sql`u.version + 1`, updated_at: sql`now()` })
    .where('u.id', '=', unitId)
    .where((eb) => eb.or([eb('u.availability', '=', 'available'), holdLapsedSql(now, 'u')]))
    .returning(UNIT_COLUMNS)
    .executeTakeFirst();
}

/** Every node competes for it, so one sweep runs per interval however many nodes there are. */
const SWEEP_LOCK = LOCKS.holdSweep;

/** Takes the sweep's lock for the transaction; false when another node holds it. */
export async function trySweepLock(db: Q): Promise<boolean> {
  const lock = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${SWEEP_LOCK}) as locked`.execute(db);
  return lock.rows[0]?.locked === true;
}

export interface ReleasedHold {
  id: string;
  project_id: string;
  /** The expiry the row had, read in the same statement that clears it. */
  expired_at: Date;
}

/** Writes every lapsed hold back as available. */
export async function releaseLapsedHolds(db: Q, now: number): Promise<ReleasedHold[]> {
  const released = await sql<ReleasedHold>`
      with lapsed as (
        select id, on_hold_expires_at from units l
        where ${holdLapsedSql(now, 'l')}
        order by project_id, id
        for update
      )
      update units u set availability = 'available', on_hold_expires_at = null, held_by = null, version = u.version + 1, updated_at = now()
      from lapsed where u.id = lapsed.id
      returning u.id, u.project_id, lapsed.on_hold_expires_at as expired_at`.execute(db);
  return released.rows;
}
