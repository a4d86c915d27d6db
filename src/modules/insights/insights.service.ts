import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import type { Insights } from './insights.schemas.ts';
import type { DayRange } from './insights.repo.ts';
import { addDays, buildInsights, DAY_MS, type Interval } from './insights.read.ts';
import { queueReport } from './report.ts';
import { utcDay } from './visitors.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/** The longest range one request may ask for (two years of days). */
export const MAX_RANGE_DAYS = 731;

/** GET /projects/{id}/insights and POST /projects/{id}/reports/send. */
export class InsightsService {
  constructor(private readonly ctx: Ctx) {}

  async read(
    principal: Principal,
    projectId: string,
    q: { from?: string | undefined; to?: string | undefined; interval?: Interval | undefined },
  ): Promise<Insights> {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findProjectMembership(db, projectId), 'read');
    return buildInsights(db, projectId, row.data, this.rangeOf(q), q.interval ?? 'day');
  }

  rangeOf(q: { from?: string | undefined; to?: string | undefined }): DayRange {
    const to = q.to ?? utcDay(this.ctx.clock.now());
    const from = q.from ?? addDays(to, -29);
    if (from > to) throw ERRORS.invalidQuery('from is after to', { errors: [{ path: '/from', message: 'must not be after to' }] });
    if (Date.parse(to) - Date.parse(from) >= MAX_RANGE_DAYS * DAY_MS) {
      throw ERRORS.invalidQuery(`A range is at most ${MAX_RANGE_DAYS} days`, {
        errors: [{ path: '/from', message: `must be within ${MAX_RANGE_DAYS} days of to` }],
      });
    }
    return { from, to };
  }

  /** Mails the weekly report now, through the outbox (the last seven full days). */
  async sendReport(principal: Principal, projectId: string): Promise<void> {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findProjectMembership(db, projectId), 'manage');
    if (typeof row.data.reportSendTo !== 'string' || !row.data.reportSendTo.trim()) {
      throw ERRORS.conflict('The project has no reportSendTo: set it to the addresses the report goes to');
    }
    await queueReport(this.ctx.outbox, db, { projectId, until: utcDay(this.ctx.clock.now()) });
    this.ctx.outbox.wake();
  }
}
