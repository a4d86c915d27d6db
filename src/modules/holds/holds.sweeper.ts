import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { EVENTS_ONLY, type EventLog } from '../events/event-log.ts';
import { SYSTEM, type NewEvent } from '../events/event-model.ts';
import { queueHoldEndedMail } from './hold-expiry.ts';
import { releaseExpiredHold, releaseLapsedHolds, trySweepLock } from './holds.repo.ts';
import { offerToNext, type PriorityDeps } from './priority-offer.ts';
import { forgetOldIdempotencyKeys } from '../shared/idempotency.ts';

/** The event of a lapsed hold written back as available: the service, not a reader, is the actor. */
const lapsedEvent = (unit: { id: string; project_id: string }, expiredAt: Date | string, now: number): NewEvent => ({
  projectId: unit.project_id,
  type: 'unit.hold_expired',
  actor: SYSTEM,
  subjectId: unit.id,
  changes: { availability: ['on_hold', 'available'], onHoldExpiresAt: [new Date(expiredAt).toISOString(), null] },
  now,
});

/**
 * Writes one lapsed hold back as available (a read found it before the sweep did), in the caller's transaction, with
 * its event; the unit then goes to the next on its waiting list. Conditional: harmless when another node did it first.
 */
export async function writeBackLapsedHold(
  trx: Transaction<Database>,
  deps: PriorityDeps,
  unit: { id: string; project_id: string; on_hold_expires_at: Date | string },
  now: number,
): Promise<void> {
  if (!(await releaseExpiredHold(trx, unit.id, now))) return;
  await deps.events.append(trx, lapsedEvent(unit, unit.on_hold_expires_at, now));
  await offerToNext(trx, deps, unit.id, now);
}

export type SweepResult = { ran: false } | { ran: true; released: number; forgotten: number };

/**
 * Writes lapsed holds back as available and forgets old idempotency records. Holds already read as available
 * the moment they lapse; this makes the stored row agree and, with `priority` (the node's mail and pages address),
 * mails each lapsed visitor hold's holder and the project's team (hold-expiry.ts) and offers the
 * unit to its waiting list. Skips when another node holds the lock.
 */
export async function sweepOnce(db: Kysely<Database>, now: number, events: EventLog = EVENTS_ONLY, priority?: PriorityDeps): Promise<SweepResult> {
  return db.transaction().execute(async (trx) => {
    if (!(await trySweepLock(trx))) return { ran: false };
    // The expiry each row had, for its event: read in the same statement that clears it.
    const released = await releaseLapsedHolds(trx, now);
    const rows = [...released].sort((a, b) => (a.project_id + a.id < b.project_id + b.id ? -1 : 1));
    for (const r of rows) {
      await events.append(trx, lapsedEvent(r, r.expired_at, now));
      // The holder and the team hear that it ended, in this same transaction (mailed once it commits).
      if (priority && r.held_by) await queueHoldEndedMail(trx, priority, r.held_by, new Date(r.expired_at), now);
      // A unit with a waiting list goes to the next in rank, in this same transaction.
      if (priority) await offerToNext(trx, priority, r.id, now);
    }
    const forgotten = await forgetOldIdempotencyKeys(trx, now);
    return { ran: true, released: rows.length, forgotten };
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** One sweep of lapsed holds on this node, with the priority list's hand-on (tests tick it by hand). */
    sweepHolds(): Promise<SweepResult>;
  }
}
