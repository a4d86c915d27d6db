import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

/** Any constant; every node competes for it, so one sweep runs per interval however many nodes there are. */
const SWEEP_LOCK = 7_346_002;
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type SweepResult = { ran: false } | { ran: true; released: number; forgotten: number };

/**
 * Writes lapsed holds back as available and forgets old idempotency records. Holds already read as available
 * the moment they lapse; this only makes the stored row agree. Skips when another node holds the lock.
 */
export async function sweepOnce(db: Kysely<Database>, now: number): Promise<SweepResult> {
  return db.transaction().execute(async (trx) => {
    const lock = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${SWEEP_LOCK}) as locked`.execute(trx);
    if (!lock.rows[0]?.locked) return { ran: false };
    const released = await trx
      .updateTable('units')
      .set({ availability: 'available', on_hold_expires_at: null, held_by: null, version: sql`version + 1`, updated_at: sql`now()` })
      .where('availability', '=', 'on_hold')
      .where('on_hold_expires_at', '<=', new Date(now))
      .executeTakeFirst();
    const forgotten = await trx.deleteFrom('idempotency_keys').where('created_at', '<', new Date(now - IDEMPOTENCY_TTL_MS)).executeTakeFirst();
    return { ran: true, released: Number(released.numUpdatedRows), forgotten: Number(forgotten.numDeletedRows) };
  });
}
