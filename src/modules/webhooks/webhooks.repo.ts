import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { versionedUpdate, type WriteAt } from '../../db/versioned.repo.ts';
import type { AppendedEvent } from '../events/event-model.ts';

type Q = Kysely<Database>;

export interface WebhookRow {
  id: string;
  project_id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'project_id', 'url', 'events', 'description', 'secret', 'version', 'created_at', 'updated_at'] as const;

/** The response record; the secret is never part of it (creation adds it once, by hand). */
export function toWebhook(row: WebhookRow) {
  return {
    _id: row.id,
    __v: row.version,
    project: row.project_id,
    url: row.url,
    events: row.events,
    ...(row.description !== null ? { description: row.description } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function listWebhooks(db: Q, projectId: string) {
  return db.selectFrom('webhooks').select(COLUMNS).where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute() as Promise<WebhookRow[]>;
}

export function findWebhook(db: Q, projectId: string, id: string) {
  return db.selectFrom('webhooks').select(COLUMNS).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst() as Promise<
    WebhookRow | undefined
  >;
}

export function insertWebhook(db: Q, w: { id: string; projectId: string; url: string; events: string[]; description: string | null; secret: string }) {
  return db
    .insertInto('webhooks')
    .values({ id: w.id, project_id: w.projectId, url: w.url, events: w.events, description: w.description, secret: w.secret })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow() as Promise<WebhookRow>;
}

/** The versioned update (the version bumped, updated_at from the clock, If-Match guard); false when stale or gone. */
export function updateWebhook(db: Q, id: string, set: Partial<{ url: string; events: string[]; description: string | null }>, write: WriteAt) {
  return versionedUpdate(db, 'webhooks', id, set, write);
}

/** Deletes the webhook (and its deliveries); with `ifVersion`, only while it is at that version. False when nothing was deleted. */
export async function deleteWebhook(db: Q, id: string, ifVersion?: number): Promise<boolean> {
  let q = db.deleteFrom('webhooks').where('id', '=', id);
  if (ifVersion !== undefined) q = q.where('version', '=', ifVersion);
  return Number((await q.executeTakeFirst()).numDeletedRows) === 1;
}

const subscribedTypes = (types: readonly string[]) =>
  sql<boolean>`(w.events && array(select jsonb_array_elements_text(${JSON.stringify(types)}::jsonb)) or '*' = any(w.events))`;

/**
 * Locks, until the transaction ends, the rows of the project's webhooks subscribed to any of `types`, and answers
 * their ids. A statement of its own, before `insertDeliveries`: under READ COMMITTED each statement reads a new
 * snapshot, so the insert's "is a delivery pending" is read after the lock is held, and sees every hand-over of the
 * webhook's turn that committed while this waited. Read in one statement with the lock, it would come from a snapshot
 * taken before the wait, and a delivery settled meanwhile would still look pending: no job on either side, a stall.
 */
export async function lockSubscribedWebhooks(trx: Q, projectId: string, types: readonly string[]): Promise<string[]> {
  const r = await sql<{ id: string }>`
    select w.id from webhooks w where w.project_id = ${projectId} and ${subscribedTypes(types)} order by w.id for update`.execute(trx);
  return r.rows.map((row) => row.id);
}

/**
 * Queues the deliveries of events just appended, in their transaction, in one statement: one per webhook of
 * `webhookIds` (locked by `lockSubscribedWebhooks` just before) and event it subscribes to, its id derived from
 * both. Returns the heads: of each webhook, its new delivery of lowest seq, when the webhook had no pending delivery
 * before this statement. They get their outbox job now; the others wait their turn.
 */
export async function insertDeliveries(trx: Q, webhookIds: readonly string[], events: readonly AppendedEvent[], at: Date): Promise<string[]> {
  if (!events.length || !webhookIds.length) return [];
  // `waiting` is read in the statement's snapshot, taken after the webhooks' locks: it does not hold the rows the
  // statement inserts, and it holds every settlement that committed before the locks were granted.
  const r = await sql<{ heads: string[] }>`
    with e as (
      select * from jsonb_to_recordset(${JSON.stringify(events)}::jsonb) as e(id text, seq bigint, type text)
    ), h as (
      select w.id, w.events from webhooks w where w.id in (select jsonb_array_elements_text(${JSON.stringify(webhookIds)}::jsonb))
    ), d as (
      insert into webhook_deliveries as wd (id, webhook_id, event_id, seq, created_at)
      select substr(md5(h.id || e.id), 1, 24), h.id, e.id, e.seq, ${at}
      from h join e on e.type = any(h.events) or '*' = any(h.events)
      returning wd.id, wd.webhook_id, wd.seq,
        exists (select 1 from webhook_deliveries x where x.webhook_id = wd.webhook_id and x.status = 'pending') as waiting
    )
    select coalesce((select array_agg(d.id) from d where not d.waiting and d.seq = (select min(d2.seq) from d d2 where d2.webhook_id = d.webhook_id)), '{}') as heads`.execute(
    trx,
  );
  return r.rows[0]?.heads ?? [];
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  /** A bigint: PostgreSQL's driver reads it as a string, PGlite's as a number. */
  seq: string | number;
  status: string;
  created_at: Date;
  delivered_at: Date | null;
  type: string;
  attempts: { attempt: number; at: string; response_status: number | null; error: string | null; duration_ms: number; manual: boolean }[];
}

/** A webhook's deliveries, newest first, each with its attempts (oldest first). */
export function listDeliveries(db: Q, webhookId: string, page: { before?: number | undefined; limit: number; id?: string }) {
  let q = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.webhook_id',
      'd.event_id',
      'd.seq',
      'd.status',
      'd.created_at',
      'd.delivered_at',
      'e.type',
      sql<DeliveryRow['attempts']>`coalesce((select json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'response_status', a.response_status,
        'error', a.error, 'duration_ms', a.duration_ms, 'manual', a.manual) order by a.attempt) from webhook_attempts a where a.delivery_id = d.id), '[]'::json)`.as(
        'attempts',
      ),
    ])
    .where('d.webhook_id', '=', webhookId);
  if (page.before !== undefined) q = q.where('d.seq', '<', String(page.before));
  if (page.id !== undefined) q = q.where('d.id', '=', page.id);
  return q.orderBy('d.seq', 'desc').limit(page.limit).execute() as Promise<DeliveryRow[]>;
}

export function toDelivery(row: DeliveryRow) {
  return {
    _id: row.id,
    event: { id: row.event_id, seq: Number(row.seq), type: row.type },
    status: row.status,
    createdAt: row.created_at.toISOString(),
    ...(row.delivered_at ? { deliveredAt: row.delivered_at.toISOString() } : {}),
    attempts: row.attempts.map((a) => ({
      attempt: a.attempt,
      at: new Date(a.at).toISOString(),
      ...(a.response_status !== null ? { responseStatus: a.response_status } : {}),
      ...(a.error !== null ? { error: a.error } : {}),
      durationMs: a.duration_ms,
      ...(a.manual ? { manual: true } : {}),
    })),
  };
}

export interface AttemptTarget {
  id: string;
  status: string;
  seq: string | number;
  webhook_id: string;
  url: string;
  secret: string;
  /** The event delivered, with its columns prefixed where they clash with the delivery's. */
  e_id: string;
  project_id: string;
  e_seq: string | number;
  type: string;
  actor_kind: string;
  actor_id: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

/** A delivery with its webhook's address and secret and its event, for one attempt. */
export function findDeliveryForAttempt(db: Q, deliveryId: string): Promise<AttemptTarget | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.status',
      'd.seq',
      'd.webhook_id',
      'w.url',
      'w.secret',
      'e.id as e_id',
      'e.project_id',
      'e.seq as e_seq',
      'e.type',
      'e.actor_kind',
      'e.actor_id',
      'e.data',
      'e.created_at',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

/** A pending delivery of the webhook before `seq`, if any: while there is one, a later delivery waits its turn. */
export function findEarlierPending(db: Q, webhookId: string, seq: string | number): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .where('seq', '<', seq)
    .executeTakeFirst();
}

/** Records one attempt, numbered after the delivery's earlier ones. */
export async function insertAttempt(
  db: Q,
  a: { deliveryId: string; at: Date; responseStatus: number | null; error: string | null; durationMs: number; manual: boolean },
): Promise<void> {
  await sql`
      insert into webhook_attempts (delivery_id, attempt, at, response_status, error, duration_ms, manual)
      select ${a.deliveryId}, coalesce(max(attempt), 0) + 1, ${a.at}, ${a.responseStatus}, ${a.error}, ${a.durationMs}, ${a.manual}
      from webhook_attempts where delivery_id = ${a.deliveryId}`.execute(db);
}

/** The webhook and place in its order of a delivery. */
export function findDeliveryTurn(db: Q, deliveryId: string): Promise<{ webhook_id: string; seq: string | number } | undefined> {
  return db.selectFrom('webhook_deliveries').select(['webhook_id', 'seq']).where('id', '=', deliveryId).executeTakeFirst();
}

/** Locks the webhook's row until the transaction ends: hand-overs of its turn and appended events take it in order. */
export async function lockWebhook(db: Q, webhookId: string): Promise<void> {
  await sql`select id from webhooks where id = ${webhookId} for update`.execute(db);
}

/** Marks a pending delivery delivered (at `at`) or failed; false when it was no longer pending. */
export async function settleDelivery(db: Q, deliveryId: string, status: 'delivered' | 'failed', at: Date): Promise<boolean> {
  const settled = await db
    .updateTable('webhook_deliveries')
    .set({ status, ...(status === 'delivered' ? { delivered_at: at } : {}) })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(settled.numUpdatedRows) === 1;
}

/** The webhook's oldest pending delivery: the one whose turn it is. */
export function findHeadPending(db: Q, webhookId: string): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
}
