import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { PERSONAL_EVENT_TYPES } from '../events/events.repo.ts';
import { QUEUE_SCHEMA } from '../../outbox/outbox.repo.ts';
import type { LeadRow } from '../leads/leads.repo.ts';
import type { WorksheetRow } from '../worksheets/worksheets.repo.ts';

type Q = Kysely<Database>;

/** Which projects a request about a buyer covers: every project (a service administrator), or these. */
export type ProjectScope = { all: true } | { ids: string[] };

const inScope = (column: string, scope: ProjectScope) => ('all' in scope ? sql<boolean>`true` : sql<boolean>`${sql.ref(column)} = any(${scope.ids}::text[])`);

/** The projects whose leads a user may read (owned or administered): what an owner's request about a buyer covers. */
export async function leadProjects(db: Q, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('projects as p')
    .select('p.id')
    .where(sql<boolean>`(p.user_id = ${userId} or p.administrators @> array[${userId}]::char(24)[])`)
    .execute();
  return rows.map((r) => r.id);
}

/** Leads (enquiries, hold leads and waitlist entries) left with this address, oldest first. */
export function findBuyerLeads(db: Q, email: string, scope: ProjectScope): Promise<LeadRow[]> {
  return db
    .selectFrom('leads as l')
    .select(['l.id', 'l.project_id', 'l.data', 'l.status', 'l.notes', 'l.assignee', 'l.version', 'l.created_at', 'l.updated_at'])
    .where(sql<boolean>`lower(l.data->>'email') = ${email}`)
    .where(inScope('l.project_id', scope))
    .orderBy('l.created_at')
    .orderBy('l.id')
    .execute();
}

/** Worksheets a realtor submitted for a buyer with this address. */
export function findBuyerWorksheets(db: Q, email: string, scope: ProjectScope): Promise<WorksheetRow[]> {
  return db
    .selectFrom('worksheets as w')
    .selectAll('w')
    .where(sql<boolean>`lower(w.buyer->>'email') = ${email}`)
    .where(inScope('w.project_id', scope))
    .orderBy('w.created_at')
    .orderBy('w.id')
    .execute();
}

/** The holds placed with these leads (a hold's visitor is its lead). */
export function findLeadHolds(db: Q, leadIds: string[]) {
  if (!leadIds.length) return Promise.resolve([]);
  return db
    .selectFrom('holds')
    .select(['id', 'unit_id', 'project_id', 'lead_id', 'created_at', 'extended_at', 'released_at'])
    .where('lead_id', 'in', leadIds)
    .orderBy('created_at')
    .execute();
}

/** The change-log events that name these leads or worksheets (their personal types only). */
export function findPersonalEvents(db: Q, subjectIds: string[]) {
  if (!subjectIds.length) return Promise.resolve([]);
  return db
    .selectFrom('events')
    .select(['id', 'project_id', 'seq', 'type', 'actor_kind', 'actor_id', 'data', 'created_at'])
    .where('subject_id', 'in', subjectIds)
    .where('type', 'in', [...PERSONAL_EVENT_TYPES])
    .orderBy('project_id')
    .orderBy('seq')
    .execute();
}

/** Webhook deliveries of these events (their payload is the event, read when sent). */
export function findEventDeliveries(db: Q, eventIds: string[]) {
  if (!eventIds.length) return Promise.resolve([]);
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'webhook_id', 'event_id', 'seq', 'status', 'created_at', 'delivered_at'])
    .where('event_id', 'in', eventIds)
    .orderBy('created_at')
    .execute();
}

/** Change keys that say nothing of a person: kept when an event about a buyer is redacted. */
export const IMPERSONAL_CHANGE_KEYS = ['status', 'assignee', 'unit', 'source', 'rank', 'offeredAt', 'availability', 'choices', 'allocation'];

/**
 * Redacts events about these leads or worksheets in place: their `changes` keep only the impersonal keys (status,
 * assignee, unit…), so the log keeps its sequence and a pending webhook delivery sends the redacted event.
 */
export async function redactPersonalEvents(db: Q, subjectIds: string[]): Promise<number> {
  if (!subjectIds.length) return 0;
  const result = await sql`
    update events e set data = (e.data - 'changes') || coalesce((
      select jsonb_build_object('changes', jsonb_object_agg(c.key, c.value))
      from jsonb_each(e.data->'changes') c where c.key = any(${IMPERSONAL_CHANGE_KEYS}::text[])
      having count(*) > 0), '{}'::jsonb)
    where e.subject_id = any(${subjectIds}::text[]) and e.type = any(${[...PERSONAL_EVENT_TYPES]}::text[]) and e.data ? 'changes'`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Erases leads: their events redacted, their ended holds deleted (a running hold keeps its unit until it lapses or is
 * released, no longer linked to anyone), then the leads themselves. Returns how many leads went.
 */
export async function eraseLeads(db: Q, leadIds: string[]): Promise<{ leads: number; holds: number; events: number }> {
  if (!leadIds.length) return { leads: 0, holds: 0, events: 0 };
  const events = await redactPersonalEvents(db, leadIds);
  const holds = await db.deleteFrom('holds').where('lead_id', 'in', leadIds).where('released_at', 'is not', null).executeTakeFirst();
  const leads = await db.deleteFrom('leads').where('id', 'in', leadIds).executeTakeFirst();
  return { leads: Number(leads.numDeletedRows), holds: Number(holds.numDeletedRows), events };
}

export async function deleteWorksheets(db: Q, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const result = await db.deleteFrom('worksheets').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Stored answers of public forms (kept for retries) that carry this address. */
export async function forgetPublicAnswers(db: Q, email: string): Promise<number> {
  const result = await sql`
    delete from idempotency_keys where scope like 'public-%' and body is not null and strpos(lower(body::text), ${email}) > 0`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Ids of leads created before `before`, oldest first, at most `limit`: what a retention pass erases. */
export function findLeadsBefore(db: Q, before: Date, limit: number): Promise<{ id: string; project_id: string }[]> {
  return db.selectFrom('leads').select(['id', 'project_id']).where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
}

export interface StoredMail {
  id: string;
  key: string;
  state: string;
  sealed: string;
  table: 'job' | 'archive';
}

/** One page of stored mail jobs (queued, sent or given up; live and archived), after `afterId`. */
export async function mailJobsPage(db: Q, kind: string, afterId: string, limit: number): Promise<StoredMail[]> {
  const { rows } = await sql<StoredMail>`
    select * from (
      select id::text as id, data->>'key' as key, state::text as state, data->'p'->>'sealed' as sealed, 'job' as "table"
      from ${sql.table(`${QUEUE_SCHEMA}.job`)} where name = ${kind} and id::text > ${afterId}
      union all
      select id::text as id, data->>'key' as key, state::text as state, data->'p'->>'sealed' as sealed, 'archive' as "table"
      from ${sql.table(`${QUEUE_SCHEMA}.archive`)} where name = ${kind} and id::text > ${afterId}
    ) j order by j.id limit ${limit}`.execute(db);
  return rows;
}

/** Deletes stored mail jobs (live and archived) by id: a queued one is then never sent. */
export async function deleteMailJobs(db: Q, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  let n = 0;
  for (const table of ['job', 'archive']) {
    const result = await sql`delete from ${sql.table(`${QUEUE_SCHEMA}.${table}`)} where id = any(${ids}::uuid[])`.execute(db);
    n += Number(result.numAffectedRows ?? 0);
  }
  return n;
}
