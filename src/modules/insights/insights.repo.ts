import { sql, type Kysely, type RawBuilder } from 'kysely';
import { LOCKS } from '../../db/locks.ts';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

/** A range of UTC days, both included (YYYY-MM-DD). */
export interface DayRange {
  from: string;
  to: string;
}

/** Leads left out of insights: those whose e-mail matches one of these `like` patterns (lower-case). */
export type LeadExclusion = string[];

const leadKept = (exclude: LeadExclusion): RawBuilder<unknown> =>
  exclude.length ? sql`and not (lower(l.data->>'email') like any (${exclude}::text[]))` : sql``;

const leadInRange = (projectId: string, r: DayRange) =>
  sql`l.project_id = ${projectId} and l.created_at >= ${r.from}::date and l.created_at < ${r.to}::date + 1`;

export interface DailyRow {
  day: string;
  visitors: number;
  unit_viewers: number;
  page_views: number;
  unit_views: number;
}

/** The project's daily totals in the range (days without events have no row). */
export async function findDaily(db: Q, projectId: string, r: DayRange): Promise<DailyRow[]> {
  const res = await sql<DailyRow>`
    select day::text as day, visitors, unit_viewers, page_views, unit_views from insight_daily
    where project_id = ${projectId} and day between ${r.from}::date and ${r.to}::date`.execute(db);
  return res.rows;
}

export interface LeadDayRow {
  day: string;
  enquiries: number;
  holds: number;
  waitlist: number;
}

/** Leads per UTC day by kind: holds (source "hold"), waitlist joins, and every other lead an enquiry. */
export async function countLeadsByDay(db: Q, projectId: string, r: DayRange, exclude: LeadExclusion): Promise<LeadDayRow[]> {
  const res = await sql<LeadDayRow>`
    select (l.created_at at time zone 'UTC')::date::text as day,
      count(*) filter (where l.data->>'source' is distinct from 'hold' and l.data->>'source' is distinct from 'waitlist')::int as enquiries,
      count(*) filter (where l.data->>'source' = 'hold')::int as holds,
      count(*) filter (where l.data->>'source' = 'waitlist')::int as waitlist
    from leads l where ${leadInRange(projectId, r)} ${leadKept(exclude)}
    group by 1`.execute(db);
  return res.rows;
}

/** Distinct e-mail addresses that enquired and that held, in the range (the funnel's last two steps). */
export async function countLeadPeople(db: Q, projectId: string, r: DayRange, exclude: LeadExclusion): Promise<{ enquirers: number; holders: number }> {
  const res = await sql<{ enquirers: number; holders: number }>`
    select
      count(distinct lower(l.data->>'email')) filter (where l.data->>'source' is distinct from 'hold' and l.data->>'source' is distinct from 'waitlist')::int as enquirers,
      count(distinct lower(l.data->>'email')) filter (where l.data->>'source' = 'hold')::int as holders
    from leads l where ${leadInRange(projectId, r)} ${leadKept(exclude)}`.execute(db);
  return res.rows[0] ?? { enquirers: 0, holders: 0 };
}

export interface UnitRow {
  _id: string;
  name: string;
  views: number;
  enquiries: number;
  holds: number;
}

/**
 * Every unit of the project with its views, enquiries and holds in the range, most viewed first. A lead names its
 * unit by id (holds, the page's forms) or, when sent by hand, by name.
 */
export async function findUnitInsights(db: Q, projectId: string, r: DayRange, exclude: LeadExclusion): Promise<UnitRow[]> {
  const res = await sql<UnitRow>`
    with v as (
      select unit_id, sum(views)::int as views from insight_daily_units
      where project_id = ${projectId} and day between ${r.from}::date and ${r.to}::date group by unit_id
    ), l as (
      select l.data->>'unit' as unit,
        count(*) filter (where l.data->>'source' is distinct from 'hold' and l.data->>'source' is distinct from 'waitlist')::int as enquiries,
        count(*) filter (where l.data->>'source' = 'hold')::int as holds
      from leads l where ${leadInRange(projectId, r)} and l.data->>'unit' is not null ${leadKept(exclude)}
      group by 1
    )
    select u.id as "_id", u.name, coalesce(v.views, 0) as views,
      (coalesce(li.enquiries, 0) + coalesce(ln.enquiries, 0))::int as enquiries,
      (coalesce(li.holds, 0) + coalesce(ln.holds, 0))::int as holds
    from units u
    left join v on v.unit_id = u.id
    left join l li on li.unit = u.id
    left join l ln on ln.unit = u.name and ln.unit <> u.id
    where u.project_id = ${projectId}
    order by views desc, enquiries desc, holds desc, u.name, u.id`.execute(db);
  return res.rows;
}

