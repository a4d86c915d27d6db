import { sql, type Kysely } from 'kysely';
import { sortOf, windowTotal, type Page } from '../shared/list.ts';
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
  // A lead never changes after it is made: it stays at its first version.
  return { ...row.data, _id: row.id, __v: 1, project: row.project_id, createdAt: at, updatedAt: at };
};

/** Newest first unless sorted otherwise; `_id` breaks ties so pages are stable. Rows carry the count before paging. */
export function listLeads(db: Q, projectId: string, page: Page & { updatedSince?: string | undefined }) {
  let q = db.selectFrom('leads as l').select(['l.id', 'l.project_id', 'l.data', 'l.created_at', windowTotal]).where('l.project_id', '=', projectId);
  // Leads never change, so "changed since" is "made since".
  if (page.updatedSince) q = q.where('l.created_at', '>=', new Date(page.updatedSince));
  const { column, direction } = sortOf(page.sort ?? '-createdAt', {
    name: sql<string>`l.data->>'lastName'`,
    createdAt: sql<string>`l.created_at`,
    updatedAt: sql<string>`l.created_at`,
  });
  return q.orderBy(column, direction).orderBy('l.id', direction).offset(page.skip).limit(page.limit).execute();
}

export async function insertLead(db: Q, lead: { id: string; projectId: string; data: Record<string, unknown>; createdAt?: Date }) {
  return db
    .insertInto('leads')
    .values({ id: lead.id, project_id: lead.projectId, data: JSON.stringify(lead.data), ...(lead.createdAt ? { created_at: lead.createdAt } : {}) })
    .returning(['id', 'project_id', 'data', 'created_at'])
    .executeTakeFirstOrThrow();
}
