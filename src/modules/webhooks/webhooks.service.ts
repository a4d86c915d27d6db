import { sql, type Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { Outbox } from '../../outbox/outbox.ts';
import { toEvent, type EventRow } from '../events/events.repo.ts';
import { postSigned } from './send.ts';

type Q = Kysely<Database>;

export const WEBHOOK_KIND = 'webhook';
/** About 5 s, 30 s, 2 min, 10 min, 1 h, then hourly, for 24 h after the event (CONTRACT §10). */
export const RETRY_DELAYS_SEC = [5, 30, 120, 600, 3600] as const;

export interface WebhookJob {
  deliveryId: string;
  /** A retry asked for through the API: one attempt, out of the schedule. */
  manual?: boolean;
}

/**
 * Delivers events to webhooks through the outbox. A webhook's deliveries go out in `seq` order: only its oldest
 * pending delivery has a job; delivering it (or giving it up after 24 h) queues the next one in the same
 * transaction. The webhook's row lock orders that hand-over against events being appended, so none is lost.
 */
export class WebhookDispatcher {
  constructor(private readonly deps: { db: Q; clock: Clock; secrets: SecretBox; config: Config; outbox: Outbox; log: FastifyBaseLogger }) {}

  register() {
    const { outbox, config } = this.deps;
    outbox.register<WebhookJob>({
      name: WEBHOOK_KIND,
      retryDelaysSec: RETRY_DELAYS_SEC,
      giveUpAfterSec: 24 * 3600,
      timeoutSec: Math.ceil(config.webhooks.timeoutMs / 1000) + 5,
      handle: (job) => this.#attempt(job),
      onGiveUp: (job) => this.#settle(job.deliveryId, 'failed'),
    });
  }

  /** Gives each new head delivery its job, in the event's transaction. */
  async enqueue(trx: Q, deliveryIds: string[]) {
    for (const id of deliveryIds) await this.deps.outbox.enqueue(trx, WEBHOOK_KIND, { deliveryId: id } satisfies WebhookJob, { key: id });
  }

  /** POST …/retry: one more attempt now, whatever the delivery's state. */
  async retryNow(deliveryId: string) {
    await this.deps.outbox.enqueue(this.deps.db, WEBHOOK_KIND, { deliveryId, manual: true } satisfies WebhookJob);
    this.deps.outbox.wake();
  }

  async #attempt(job: WebhookJob) {
    const { db, clock, secrets, config } = this.deps;
    const d = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'd.id',
        'd.status',
        'd.seq',
        'd.webhook_id',
        'w.url',
        'w.secret',
        'e.id as e_id',
        'e.project_id',
        'e.seq as e_seq',
        'e.type',
        'e.actor_kind',
        'e.actor_id',
        'e.data',
        'e.created_at',
      ])
      .where('d.id', '=', job.deliveryId)
      .executeTakeFirst();
    // Deleted with its webhook, or settled by an earlier job: nothing to do.
    if (!d || (!job.manual && d.status !== 'pending')) return;
    if (!job.manual) {
      const earlier = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', d.webhook_id)
        .where('status', '=', 'pending')
        .where('seq', '<', d.seq)
        .executeTakeFirst();
      // Not this one's turn: the earlier one, when settled, queues this one again.
      if (earlier) return;
    }
    const event: EventRow = {
      id: d.e_id,
      project_id: d.project_id,
      seq: d.e_seq,
      type: d.type,
      actor_kind: d.actor_kind,
      actor_id: d.actor_id,
      data: d.data,
      created_at: d.created_at,
    };
    const result = await postSigned(d.url, {
      secret: secrets.open(d.secret),
      id: d.id,
      timestampSec: Math.floor(clock.now() / 1000),
      body: JSON.stringify(toEvent(event)),
      timeoutMs: config.webhooks.timeoutMs,
      allowPrivate: config.webhooks.allowPrivate,
    });
    await sql`
      insert into webhook_attempts (delivery_id, attempt, at, response_status, error, duration_ms, manual)
      select ${d.id}, coalesce(max(attempt), 0) + 1, ${new Date(clock.now())}, ${result.status ?? null}, ${result.error ?? null}, ${result.durationMs}, ${job.manual === true}
      from webhook_attempts where delivery_id = ${d.id}`.execute(db);
    if (result.ok) await this.#settle(d.id, 'delivered');
    else if (!job.manual) throw new Error(result.error ?? 'delivery failed');
  }

  /** Marks a pending delivery delivered or failed and hands its webhook's turn to the next pending one. */
  async #settle(deliveryId: string, status: 'delivered' | 'failed') {
    const { db, clock } = this.deps;
    const next = await db.transaction().execute(async (trx) => {
      const d = await trx.selectFrom('webhook_deliveries').select(['webhook_id', 'seq']).where('id', '=', deliveryId).executeTakeFirst();
      if (!d) return undefined;
      await sql`select id from webhooks where id = ${d.webhook_id} for update`.execute(trx);
      // Settling one out of turn (a manual retry) leaves the turn with the earlier one, which has its job.
      const earlier = await trx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', d.webhook_id)
        .where('status', '=', 'pending')
        .where('seq', '<', d.seq)
        .executeTakeFirst();
      const settled = await trx
        .updateTable('webhook_deliveries')
        .set({ status, ...(status === 'delivered' ? { delivered_at: new Date(clock.now()) } : {}) })
        .where('id', '=', deliveryId)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      // A manual retry of a delivery already settled changes no turn.
      if (Number(settled.numUpdatedRows) !== 1 || earlier) return undefined;
      const head = await trx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', d.webhook_id)
        .where('status', '=', 'pending')
        .orderBy('seq')
        .limit(1)
        .executeTakeFirst();
      if (head) await this.enqueue(trx, [head.id]);
      return head;
    });
    if (next) this.deps.outbox.wake();
  }
}
