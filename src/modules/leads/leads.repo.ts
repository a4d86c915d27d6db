import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

export interface LeadRow {
  id: string;
  project_id: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/** Leads are never edited, so `updatedAt` is their `createdAt`. */
export const toLead = (row: LeadRow) => {
  const at = row.created_at.toISOString();
  return { ...row.data, _id: row.id, project: row.project_id, createdAt: at, updatedAt: at };
};

/** Newest first; `_id` breaks ties so pages are stable. */
export function listLeads(db: Q, projectId: string, page: { skip: number; limit: number }) {
  return db
    .selectFrom('leads')
    .select(['id', 'project_id', 'data', 'created_at'])
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(page.skip)
    .limit(page.limit)
    .execute();
}

export async function insertLead(db: Q, lead: { id: string; projectId: string; data: Record<string, unknown>; createdAt?: Date }) {
  return db
    .insertInto('leads')
    .values({ id: lead.id, project_id: lead.projectId, data: JSON.stringify(lead.data), ...(lead.createdAt ? { created_at: lead.createdAt } : {}) })
    .returning(['id', 'project_id', 'data', 'created_at'])
    .executeTakeFirstOrThrow();
}
