import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { appendEvent, appendEvents, type NewEvent } from './events.repo.ts';

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

  /**
   * Many events in one transaction (a bulk PATCH, an import), in the given order: each project's events get
   * consecutive seqs. Projects are taken in id order, so two writers of the same projects cannot deadlock on
   * their counter rows. Returns the seqs in the order of `events`.
   */
  async appendMany(trx: Q, events: NewEvent[]): Promise<number[]> {
    const start = this.#startDeliveries;
    const byProject = new Map<string, { indexes: number[]; events: NewEvent[] }>();
    events.forEach((e, i) => {
      const group = byProject.get(e.projectId);
      if (group) {
        group.indexes.push(i);
        group.events.push(e);
      } else byProject.set(e.projectId, { indexes: [i], events: [e] });
    });
    const seqs: number[] = new Array<number>(events.length);
    // Code-unit order, as Array#sort() with no comparator.
    const inIdOrder = [...byProject].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [projectId, group] of inIdOrder) {
      const r = await appendEvents(trx, projectId, group.events, { webhooks: start !== undefined });
      group.indexes.forEach((i, k) => {
        const seq = r.seqs[k];
        if (seq === undefined) throw new Error(`appendEvents returned ${r.seqs.length} seqs for ${group.events.length} events`);
        seqs[i] = seq;
      });
      if (start && r.heads.length) await start(trx, r.heads);
    }
    return seqs;
  }
}

/** For code run outside the app (scripts, tests calling a sweep directly): events only, no deliveries. */
export const EVENTS_ONLY = new EventLog();
