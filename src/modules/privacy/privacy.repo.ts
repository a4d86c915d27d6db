import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { redactPersonalEvents } from '../events/events.repo.ts';
import { PERSONAL_EVENT_TYPES } from '../events/event-model.ts';
import { deleteEndedLeadHolds } from '../holds/index.ts';
import { deleteLeads, leadReadableProjects } from '../leads/leads.repo.ts';
import type { LeadRow } from '../leads/leads.repo.ts';
import type { WorksheetRow } from '../worksheets/worksheets.repo.ts';

type Q = Kysely<Database>;

/** Which projects a request about a buyer covers: every project (a service administrator), or these. */
export type ProjectScope = { all: true } | { ids: string[] };

const inScope = (column: string, scope: ProjectScope) => ('all' in scope ? sql<boolean>`true` : sql<boolean>`${sql.ref(column)} = any(${scope.ids}::text[])`);

/** The projects whose leads a user may read (owned or administered): what an owner's request about a buyer covers. */
export async function leadProjects(db: Q, userId: string): Promise<string[]> {
  return (await leadReadableProjects(db, userId).execute()).map((r) => r.id);
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

/** Ids of leads created before `before`, oldest first, at most `limit`: what a retention pass erases. */
export function findLeadsBefore(db: Q, before: Date, limit: number): Promise<{ id: string; project_id: string }[]> {
  return db.selectFrom('leads').select(['id', 'project_id']).where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
}

/**
 * Erases leads: their events redacted, their ended holds deleted (a running hold keeps its unit until it lapses or is
 * released, no longer linked to anyone), then the leads themselves. Returns how many leads went.
 */
export async function eraseLeads(db: Q, leadIds: string[]): Promise<{ leads: number; holds: number; events: number }> {
  if (!leadIds.length) return { leads: 0, holds: 0, events: 0 };
  const events = await redactPersonalEvents(db, leadIds);
  const holds = await deleteEndedLeadHolds(db, leadIds);
  const leads = await deleteLeads(db, leadIds);
  return { leads, holds, events };
}
