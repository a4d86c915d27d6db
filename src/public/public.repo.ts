import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { publishedSql } from './drafts.ts';

type Q = Kysely<Database>;

/** The published project a public form names, by id or by namespace, with its settings (a draft takes no forms). */
export function findFormProject(db: Q, by: { project: string } | { namespace: string }): Promise<{ id: string; data: Record<string, unknown> } | undefined> {
  let q = db.selectFrom('projects as p').select(['id', 'data']).where(publishedSql('p'));
  q = 'project' in by ? q.where('id', '=', by.project) : q.where('namespace', '=', by.namespace);
  return q.executeTakeFirst();
}

/** The project a presentation namespace names, with its settings (whether it is published). */
export function findProjectByNamespace(db: Q, namespace: string): Promise<{ id: string; data: Record<string, unknown> } | undefined> {
  return db.selectFrom('projects').select(['id', 'data']).where('namespace', '=', namespace).executeTakeFirst();
}

export interface PublicEventRow {
  seq: string;
  type: string;
  data: Record<string, unknown>;
  show_prices: boolean;
}

/** A project's events after `after` (up to `upTo`), in seq order, at most `limit`, each with whether the project shows prices. */
export function listEventsAfter(db: Q, projectId: string, after: number, upTo: number | undefined, limit: number): Promise<PublicEventRow[]> {
  let q = db
    .selectFrom('events as e')
    .innerJoin('projects as p', 'p.id', 'e.project_id')
    .select(['e.seq', 'e.type', 'e.data', sql<boolean>`(p.data->'showPrices') is distinct from 'false'::jsonb`.as('show_prices')])
    .where('e.project_id', '=', projectId)
    .where('e.seq', '>', String(after));
  if (upTo !== undefined) q = q.where('e.seq', '<=', String(upTo));
  return q.orderBy('e.seq').limit(limit).execute();
}

/** The last seq given to a project's events (0 before the first). */
export async function findLastEventSeq(db: Q, projectId: string): Promise<number> {
  const row = await db.selectFrom('project_event_counters').select('last_seq').where('project_id', '=', projectId).executeTakeFirst();
  return row ? Number(row.last_seq) : 0;
}

/** Claims an idempotency key for a request (status 0 until its outcome is stored); false when it was already claimed. */
export async function claimIdempotencyKey(db: Q, scope: string, key: string, requestHash: string): Promise<boolean> {
  const claimed = await sql<{ key: string }>`
      insert into idempotency_keys (scope, key, request_hash, status) values (${scope}, ${key}, ${requestHash}, 0)
      on conflict do nothing returning key`.execute(db);
  return claimed.rows.length > 0;
}

/** Stores the outcome of a claimed key's request. */
export async function storeIdempotentOutcome(db: Q, scope: string, key: string, status: number, body: unknown): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status, body: JSON.stringify(body) })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .execute();
}

/** The stored request hash and outcome of a key. */
export function findIdempotencyRecord(db: Q, scope: string, key: string): Promise<{ request_hash: string; status: number; body: unknown }> {
  return db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status', 'body'])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
}

/** Forgets idempotency records made before `before`; how many. */
export async function forgetIdempotencyKeys(db: Q, before: Date): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
