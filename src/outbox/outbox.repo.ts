import { sql, type Kysely } from 'kysely';
import { LOCKS } from '../db/locks.ts';
import type { Database } from '../db/schema.ts';

/** Where pg-boss keeps its tables (its own schema, installed and upgraded by pg-boss itself). */
export const QUEUE_SCHEMA = 'pgboss';

/** A job as stored in pg-boss's `data`: the caller's payload plus the attempt bookkeeping. */
export interface Envelope {
  p: unknown;
  key: string;
  n: number;
  t0: number;
  err?: string;
}

const START_LOCK = LOCKS.outboxStart;

/** Takes the start lock on this connection (session level: held until `unlockStart` on the same connection). */
export async function lockStart(conn: Kysely<Database>): Promise<void> {
  await sql`select pg_advisory_lock(${START_LOCK})`.execute(conn);
}

export async function unlockStart(conn: Kysely<Database>): Promise<void> {
  await sql`select pg_advisory_unlock(${START_LOCK})`.execute(conn);
}

/** Every stored attempt of a kind's jobs (live and archived), by key, latest attempt first. */
export async function findJobs(db: Kysely<Database>, kindName: string, key?: string) {
  const where = key ? sql`name = ${kindName} and data->>'key' = ${key}` : sql`name = ${kindName}`;
  const result = await sql<{ id: string; state: string; start_after: Date; data: Envelope; output: Record<string, unknown> | null }>`
    select * from (
      select id, state::text as state, start_after, data, output from ${sql.table(`${QUEUE_SCHEMA}.job`)} where ${where}
      union all
      select id, state::text as state, start_after, data, output from ${sql.table(`${QUEUE_SCHEMA}.archive`)} where ${where}
    ) j order by j.data->>'key', (j.data->>'n')::int desc, j.id`.execute(db);
  return result.rows;
}

/** Jobs in the live queue table by kind and state (archived attempts are not counted): for GET /metrics. */
export async function countJobs(db: Kysely<Database>) {
  const result = await sql<{ name: string; state: string; count: number }>`
    select name, state::text as state, count(*)::int as count from ${sql.table(`${QUEUE_SCHEMA}.job`)} group by name, state`.execute(db);
  return result.rows;
}

/**
 * Puts attempts a stopping node cannot finish back in the queue, due now and with their attempt number unchanged
 * (started_on cleared, so pg-boss does not count a retry), instead of leaving them active until their lease ends.
 * Only jobs still active: one that finished or was taken over meanwhile is left alone.
 */
export async function releaseJobs(db: Kysely<Database>, kindName: string, ids: string[]): Promise<number> {
  const result = await sql`
    update ${sql.table(`${QUEUE_SCHEMA}.job`)} set state = 'created', started_on = null, start_after = now()
    where name = ${kindName} and id = any(${ids}::uuid[]) and state = 'active'`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export interface StoredMail {
  id: string;
  key: string;
  state: string;
  sealed: string;
  table: 'job' | 'archive';
}

/** One page of stored mail jobs (queued, sent or given up; live and archived), after `afterId`. */
export async function mailJobsPage(db: Kysely<Database>, kind: string, afterId: string, limit: number): Promise<StoredMail[]> {
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

/** Deletes stored jobs (live and archived) by id: a queued one then never runs. */
export async function deleteJobs(db: Kysely<Database>, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  let n = 0;
  for (const table of ['job', 'archive']) {
    const result = await sql`delete from ${sql.table(`${QUEUE_SCHEMA}.${table}`)} where id = any(${ids}::uuid[])`.execute(db);
    n += Number(result.numAffectedRows ?? 0);
  }
  return n;
}
