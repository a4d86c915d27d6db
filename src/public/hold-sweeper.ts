import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { EVENTS_ONLY, type EventLog } from '../modules/events/event-log.ts';
import { SYSTEM, type Changes } from '../modules/events/events.repo.ts';
import { trySweepLock } from '../modules/holds/holds.repo.ts';
import { queueHoldEndedMail } from '../modules/holds/hold-expiry.ts';
import { releaseLapsedHolds } from '../modules/units/unit-writes.repo.ts';
import { offerToNext, type PriorityDeps } from '../modules/priority/priority.service.ts';
import { forgetIdempotencyKeys } from '../modules/shared/idempotency.repo.ts';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type SweepResult = { ran: false } | { ran: true; released: number; forgotten: number };

/**
 * Writes lapsed holds back as available and forgets old idempotency records. Holds already read as available
 * the moment they lapse; this makes the stored row agree and, with `priority` (the node's mail and pages address),
 * mails each lapsed visitor hold's holder and the project's team (src/modules/holds/hold-expiry.ts) and offers the
 * unit to its waiting list. Skips when another node holds the lock.
 */
export async function sweepOnce(db: Kysely<Database>, now: number, events: EventLog = EVENTS_ONLY, priority?: PriorityDeps): Promise<SweepResult> {
  return db.transaction().execute(async (trx) => {
    if (!(await trySweepLock(trx))) return { ran: false };
    // The expiry each row had, for its event: read in the same statement that clears it.
    const released = await releaseLapsedHolds(trx, now);
    const rows = [...released].sort((a, b) => (a.project_id + a.id < b.project_id + b.id ? -1 : 1));
    for (const r of rows) {
      const changes = { availability: ['on_hold', 'available'], onHoldExpiresAt: [new Date(r.expired_at).toISOString(), null] } satisfies Changes;
      await events.append(trx, { projectId: r.project_id, type: 'unit.hold_expired', actor: SYSTEM, subjectId: r.id, changes, now });
      // The holder and the team hear that it ended, in this same transaction (mailed once it commits).
      if (priority && r.held_by) await queueHoldEndedMail(trx, priority, r.held_by, new Date(r.expired_at), now);
      // A unit with a waiting list goes to the next in rank, in this same transaction (§18).
      if (priority) await offerToNext(trx, priority, r.id, now);
    }
    const forgotten = await forgetIdempotencyKeys(trx, new Date(now - IDEMPOTENCY_TTL_MS));
    return { ran: true, released: rows.length, forgotten };
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** One sweep of lapsed holds on this node, with the priority list's hand-on (tests tick it by hand). */
    sweepHolds(): Promise<SweepResult>;
  }
}
