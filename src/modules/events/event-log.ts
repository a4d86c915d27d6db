import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { appendEvent, type NewEvent } from './events.repo.ts';

type Q = Kysely<Database>;
/** Given the deliveries an event started (each the oldest pending one of its webhook), in the event's transaction. */
export type DeliveryStarter = (trx: Q, deliveryIds: string[]) => Promise<void>;

/**
 * The one way writes record what they changed: `append` runs inside the write's transaction, writes the event
 * (seq, NOTIFY for the live feed) and, once webhooks are wired in, the event's deliveries and their outbox jobs.
 */
export class EventLog {
  #startDeliveries: DeliveryStarter | undefined;

  /** Wires in webhooks (app start-up). Without it no deliveries are written. */
  deliverWith(start: DeliveryStarter) {
    this.#startDeliveries = start;
  }

  async append(trx: Q, event: NewEvent): Promise<number> {
    const start = this.#startDeliveries;
    const { seq, heads } = await appendEvent(trx, event, { webhooks: start !== undefined });
    if (start && heads.length) await start(trx, heads);
    return seq;
  }
}

/** For code run outside the app (scripts, tests calling a sweep directly): events only, no deliveries. */
export const EVENTS_ONLY = new EventLog();
