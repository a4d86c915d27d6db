import { sql, type Kysely } from 'kysely';
import type { Principal } from '../../http/auth.ts';
import { versionedUpdate } from '../../db/versioned.repo.ts';
import { sortOf, windowTotal, type Page } from '../shared/list.ts';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

export interface LeadRow {
  id: string;
  project_id: string;
  data: Record<string, unknown>;
  status: string;
  notes: string | null;
  assignee: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['l.id', 'l.project_id', 'l.data', 'l.status', 'l.notes', 'l.assignee', 'l.version', 'l.created_at', 'l.updated_at'] as const;

/** The response record: what the visitor sent (`data`), then the server's and the sales team's fields. */
export const toLead = (row: LeadRow) => ({
  ...row.data,
  _id: row.id,
  __v: row.version,
  project: row.project_id,
  status: row.status,
  notes: row.notes,
  assignee: row.assignee,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** What GET /leads narrows by; every value is a placeholder. */
export interface LeadFilters {
  updatedSince?: string | undefined;
  /** A substring of the name ("first last"), e-mail or phone, any case. */
  q?: string | undefined;
  status?: string | undefined;
  unit?: string | undefined;
  source?: string | undefined;
  assignee?: string | undefined;
  /** Inclusive bounds on `createdAt`. */
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
}

/** `text` as a LIKE pattern matching it anywhere, its own `%`, `_` and `\` taken literally. */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The ids of the projects whose leads a user (not a service administrator) may read: owned or administered. */
export function leadReadableProjects(db: Q, userId: string) {
  return db
    .selectFrom('projects as p')
    .select('p.id')
    .where(sql<boolean>`(p.user_id = ${userId} or p.administrators @> array[${userId}]::char(24)[])`);
}

/**
 * One page of leads, newest first unless sorted otherwise (`_id` breaks ties so pages are stable); rows carry the count
 * before paging. `project` names one project (its access checked by the caller); without it, the leads of every
 * project whose leads the principal may read (owned or administered; every project for a platform administrator).
 */
export function listLeads(db: Q, scope: { project: string } | { principal: Principal }, page: Page & LeadFilters) {
  let q = db.selectFrom('leads as l').select([...COLUMNS, windowTotal]);
  if ('project' in scope) q = q.where('l.project_id', '=', scope.project);
  else if (scope.principal.role !== 'admin') {
    q = q.where('l.project_id', 'in', leadReadableProjects(db, scope.principal.id));
  }
  if (page.updatedSince) q = q.where('l.updated_at', '>=', new Date(page.updatedSince));
  if (page.q) {
    const pattern = containsPattern(page.q);
    q = q.where(
      sql<boolean>`(concat_ws(' ', l.data->>'firstName', l.data->>'lastName') ilike ${pattern} or l.data->>'email' ilike ${pattern} or l.data->>'phone' ilike ${pattern})`,
    );
  }
  if (page.status) q = q.where('l.status', '=', page.status);
  if (page.unit) q = q.where(sql<string>`l.data->>'unit'`, '=', page.unit);
  if (page.source) q = q.where(sql<string>`l.data->>'source'`, '=', page.source);
  if (page.assignee) q = q.where('l.assignee', '=', page.assignee);
  if (page.createdFrom) q = q.where('l.created_at', '>=', page.createdFrom);
  if (page.createdBefore) q = q.where('l.created_at', '<', page.createdBefore);
  const { column, direction } = sortOf(page.sort ?? '-createdAt', {
    name: sql<string>`l.data->>'lastName'`,
    createdAt: sql<string>`l.created_at`,
    updatedAt: sql<string>`l.updated_at`,
  });
  return q.orderBy(column, direction).orderBy('l.id', direction).offset(page.skip).limit(page.limit).execute();
}

/** A new lead. The service stamps `createdAt` from its clock; the database's clock is only a fallback for fixtures. */
export async function insertLead(db: Q, lead: { id: string; projectId: string; data: Record<string, unknown>; createdAt?: Date }): Promise<LeadRow> {
  return db
    .insertInto('leads')
    .values({
      id: lead.id,
      project_id: lead.projectId,
      data: JSON.stringify(lead.data),
      ...(lead.createdAt ? { created_at: lead.createdAt, updated_at: lead.createdAt } : {}),
    })
    .returning(['id', 'project_id', 'data', 'status', 'notes', 'assignee', 'version', 'created_at', 'updated_at'])
    .executeTakeFirstOrThrow();
}

/** A lead with what an access check on its project needs (the project's owner, administrators and editors). */
export function findLeadWithTeam(db: Q, id: string) {
  return db
    .selectFrom('leads as l')
    .innerJoin('projects as p', 'p.id', 'l.project_id')
    .select([...COLUMNS, 'p.user_id', 'p.administrators', 'p.editors'])
    .where('l.id', '=', id)
    .executeTakeFirst();
}

export function findLead(db: Q, id: string): Promise<LeadRow | undefined> {
  return db.selectFrom('leads as l').select(COLUMNS).where('l.id', '=', id).executeTakeFirst();
}

/** Sets the sales team's fields in one versioned statement (If-Match: only while still at `ifVersion`). */
export function updateLead(db: Q, id: string, set: { status?: string; notes?: string | null; assignee?: string | null }, ifVersion?: number) {
  return versionedUpdate(db, 'leads', id, set, ifVersion);
}

// A waiting list's entries are leads, so its writes are here; the rest of it is in modules/priority/.

/** Writes ranks 1..n in the order of `ids` (entries whose rank does not change are not written). */
export async function writeRanks(db: Q, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const result = await sql`
    update leads l set data = jsonb_set(l.data, '{rank}', to_jsonb(o.rank::integer))
    from unnest(${ids}::text[]) with ordinality as o(id, rank)
    where l.id = o.id and (l.data->>'rank')::integer is distinct from o.rank::integer`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Marks an entry offered (spent), once: false when it already was. */
export async function markOffered(db: Q, leadId: string, now: number): Promise<boolean> {
  const result = await sql`
    update leads set data = data || jsonb_build_object('offeredAt', ${new Date(now).toISOString()}::text)
    where id = ${leadId} and not (data ? 'offeredAt')`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** Deletes leads by id (their holds' `lead_id` is set null by the database); answers how many went. */
export async function deleteLeads(db: Q, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const result = await db.deleteFrom('leads').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
