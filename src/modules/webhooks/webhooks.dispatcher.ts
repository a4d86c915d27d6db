import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { Outbox } from '../../outbox/outbox.ts';
import { toEvent, type EventRow } from '../events/events.repo.ts';
import { type AppendedEvent } from '../events/event-model.ts';
import { isCustomIntegrationField } from '../projects/projects.schemas.ts';
import {
  findDeliveryForAttempt,
  findDeliveryTurn,
  findEarlierPending,
  findHeadPending,
  insertAttempt,
  insertDeliveries,
  lockSubscribedWebhooks,
  lockWebhook,
  settleDelivery,
} from './webhooks.repo.ts';
import { postSigned } from './send.ts';

type Q = Kysely<Database>;

export const WEBHOOK_KIND = 'webhook';
/** About 5 s, 30 s, 2 min, 10 min, 1 h, then hourly, for 24 h after the event. */
export const RETRY_DELAYS_SEC = [5, 30, 120, 600, 3600] as const;

export interface WebhookJob {
  deliveryId: string;
  /** A retry asked for through the API: one attempt, out of the schedule. */
  manual?: boolean;
}

/**
 * Delivers events to webhooks through the outbox. A webhook's deliveries go out in `seq` order: only its oldest
 * pending delivery has a job; delivering it (or giving it up after 24 h) queues the next one in the same
 * transaction. The webhook's row lock orders that hand-over against events being appended: each side reads whether
 * a delivery is pending only once it holds the lock, so of the two, the later one always sees the other's work.
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

  /**
   * The deliveries of events just appended (`EventLog.deliverWith`), in their transaction: one per subscribed
   * webhook, and a job for each that is its webhook's turn. The webhooks' locks come first, in a statement of their
   * own, so whether a webhook has a delivery pending is read after any hand-over of its turn has committed.
   */
  async deliver(trx: Q, projectId: string, events: readonly AppendedEvent[], at: Date) {
    if (!events.length) return;
    const hooks = await lockSubscribedWebhooks(trx, projectId, [...new Set(events.map((e) => e.type))]);
    const heads = await insertDeliveries(trx, hooks, events, at);
    if (heads.length) await this.enqueue(trx, heads);
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
    const d = await findDeliveryForAttempt(db, job.deliveryId);
    // Deleted with its webhook, or settled by an earlier job: nothing to do.
    if (!d || (!job.manual && d.status !== 'pending')) return;
    if (!job.manual) {
      const earlier = await findEarlierPending(db, d.webhook_id, d.seq);
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
      body: JSON.stringify(webhookEvent(event)),
      timeoutMs: config.webhooks.timeoutMs,
      allowPrivate: config.webhooks.allowPrivate,
    });
    await insertAttempt(db, {
      deliveryId: d.id,
      at: new Date(clock.now()),
      responseStatus: result.status ?? null,
      error: result.error ?? null,
      durationMs: result.durationMs,
      manual: job.manual === true,
    });
    if (result.ok) await this.#settle(d.id, 'delivered');
    else if (!job.manual) throw new Error(result.error ?? 'delivery failed');
  }

  /** Marks a pending delivery delivered or failed and hands its webhook's turn to the next pending one. */
  async #settle(deliveryId: string, status: 'delivered' | 'failed') {
    const { db, clock } = this.deps;
    const next = await db.transaction().execute(async (trx) => {
      const d = await findDeliveryTurn(trx, deliveryId);
      if (!d) return undefined;
      await lockWebhook(trx, d.webhook_id);
      // Settling one out of turn (a manual retry) leaves the turn with the earlier one, which has its job.
      const earlier = await findEarlierPending(trx, d.webhook_id, d.seq);
      const settled = await settleDelivery(trx, deliveryId, status, new Date(clock.now()));
      // A manual retry of a delivery already settled changes no turn.
      if (!settled || earlier) return undefined;
      const head = await findHeadPending(trx, d.webhook_id);
      if (head) await this.enqueue(trx, [head.id]);
      return head;
    });
    if (next) this.deps.outbox.wake();
  }
}

/** An event as a webhook is sent it: the fields kept for a custom integration (pv*, so*, bs*) are sent to no one. */
export function webhookEvent(row: EventRow): ReturnType<typeof toEvent> {
  const event = toEvent(row);
  const changes = event.data.changes;
  if (!changes || typeof changes !== 'object') return event;
  const kept = Object.entries(changes as Record<string, unknown>).filter(([key]) => !isCustomIntegrationField(key));
  if (kept.length === Object.keys(changes).length) return event;
  const { changes: _all, ...rest } = event.data;
  return { ...event, data: kept.length ? { ...rest, changes: Object.fromEntries(kept) } : rest };
}
