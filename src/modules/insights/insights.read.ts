import type { Ctx } from '../../context.ts';
import { EventsBlockList } from './blocklist.ts';
import type { Insights } from './insights.schemas.ts';
import { countLeadPeople, countLeadsByDay, findDaily, findSources, findUnitInsights, type DayRange, type LeadExclusion } from './insights.repo.ts';
import { utcDay } from './visitors.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_SOURCES = 50;

export type Interval = 'day' | 'week';
type Db = Ctx['db']['kysely'];

/** The Monday of a day's ISO week. */
export function mondayOf(day: string): string {
  const ms = Date.parse(`${day}T00:00:00Z`);
  const weekday = (new Date(ms).getUTCDay() + 6) % 7;
  return utcDay(ms - weekday * DAY_MS);
}

export function addDays(day: string, n: number): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);
}

/** Leads left out when the project excludes its block list's e-mail patterns from insights. */
export function leadExclusion(settings: Record<string, unknown>): LeadExclusion {
  return settings.excludeBlockedEvents === true ? new EventsBlockList(settings.eventsBlockList).likePatterns : [];
}

/**
 * The dashboard of one project over a range of days: everything is read from the daily totals (kept up to date as
 * events arrive) and from the leads themselves, never from the raw events, so a year of traffic answers as fast as
 * a day of it.
 */
export async function buildInsights(db: Db, projectId: string, settings: Record<string, unknown>, range: DayRange, interval: Interval): Promise<Insights> {
  const exclude = leadExclusion(settings);
  const [daily, leads, people, units, sources] = await Promise.all([
    findDaily(db, projectId, range),
    countLeadsByDay(db, projectId, range, exclude),
    countLeadPeople(db, projectId, range, exclude),
    findUnitInsights(db, projectId, range, exclude),
    findSources(db, projectId, range, MAX_SOURCES),
  ]);
  const byDay = new Map<string, { visitors: number; pageViews: number; unitViews: number; enquiries: number; holds: number }>();
  const bucketOf = (day: string) => (interval === 'week' ? mondayOf(day) : day);
  for (let day = range.from; day <= range.to; day = addDays(day, 1)) {
    const key = bucketOf(day);
    if (!byDay.has(key)) byDay.set(key, { visitors: 0, pageViews: 0, unitViews: 0, enquiries: 0, holds: 0 });
  }
  const totals = { visitors: 0, pageViews: 0, unitViews: 0, enquiries: 0, holds: 0, waitlist: 0 };
  let unitViewers = 0;
  for (const d of daily) {
    const b = byDay.get(bucketOf(d.day));
    if (!b) continue;
    b.visitors += d.visitors;
    b.pageViews += d.page_views;
    b.unitViews += d.unit_views;
    totals.visitors += d.visitors;
    totals.pageViews += d.page_views;
    totals.unitViews += d.unit_views;
    unitViewers += d.unit_viewers;
  }
  for (const l of leads) {
    const b = byDay.get(bucketOf(l.day));
    if (!b) continue;
    b.enquiries += l.enquiries;
    b.holds += l.holds;
    totals.enquiries += l.enquiries;
    totals.holds += l.holds;
    totals.waitlist += l.waitlist;
  }
  return {
    from: range.from,
    to: range.to,
    interval,
    totals,
    series: [...byDay].map(([date, v]) => ({ date, ...v })),
    funnel: { visitors: totals.visitors, unitViewers, enquirers: people.enquirers, holders: people.holders },
    units,
    sources,
  };
}
