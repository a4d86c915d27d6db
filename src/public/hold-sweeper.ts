import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { EVENTS_ONLY, type EventLog } from '../modules/events/event-log.ts';
import { SYSTEM, type Changes } from '../modules/events/events.repo.ts';

/** Any constant; every node competes for it, so one sweep runs per interval however many nodes there are. */
const SWEEP_LOCK = 7_346_002;
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type SweepResult = { ran: false } | { ran: true; released: number; forgotten: number };

/**
 * Writes lapsed holds back as available and forgets old idempotency records. Holds already read as available
 * the moment they lapse; this only makes the stored row agree. Skips when another node holds the lock.
 */
export async function sweepOnce(db: Kysely<Database>, now: number, events: EventLog = EVENTS_ONLY): Promise<SweepResult> {
  return db.transaction().execute(async (trx) => {
    const lock = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${SWEEP_LOCK}) as locked`.execute(trx);
    if (!lock.rows[0]?.locked) return { ran: false };
    // The expiry each row had, for its event: read in the same statement that clears it.
    const released = await sql<{ id: string; project_id: string; expired_at: Date }>`
      with lapsed as (
        select id, on_hold_expires_at from units
        where availability = 'on_hold' and on_hold_expires_at <= ${new Date(now)}
        order by project_id, id
        for update
      )
      update units u set availability = 'available', on_hold_expires_at = null, held_by = null, version = u.version + 1, updated_at = now()
      from lapsed where u.id = lapsed.id
      returning u.id, u.project_id, lapsed.on_hold_expires_at as expired_at`.execute(trx);
    const rows = [...released.rows].sort((a, b) => (a.project_id + a.id < b.project_id + b.id ? -1 : 1));
    for (const r of rows) {
      const changes = { availability: ['on_hold', 'available'], onHoldExpiresAt: [new Date(r.expired_at).toISOString(), null] } satisfies Changes;
      await events.append(trx, { projectId: r.project_id, type: 'unit.hold_expired', actor: SYSTEM, subjectId: r.id, changes, now });
    }
    const forgotten = await trx
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', new Date(now - IDEMPOTENCY_TTL_MS))
      .executeTakeFirst();
    return { ran: true, released: rows.length, forgotten: Number(forgotten.numDeletedRows) };
  });
}
