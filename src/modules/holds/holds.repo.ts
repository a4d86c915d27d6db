import { sql, type Kysely } from 'kysely';
import { KEYED_LOCKS, LOCKS } from '../../db/locks.ts';
import type { Database } from '../../db/schema.ts';
import { publishedSql } from '../projects/drafts.ts';
import { UNIT_COLUMNS } from '../units/units.repo.ts';
import { holdLiveSql, type UnitRow } from '../units/units.record.ts';

type Q = Kysely<Database>;

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