/** Visitors by source in the range, most first. */
export async function findSources(db: Q, projectId: string, r: DayRange, limit: number): Promise<{ source: string; visitors: number }[]> {
  const res = await sql<{ source: string; visitors: number }>`
    select source, sum(visitors)::int as visitors from insight_daily_sources
    where project_id = ${projectId} and day between ${r.from}::date and ${r.to}::date
    group by source order by visitors desc, source limit ${limit}`.execute(db);
  return res.rows;
}

/** The project's settings insights read: its name and its settings (`data`: the report's recipients, the leads left out). */
export async function findInsightsProject(db: Q, projectId: string): Promise<{ name: string; data: Record<string, unknown> } | undefined> {
  return db.selectFrom('projects').select(['name', 'data']).where('id', '=', projectId).executeTakeFirst();
}

/** Units by availability now (the report's inventory). */
export async function countUnitsByStatus(db: Q, projectId: string): Promise<{ status: string; units: number }[]> {
  const res = await sql<{ status: string; units: number }>`
    select availability as status, count(*)::int as units from units where project_id = ${projectId} group by 1 order by 2 desc, 1`.execute(db);
  return res.rows;
}

/** Units whose availability became sold or reserved in the range (from the change log), with what they became. */
export async function findUnitsSoldOrReserved(db: Q, projectId: string, r: DayRange): Promise<{ name: string; status: string }[]> {
  const res = await sql<{ name: string; status: string }>`
    select distinct on (e.subject_id) coalesce(u.name, e.subject_id) as name, e.data->'changes'->'availability'->>1 as status
    from events e left join units u on u.id = e.subject_id
    where e.project_id = ${projectId} and e.type = 'unit.updated'
      and e.created_at >= ${r.from}::date and e.created_at < ${r.to}::date + 1
      and e.data->'changes'->'availability'->>1 in ('sold', 'reserved')
    order by e.subject_id, e.seq desc`.execute(db);
  return res.rows.sort((a, b) => a.name.localeCompare(b.name));
}

/** Leads in the range by source (the report's "leads by source"). */
export async function countLeadsBySource(db: Q, projectId: string, r: DayRange, exclude: LeadExclusion): Promise<{ source: string; leads: number }[]> {
  const res = await sql<{ source: string; leads: number }>`
    select coalesce(l.data->>'source', 'unknown') as source, count(*)::int as leads
    from leads l where ${leadInRange(projectId, r)} ${leadKept(exclude)}
    group by 1 order by 2 desc, 1`.execute(db);
  return res.rows;
}

/**
 * Claims the weekly report of every project with `reportSendTo` for the week starting `week` (one row per project
 * and week, so each is claimed once across nodes), under the reports lock taken without waiting (another node
 * claiming now: nothing). Run it in the transaction that queues the reports: they commit with their claims.
 */
export async function claimDueReports(trx: Q, week: string, now: Date): Promise<string[]> {
  const lock = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${LOCKS.insightsReports}) as locked`.execute(trx);
  if (lock.rows[0]?.locked !== true) return [];
  const res = await sql<{ project_id: string }>`
    insert into insight_report_claims (project_id, week, claimed_at)
    select id, ${week}::date, ${now} from projects where coalesce(btrim(data->>'reportSendTo'), '') <> ''
    on conflict do nothing
    returning project_id`.execute(trx);
  return res.rows.map((r) => r.project_id);
}

/** Report claims older than `before` (they only need to outlive their week). */
export async function forgetReportClaims(db: Q, before: string): Promise<void> {
  await sql`delete from insight_report_claims where week < ${before}::date`.execute(db);
}
