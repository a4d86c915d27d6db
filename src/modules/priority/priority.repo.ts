import { sql, type Kysely } from 'kysely';
import { KEYED_LOCKS } from '../../db/locks.ts';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

/** A waitlist entry for one unit: a lead with source "waitlist", `unit` and `rank` in its document. */
const waiting = (projectId: string, unitId: string) =>
  sql<boolean>`(l.project_id = ${projectId} and l.data->>'source' = 'waitlist' and l.data ? 'rank' and l.data->>'unit' = ${unitId})`;

/** Until the transaction ends, one unit's waiting list is ranked, re-ranked and offered one request at a time. */
export async function lockWaitingList(db: Q, projectId: string, unitId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${KEYED_LOCKS.unitWaitingList}, hashtext(${projectId + ':' + unitId}))`.execute(db);
}

/** The rank the next entry of a unit's waiting list gets: after every entry so far (call under lockWaitingList). */
export async function nextRank(db: Q, projectId: string, unitId: string): Promise<number> {
  const row = await sql<{ next: number }>`
    select coalesce(max((l.data->>'rank')::integer), 0) + 1 as next from leads l where ${waiting(projectId, unitId)}`.execute(db);
  return row.rows[0]?.next ?? 1;
}

export interface WaitingRow {
  id: string;
  rank: number;
  /** When the entry was offered a priority hold (it is then spent), or null. */
  offered_at: string | null;
}

/** A unit's waiting list in rank order (ties by arrival). */
export async function listWaiting(db: Q, projectId: string, unitId: string): Promise<WaitingRow[]> {
  const rows = await sql<WaitingRow>`
    select l.id, (l.data->>'rank')::integer as rank, l.data->>'offeredAt' as offered_at
    from leads l where ${waiting(projectId, unitId)}
    order by (l.data->>'rank')::integer, l.created_at, l.id`.execute(db);
  return rows.rows;
}

/** The first entry of a unit's waiting list not yet offered, with what its mail needs. */
export async function findFirstWaiting(db: Q, projectId: string, unitId: string): Promise<{ id: string; data: Record<string, unknown> } | undefined> {
  const rows = await sql<{ id: string; data: Record<string, unknown> }>`
    select l.id, l.data from leads l
    where ${waiting(projectId, unitId)} and not (l.data ? 'offeredAt')
    order by (l.data->>'rank')::integer, l.created_at, l.id
    limit 1`.execute(db);
  return rows.rows[0];
}

/** Whether a unit has an entry waiting to be offered. */
export async function hasWaiting(db: Q, projectId: string, unitId: string): Promise<boolean> {
  return (await findFirstWaiting(db, projectId, unitId)) !== undefined;
}

/** A unit's waiting list as lead records, in rank order. */
export function listWaitingLeads(db: Q, projectId: string, unitId: string) {
  return db
    .selectFrom('leads as l')
    .selectAll('l')
    .where(waiting(projectId, unitId))
    .orderBy(sql`(l.data->>'rank')::integer`)
    .orderBy('l.created_at')
    .orderBy('l.id')
    .execute();
}

/** A lead with its project's membership and settings, for the access check of a re-rank. */
export function findLeadForRank(db: Q, id: string) {
  return db
    .selectFrom('leads as l')
    .innerJoin('projects as p', 'p.id', 'l.project_id')
    .select(['l.id', 'l.project_id', 'l.data', 'p.user_id', 'p.administrators', 'p.editors', 'p.data as settings'])
    .where('l.id', '=', id)
    .executeTakeFirst();
}

/** One lead by id. */
export function findLeadRow(db: Q, id: string) {
  return db.selectFrom('leads as l').selectAll('l').where('l.id', '=', id).executeTakeFirst();
}

/**
 * The unit a waitlist entry names, read under a share lock (none when it is not the project's): a hold's conditional
 * UPDATE waits for the entry's transaction, and the entry sees a hold that committed first, so the two agree on
 * whether the unit was free.
 */
export async function lockUnitForWaitlist(
  db: Q,
  projectId: string,
  unitId: string,
): Promise<{ availability: string; on_hold_expires_at: Date | null } | undefined> {
  const { rows } = await sql<{ availability: string; on_hold_expires_at: Date | null }>`
    select availability, on_hold_expires_at from units where id = ${unitId} and project_id = ${projectId} for share`.execute(db);
  return rows[0];
}
