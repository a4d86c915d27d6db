import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../../context.ts';
import { repeatWithoutOverlap } from '../../lib/repeat.ts';
import { deleteOldEvents, forgetSalts } from './ingest.repo.ts';
import { claimDueReports, forgetReportClaims } from './insights.repo.ts';
import { addDays, DAY_MS } from './insights.read.ts';
import { queueReport } from './report.ts';
import { utcDay } from './visitors.ts';

/** Raw events deleted per statement: each is short, so retention never holds locks that writers would wait on. */
export const RETENTION_BATCH = 5000;
const TICK_MS = 60_000;

/**
 * The latest report time at or before `now` (REPORT_WEEKDAY, ISO 1 = Monday, at REPORT_HOUR:00 UTC), and whether it
 * is still worth sending (within a day of it: a node that was down all Monday does not mail last week's on Friday).
 */
export function reportSlot(now: number, weekday: number, hour: number): { day: string; due: boolean } {
  const today = new Date(now);
  const todayIso = ((today.getUTCDay() + 6) % 7) + 1;
  let at = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), hour) - ((todayIso - weekday + 7) % 7) * DAY_MS;
  if (at > now) at -= 7 * DAY_MS;
  return { day: utcDay(at), due: now - at < DAY_MS };
}

export interface TickResult {
  /** Projects whose weekly report this node queued. */
  reports: string[];
  /** Raw events deleted (retention). */
  deleted: number;
}

/**
 * The periodic work of insights, on every node each minute: the weekly reports that are due (claimed once per
 * project and week across nodes, queued through the outbox in the claim's transaction), and retention (raw events
 * past INSIGHTS_RETENTION_DAYS deleted in short batches; salts past two days; daily totals are kept).
 */
export class InsightsSchedule {
  #repeat: { stop(): void } | undefined;

  constructor(
    private readonly ctx: Pick<Ctx, 'config' | 'db' | 'clock' | 'outbox'>,
    private readonly log: FastifyBaseLogger,
  ) {}

  async tick(): Promise<TickResult> {
    const reports = await this.queueDueReports();
    const deleted = await this.applyRetention();
    return { reports, deleted };
  }

  async queueDueReports(): Promise<string[]> {
    const now = this.ctx.clock.now();
    const { reportWeekday, reportHour } = this.ctx.config.insights;
    const slot = reportSlot(now, reportWeekday, reportHour);
    if (!slot.due) return [];
    const queued = await this.ctx.db.kysely.transaction().execute(async (trx) => {
      const projects = await claimDueReports(trx, slot.day, new Date(now));
      for (const projectId of projects) await queueReport(this.ctx.outbox, trx, { projectId, until: slot.day });
      return projects;
    });
    if (queued.length) {
      this.ctx.outbox.wake();
      this.log.info({ week: slot.day, projects: queued.length }, 'weekly insights reports queued');
    }
    return queued;
  }

  /** Deletes what is past its time; returns how many raw events went. */
  async applyRetention(): Promise<number> {
    const db = this.ctx.db.kysely;
    const now = this.ctx.clock.now();
    const today = utcDay(now);
    await forgetSalts(db, addDays(today, -1));
    await forgetReportClaims(db, addDays(today, -60));
    const before = new Date(Date.parse(`${today}T00:00:00Z`) - this.ctx.config.insights.retentionDays * DAY_MS);
    let deleted = 0;
    for (;;) {
      const n = await deleteOldEvents(db, before, RETENTION_BATCH);
      // -1: another node is at it.
      if (n <= 0) break;
      deleted += n;
      if (n < RETENTION_BATCH) break;
    }
    if (deleted) this.log.info({ deleted }, 'insights: raw events past retention deleted');
    return deleted;
  }

  start(): void {
    this.#repeat = repeatWithoutOverlap(
      TICK_MS,
      () => this.tick(),
      (err: unknown) => {
        this.log.warn({ err }, 'insights schedule tick failed');
      },
    );
  }

  stop(): void {
    this.#repeat?.stop();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Insights' reports and retention on this node (tests tick it by hand). */
    insightsSchedule: InsightsSchedule;
  }
}
