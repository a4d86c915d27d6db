import { sql, type Kysely } from 'kysely';
import { LOCKS } from '../../db/locks.ts';
import type { Database } from '../../db/schema.ts';
import { namedStatement } from '../../db/prepared.ts';
import type { EventType } from './insights.schemas.ts';

type Q = Kysely<Database>;

/** The project a presentation namespace names, with its block list (what POST /public/events needs of it). */
export async function findEventsProject(db: Q, namespace: string): Promise<{ id: string; block_list: unknown } | undefined> {
  const r = await sql<{ id: string; block_list: unknown }>`
    select id, data->'eventsBlockList' as block_list from projects where namespace = ${namespace}`.execute(db);
  return r.rows[0];
}

/** Makes the day's salt unless a node already has (every node then reads the same one). */
export async function ensureSalt(db: Q, day: string, candidate: Buffer): Promise<Buffer> {
  await sql`insert into insight_salts (day, salt) values (${day}::date, ${candidate}) on conflict do nothing`.execute(db);
  const r = await sql<{ salt: Buffer }>`select salt from insight_salts where day = ${day}::date`.execute(db);
  const salt = r.rows[0]?.salt;
  if (!salt) throw new Error(`insights: no salt for ${day}`);
  return Buffer.from(salt);
}

/** Salts, and the visitor hashes made with them, of days before `keepFrom`: after this no hash can be made again. */
export async function forgetSalts(db: Q, keepFrom: string): Promise<void> {
  await sql`delete from insight_salts where day < ${keepFrom}::date`.execute(db);
  await sql`delete from insight_visitor_days where day < ${keepFrom}::date`.execute(db);
}

export interface StoredEvent {
  projectId: string;
  day: string;
  at: Date;
  visitor: Buffer;
  type: EventType;
  unitId: string | null;
  path: string | null;
  referrer: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  /** Where the visitor came from, as the sources table counts it. */
  source: string;
}

/** The daily column each event type adds one to. */
const COLUMN_OF: Record<EventType, string> = {
  page_view: 'page_views',
  unit_view: 'unit_views',
  plan_view: 'plan_views',
  list_view: 'list_views',
  building_view: 'building_views',
  filter: 'filters',
  share: 'shares',
  gallery: 'gallery',
  brochure: 'brochure',
};

/**
 * Stores one event and brings the day's totals up to date, in one statement (one round trip, one transaction):
 * the visitor's row for the day (new visitor? first unit view today?), the raw event, the unit's and the source's
 * daily counts and the day's totals. Nothing is written when `unitId` is not a unit of the project; the answer
 * says whether it was. Exported for the ingest bench's bare server, which runs the very same statement.
 */
export function recordEventSql(e: StoredEvent) {
  const column = sql.ref(COLUMN_OF[e.type]);
  // A literal, not a parameter: the type is the statement's shape, so each type's text is prepared once.
  const isUnitView = sql.lit(e.type === 'unit_view');
  return sql<{ ok: boolean }>`
    with unit_ok as (
      select ${e.unitId}::text is null or exists (select 1 from units where id = ${e.unitId}::text and project_id = ${e.projectId}::text) as ok
    ), seen as (
      insert into insight_visitor_days as v (project_id, day, visitor, unit_viewer)
      select ${e.projectId}::text, ${e.day}::date, ${e.visitor}::bytea, ${isUnitView} from unit_ok where ok
      on conflict (project_id, day, visitor) do update set unit_viewer = true where not v.unit_viewer and excluded.unit_viewer
      returning (xmax = 0) as fresh
    ), raw as (
      insert into insight_events (project_id, at, type, unit_id, path, referrer, utm_source, utm_medium, utm_campaign, visitor)
      select ${e.projectId}::text, ${e.at}::timestamptz, ${sql.lit(e.type)}::text, ${e.unitId}::text, ${e.path}::text, ${e.referrer}::text, ${e.utmSource}::text, ${e.utmMedium}::text, ${e.utmCampaign}::text, ${e.visitor}::bytea
      from unit_ok where ok
    ), unit_day as (
      insert into insight_daily_units as d (project_id, day, unit_id, views)
      select ${e.projectId}::text, ${e.day}::date, ${e.unitId}::text, 1 from unit_ok where ok and ${isUnitView} and ${e.unitId}::text is not null
      on conflict (project_id, day, unit_id) do update set views = d.views + 1
    ), source_day as (
      insert into insight_daily_sources as s (project_id, day, source, visitors)
      select ${e.projectId}::text, ${e.day}::date, ${e.source}::text, 1 from seen where fresh
      on conflict (project_id, day, source) do update set visitors = s.visitors + 1
    ), totals as (
      insert into insight_daily as d (project_id, day, visitors, unit_viewers, ${column})
      select ${e.projectId}::text, ${e.day}::date,
        (select count(*) from seen where fresh)::int,
        (select count(*) from seen where ${isUnitView})::int,
        1
      from unit_ok where ok
      on conflict (project_id, day) do update set
        visitors = d.visitors + excluded.visitors,
        unit_viewers = d.unit_viewers + excluded.unit_viewers,
        ${column} = d.${column} + 1
    )
    select ok from unit_ok`;
}

type EventValues = Omit<StoredEvent, 'type'>;
/** One text per event type, compiled once and run as a named statement (src/db/prepared.ts). */
const recordEventQuery = namedStatement<{ ok: boolean }, EventValues, EventType>((db, values, type) => ({
  compile: () => recordEventSql({ ...values, type }).compile(db),
}));

export async function recordEvent(db: Q, e: StoredEvent): Promise<boolean> {
  const { type, ...values } = e;
  const rows = await recordEventQuery(db, values, type);
  return rows[0]?.ok === true;
}

/**
 * Deletes up to `batch` raw events older than `before`, in a transaction of its own that first takes the
 * retention lock without waiting: -1 when another node is deleting, else how many rows went. Short statements,
 * so no lock is held for long and the table stays writable throughout.
 */
export async function deleteOldEvents(db: Q, before: Date, batch: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const lock = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${LOCKS.insightsRetention}) as locked`.execute(trx);
    if (lock.rows[0]?.locked !== true) return -1;
    const r = await sql`
      delete from insight_events where id in (
        select id from insight_events where at < ${before} order by at limit ${batch}
      )`.execute(trx);
    return Number(r.numAffectedRows ?? 0);
  });
}
