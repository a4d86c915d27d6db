import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { APPEND_BATCH, appendEvent, appendEvents } from './events.repo.ts';
import { type AppendedEvent, type NewEvent } from './event-model.ts';

type Q = Kysely<Database>;
/**
 * Given events just appended to one project's log (and the time their deliveries are created at), in their
 * transaction: writes their webhook deliveries and starts those whose turn it is (the webhooks module's).
 */
export type Deliverer = (trx: Q, projectId: string, events: readonly AppendedEvent[], at: Date) => Promise<void>;

/**
 * The one way writes record what they changed: `append` runs inside the write's transaction, writes the event
 * (seq, NOTIFY for the live feed) and, once webhooks are wired in and the project has one, hands it to the
 * webhooks module for its deliveries and their outbox jobs (a second statement, in the same transaction).
 */
export class EventLog {
  #deliver: Deliverer | undefined;

  /** Wires in webhooks (app start-up). Without it no deliveries are written. */
  deliverWith(deliver: Deliverer) {
    this.#deliver = deliver;
  }

  async append(trx: Q, event: NewEvent): Promise<number> {
    const deliver = this.#deliver;
    const { event: appended, hooked } = await appendEvent(trx, event, { hooked: deliver !== undefined });
    if (deliver && hooked) await deliver(trx, event.projectId, [appended], new Date(event.now));
    return appended.seq;
  }

  /**
   * Many events in one transaction (a bulk PATCH, an import), in the given order: each project's events get
   * consecutive seqs. Projects are taken in id order, so two writers of the same projects cannot deadlock on
   * their counter rows. Returns the seqs in the order of `events`.
   */
  async appendMany(trx: Q, events: NewEvent[]): Promise<number[]> {
    const deliver = this.#deliver;
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
      // A statement of events per batch, then (for a project with webhooks) one of their deliveries, created at the
      // batch's latest time.
      for (let i = 0; i < group.events.length; i += APPEND_BATCH) {
        const batch = group.events.slice(i, i + APPEND_BATCH);
        const { events: appended, hooked } = await appendEvents(trx, projectId, batch, { hooked: deliver !== undefined });
        appended.forEach((a, k) => {
          const index = group.indexes[i + k];
          if (index === undefined) throw new Error(`appendEvents returned ${appended.length} events for ${batch.length}`);
          seqs[index] = a.seq;
        });
        if (deliver && hooked) await deliver(trx, projectId, appended, new Date(Math.max(...batch.map((e) => e.now))));
      }
    }
    return seqs;
  }
}

/** For code run outside the app (scripts, tests calling a sweep directly): events only, no deliveries. */
export const EVENTS_ONLY = new EventLog();
