import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../../context.ts';
import { repeatWithoutOverlap } from '../../lib/repeat.ts';
import { claimLapsed } from './billing.repo.ts';
import { DUPLICATES_KIND, LAPSE_KIND, QUANTITY_KIND, type BillingJob } from './billing.jobs.ts';
import { BillingService } from './billing.service.ts';

const TICK_MS = 60_000;
/** Lapsed subscriptions one tick claims. */
const LAPSE_BATCH = 50;

/**
 * The plans' background work (BILLING=stripe only), on the outbox shared by every node: the subscription quantity
 * after a publish or a draft, a second running subscription cancelled, and each minute the subscriptions whose paid period ended unpaid, claimed once across
 * nodes, each queued as a lapse job (mail to the owner first, then their projects to draft).
 */
export class BillingSchedule {
  #repeat: { stop(): void } | undefined;
  readonly #service: BillingService;

  constructor(
    private readonly ctx: Ctx,
    private readonly log: FastifyBaseLogger,
  ) {
    this.#service = new BillingService(ctx);
    if (!ctx.config.billing.enabled) return;
    ctx.outbox.register<BillingJob>({
      name: QUANTITY_KIND,
      retryDelaysSec: [30, 120, 600, 1800, 3600],
      giveUpAfterSec: 3 * 24 * 3600,
      timeoutSec: 60,
      handle: (job) => this.#service.syncQuantity(job.userId),
      onGiveUp: (job, info, error) => {
        log.error({ user: job.userId, key: info.key, error }, 'subscription quantity not set at Stripe within 3 days; dropped');
      },
    });
    ctx.outbox.register<BillingJob>({
      name: DUPLICATES_KIND,
      retryDelaysSec: [30, 120, 600, 1800, 3600],
      giveUpAfterSec: 3 * 24 * 3600,
      timeoutSec: 60,
      handle: (job) => this.#service.settleDuplicates(job.userId),
      onGiveUp: (job, info, error) => {
        log.error({ user: job.userId, key: info.key, error }, 'a second running subscription not cancelled at Stripe within 3 days; dropped');
      },
    });
    ctx.outbox.register<BillingJob>({
      name: LAPSE_KIND,
      retryDelaysSec: [60, 300, 1800, 3600],
      timeoutSec: 60,
      handle: async (job) => {
        const drafted = await this.#service.lapse(job.userId);
        if (drafted.length) log.info({ user: job.userId, projects: drafted.length }, 'plan ended unpaid: projects moved to draft');
      },
      onGiveUp: (job, info, error) => {
        log.error({ user: job.userId, key: info.key, error }, 'lapsed plan not handled within 24 hours; dropped');
      },
    });
  }

  /** Claims the subscriptions that ended unpaid and queues their lapse jobs, in the claim's transaction. Answers their users. */
  async tick(): Promise<string[]> {
    if (!this.ctx.config.billing.enabled) return [];
    const now = new Date(this.ctx.clock.now());
    const users = await this.ctx.db.kysely.transaction().execute(async (trx) => {
      const claimed = await claimLapsed(trx, now, LAPSE_BATCH);
      for (const { user_id } of claimed) await this.ctx.outbox.enqueue(trx, LAPSE_KIND, { userId: user_id } satisfies BillingJob);
      return claimed.map((c) => c.user_id);
    });
    if (users.length) this.ctx.outbox.wake();
    return users;
  }

  start(): void {
    if (!this.ctx.config.billing.enabled) return;
    this.#repeat = repeatWithoutOverlap(
      TICK_MS,
      () => this.tick(),
      (err: unknown) => {
        this.log.warn({ err }, 'billing schedule tick failed');
      },
    );
  }

  stop(): void {
    this.#repeat?.stop();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The plans' lapse schedule on this node (tests tick it by hand). */
    billingSchedule: BillingSchedule;
  }
}
