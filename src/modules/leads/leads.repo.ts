import { sql, type Kysely } from 'kysely';
import type { Principal } from '../../http/auth.ts';
import { jsonMerge, returning, versionedUpdate, type WriteAt } from '../../db/versioned.repo.ts';
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
  /** Listed leads only: the state of the hold the lead was made with (`holdStateSql`), or null for a lead without one. */
  hold?: { state: HoldState; until: string | null } | null;
  /** Listed leads only: how many leads the same e-mail has left on the same project, this one included. */
  contact_count?: number;
}

/** Where the hold a lead was made with stands: still holding its unit, ended, or ended in the unit's sale or reservation. */
export type HoldState = 'active' | 'expired' | 'converted';

const COLUMNS = ['l.id', 'l.project_id', 'l.data', 'l.status', 'l.notes', 'l.assignee', 'l.version', 'l.created_at', 'l.updated_at'] as const;

/** Lead fields that are not content: left out of a lead.created event's changes. */
export const LEAD_KEPT = ['_id', 'project', 'createdAt', 'updatedAt'] as const;

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
  ...(row.hold ? { holdState: row.hold.state, ...(row.hold.until ? { holdUntil: new Date(row.hold.until).toISOString() } : {}) } : {}),
  ...(row.contact_count !== undefined ? { contactCount: row.contact_count } : {}),
});

/**
 * The state of the latest hold placed with lead `l` (null without one): `active` while it still holds its unit (the
 * unit's holder, on hold, not lapsed; `until` its expiry), `converted` when its unit is now reserved or sold and no
 * later hold was placed on the unit, else `expired` (lapsed, released, or the unit went to someone else).
 */
function holdStateSql(now: number) {
  const at = new Date(now);
  return sql<{ state: HoldState; until: string | null } | null>`(
    select case
        when u.held_by = h.id and u.availability = 'on_hold' and (u.on_hold_expires_at is null or u.on_hold_expires_at > ${at})
          then jsonb_build_object('state', 'active', 'until', u.on_hold_expires_at)
        when u.availability in ('reserved', 'sold')
          and not exists (select 1 from holds n where n.unit_id = h.unit_id and n.created_at > h.created_at)
          then jsonb_build_object('state', 'converted', 'until', null)
        else jsonb_build_object('state', 'expired', 'until', null)
      end
    from holds h left join units u on u.id = h.unit_id
    where h.lead_id = l.id
    order by h.created_at desc
    limit 1)`.as('hold');
}

/** How many leads the lead's e-mail (any case) has left on its project: one person's contacts, this one included. */
const contactCountSql = sql<number>`(
  select count(*)::int from leads o
  where o.project_id = l.project_id and lower(o.data->>'email') = lower(l.data->>'email'))`.as('contact_count');

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
  /** One person's leads: this e-mail exactly, any case. */
  email?: string | undefined;
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
export function listLeads(db: Q, scope: { project: string } | { principal: Principal }, page: Page & LeadFilters, now: number) {
  let q = db.selectFrom('leads as l').select([...COLUMNS, holdStateSql(now), contactCountSql, windowTotal]);
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
  if (page.email) q = q.where(sql<string>`lower(l.data->>'email')`, '=', page.email.toLowerCase());
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

/** Names for an export: these projects'. */
export function findProjectNames(db: Q, ids: string[]): Promise<{ id: string; name: string }[]> {
  return ids.length ? db.selectFrom('projects').select(['id', 'name']).where('id', 'in', ids).execute() : Promise.resolve([]);
}

/** Names for an export: these units' (of these projects only). */
export function findUnitNames(db: Q, projectIds: string[], ids: string[]): Promise<{ id: string; name: string }[]> {
  if (!ids.length || !projectIds.length) return Promise.resolve([]);
  return db.selectFrom('units').select(['id', 'name']).where('id', 'in', ids).where('project_id', 'in', projectIds).execute();
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
export function updateLead(db: Q, id: string, set: { status?: string; notes?: string | null; assignee?: string | null }, write: WriteAt) {
  return versionedUpdate(db, 'leads', id, set, write);
}

/**
 * Merges `data` into what the lead's visitor sent (a booking moved or cancelled at Cal.com), in one versioned statement;
 * answers the lead as written, or undefined when it is gone.
 */
export function mergeLeadData(db: Q, id: string, data: Record<string, unknown>, at: number): Promise<LeadRow | undefined> {
  return versionedUpdate(db, 'leads', id, { data: jsonMerge('data', data) }, { at, as: 'l', returning: returning<LeadRow>(COLUMNS) });
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

/**
 * Where a lead was sent (`data.sentTo`, one entry per integration: the latest push), kept like `rank` and `offeredAt`
 * beside what the visitor sent; no version change, as the lead itself did not change.
 */
export async function recordSentTo(db: Q, leadId: string, entry: { integration: string; at: string; externalId: string }): Promise<void> {
  await sql`
    update leads set data = jsonb_set(data, '{sentTo}', coalesce(
      (select jsonb_agg(e) from jsonb_array_elements(coalesce(data->'sentTo', '[]'::jsonb)) e where e->>'integration' <> ${entry.integration}),
      '[]'::jsonb) || jsonb_build_array(${JSON.stringify(entry)}::jsonb))
    where id = ${leadId}`.execute(db);
}

/** Writes where a lead's deposit stands on the lead (`deposit`: its id, status, amount, currency and, once paid, when). */
export async function markLeadDeposit(
  db: Q,
  leadId: string,
  deposit: { _id: string; status: string; amount: number; currency: string; paidAt?: string },
): Promise<void> {
  await sql`update leads set data = data || jsonb_build_object('deposit', ${JSON.stringify(deposit)}::jsonb) where id = ${leadId}`.execute(db);
}

/** Deletes leads by id (their holds' `lead_id` is set null by the database); answers how many went. */
export async function deleteLeads(db: Q, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const result = await db.deleteFrom('leads').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
