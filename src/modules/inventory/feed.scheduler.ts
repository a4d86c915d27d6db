import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../../context.ts';
import { repeatWithoutOverlap } from '../../lib/repeat.ts';
import { AppError } from '../../http/errors.ts';
import { findProject } from '../projects/projects.repo.ts';
import { claimFeedPull, feedProjectIds, rentcafeProjectIds } from './inventory.repo.ts';
import type { InventoryService } from './inventory.service.ts';

export interface TickResult {
  /** Projects this node pulled in this tick, and from where. */
  pulled: { project: string; source: PullSource; status: 'applied' | 'rejected' | 'failed'; reason?: string }[];
}

type PullSource = 'ftp' | 'rentcafe';

/**
 * Pulls every project's feed, and every project's RENTCafé availability, every INVENTORY_SYNC_MINUTES. Every node
 * ticks (each minute, or each interval if shorter); a pull happens only on the node that claims it, and a claim
 * succeeds once per project, source and interval across all nodes (a conditional upsert of its last-run row, see
 * claimFeedPull).
 */
export class FeedScheduler {
  #repeat: { stop(): void } | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly service: InventoryService,
    private readonly log: FastifyBaseLogger,
  ) {}

  get intervalMs() {
    return this.ctx.config.inventory.syncMinutes * 60_000;
  }

  async tick(): Promise<TickResult> {
    const result: TickResult = { pulled: [] };
    if (this.intervalMs <= 0) return result;
    const db = this.ctx.db.kysely;
    const work: { id: string; source: PullSource }[] = [
      ...(await feedProjectIds(db)).map((id) => ({ id, source: 'ftp' as const })),
      ...(await rentcafeProjectIds(db)).map((id) => ({ id, source: 'rentcafe' as const })),
    ];
    for (const { id, source } of work) {
      if (!(await claimFeedPull(db, id, source, new Date(this.ctx.clock.now()), this.intervalMs))) continue;
      const project = await findProject(db, id);
      if (!project) continue;
      // The schedule waits for a place among the node's running imports rather than being refused one.
      const release = await this.service.gate.acquire();
      const what = source === 'ftp' ? 'inventory feed' : 'RENTCafé availability';
      try {
        const opts = { dryRun: false, skipErrors: false, ifMatch: undefined, userId: null };
        const outcome = source === 'ftp' ? await this.service.pull(project, opts) : await this.service.pullRentcafe(project, opts);
        result.pulled.push({ project: id, source, status: outcome.status === 200 ? 'applied' : 'rejected' });
        if (outcome.status === 200) this.log.info({ project: id, summary: outcome.answer.summary }, `${what} pulled`);
        else this.log.warn({ project: id, errors: outcome.answer.errors.length }, `${what} has row errors; nothing applied`);
      } catch (err) {
        // Only our own words are logged (what failed and where), never a credential or a server's reply.
        const reason = err instanceof AppError ? ((err.extra as { reason?: string } | undefined)?.reason ?? err.code) : 'error';
        result.pulled.push({ project: id, source, status: 'failed', reason });
        if (err instanceof AppError) this.log.warn({ project: id, reason, detail: err.detail }, `${what} pull failed`);
        else this.log.error({ project: id, err }, `${what} pull failed`);
      } finally {
        release();
      }
    }
    return result;
  }

  start() {
    if (this.intervalMs <= 0) return;
    const every = Math.min(this.intervalMs, 60_000);
    this.#repeat = repeatWithoutOverlap(
      every,
      () => this.tick(),
      (err: unknown) => {
        this.log.warn({ err }, 'inventory feed schedule tick failed');
      },
    );
  }

  stop() {
    this.#repeat?.stop();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The inventory feed schedule of this node (tests tick it by hand). */
    feedScheduler: FeedScheduler;
  }
}
