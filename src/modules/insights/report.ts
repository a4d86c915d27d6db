import type { Kysely, Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { splitEmailList } from '../../http/validation.ts';
import type { Mail } from '../../mail/mailer.ts';
import { escapeHtml } from '../../mail/templates.ts';
import type { Outbox } from '../../outbox/outbox.ts';
import { toCsv } from '../inventory/csv.ts';
import { UNIT_CSV_COLUMNS, type Insights } from './insights.schemas.ts';
import { countLeadsBySource, countUnitsByStatus, findInsightsProject, findUnitsSoldOrReserved } from './insights.repo.ts';
import { addDays, buildInsights, leadExclusion } from './insights.read.ts';

export const REPORT_KIND = 'insights-report';

/** One report: the seven days before `until` (YYYY-MM-DD, not included), against the seven before those. */
export interface ReportJob {
  projectId: string;
  until: string;
}

/** Queues a project's report in `q` (the transaction that claimed it, or none for a report asked for by hand). */
export function queueReport(outbox: Outbox, q: Kysely<Database> | Transaction<Database>, job: ReportJob): Promise<string> {
  return outbox.enqueue(q, REPORT_KIND, job);
}

/**
 * The report job: reads the week, renders it, and queues the message (HTML, text and the units CSV) as ordinary
 * mail, so it is sent and retried like every other message.
 */
export function registerReports(ctx: Pick<Ctx, 'db' | 'outbox' | 'mail' | 'clock'>, log: FastifyBaseLogger): void {
  ctx.outbox.register<ReportJob>({
    name: REPORT_KIND,
    retryDelaysSec: [60, 300, 1800, 3600],
    giveUpAfterSec: 24 * 60 * 60,
    timeoutSec: 120,
    handle: async (job) => {
      const mail = await renderReport(ctx.db.kysely, job, ctx.clock.now());
      if (!mail) return;
      await ctx.mail.queue(ctx.db.kysely, mail);
      ctx.mail.wake();
    },
    onGiveUp: (job, info, error) => {
      log.error({ project: job.projectId, key: info.key, error }, 'insights report not made within 24 hours; dropped');
    },
  });
}

const LABELS: [keyof Insights['totals'], string][] = [
  ['visitors', 'Visitors'],
  ['pageViews', 'Page views'],
  ['unitViews', 'Unit views'],
  ['enquiries', 'Enquiries'],
  ['holds', 'Holds'],
  ['waitlist', 'Waitlist joins'],
];

function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? '±0' : 'new';
  const pct = Math.round(((now - before) / before) * 100);
  return `${pct > 0 ? '+' : pct === 0 ? '±' : ''}${pct}%`;
}

/** The report's message, or undefined when the project is gone or has nobody to send it to. */
export async function renderReport(db: Kysely<Database>, job: ReportJob, now: number): Promise<Mail | undefined> {
  const project = await findInsightsProject(db, job.projectId);
  const to = typeof project?.data.reportSendTo === 'string' ? splitEmailList(project.data.reportSendTo) : [];
  if (!project || !to.length) return undefined;
  const week = { from: addDays(job.until, -7), to: addDays(job.until, -1) };
  const before = { from: addDays(job.until, -14), to: addDays(job.until, -8) };
  const exclude = leadExclusion(project.data);
  const [current, previous, inventory, changed, sources] = await Promise.all([
    buildInsights(db, job.projectId, project.data, week, 'day'),
    buildInsights(db, job.projectId, project.data, before, 'day'),
    countUnitsByStatus(db, job.projectId),
    findUnitsSoldOrReserved(db, job.projectId, week),
    countLeadsBySource(db, job.projectId, week, exclude),
  ]);
  const top = current.units.slice(0, 10);
  const title = `Weekly report: ${project.name}, ${week.from} to ${week.to}`;

  const table = (head: string[], rows: (string | number)[][]) =>
    `<table cellpadding="4" style="border-collapse:collapse"><thead><tr>${head.map((h) => `<th align="left">${escapeHtml(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.map((r) => `<tr>${r.map((c) => `<td${typeof c === 'number' ? ' align="right"' : ''}>${escapeHtml(String(c))}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  const none = '<p>None.</p>';
  const totals = LABELS.map(
    ([k, label]) => [label, current.totals[k], previous.totals[k], change(current.totals[k], previous.totals[k])] as (string | number)[],
  );
  const html = [
    `<h1 style="font-size:20px">${escapeHtml(title)}</h1>`,
    `<h2 style="font-size:16px">This week against the week before</h2>`,
    table(['', 'This week', 'Week before', 'Change'], totals),
    `<h2 style="font-size:16px">Inventory now</h2>`,
    inventory.length
      ? table(
          ['Status', 'Units'],
          inventory.map((r) => [r.status, r.units]),
        )
      : none,
    `<h2 style="font-size:16px">Units that became sold or reserved</h2>`,
    changed.length
      ? table(
          ['Unit', 'Now'],
          changed.map((r) => [r.name, r.status]),
        )
      : none,
    `<h2 style="font-size:16px">Leads by source</h2>`,
    sources.length
      ? table(
          ['Source', 'Leads'],
          sources.map((r) => [r.source, r.leads]),
        )
      : none,
    `<h2 style="font-size:16px">Most viewed units</h2>`,
    top.length
      ? table(
          ['Unit', 'Views', 'Enquiries', 'Holds'],
          top.map((u) => [u.name, u.views, u.enquiries, u.holds]),
        )
      : none,
    `<p>Every unit's views, enquiries and holds of the week are in the attached CSV.</p>`,
  ].join('\n');
  const lines = (rows: (string | number)[][]) => rows.map((r) => `  ${r.join('  ')}`).join('\n') || '  None.';
  const text = [
    title,
    '',
    'This week against the week before:',
    lines(totals),
    '',
    'Inventory now:',
    lines(inventory.map((r) => [r.status, r.units])),
    '',
    'Units that became sold or reserved:',
    lines(changed.map((r) => [r.name, r.status])),
    '',
    'Leads by source:',
    lines(sources.map((r) => [r.source, r.leads])),
    '',
    'Most viewed units (views, enquiries, holds):',
    lines(top.map((u) => [u.name, u.views, u.enquiries, u.holds])),
    '',
    "Every unit's views, enquiries and holds of the week are in the attached CSV.",
  ].join('\n');
  return {
    to,
    subject: title,
    html,
    text,
    date: now,
    attachments: [{ filename: `units-${week.from}-${week.to}.csv`, content: toCsv(current.units, UNIT_CSV_COLUMNS), contentType: 'text/csv; charset=utf-8' }],
  };
}
