import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

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

export function updateWebhook(db: Q, id: string, set: Partial<{ url: string; events: string[]; description: string | null }>) {
  return db
    .updateTable('webhooks')
    .set({ ...set, version: sql`version + 1`, updated_at: sql`now()` })
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow() as Promise<WebhookRow>;
}

export async function deleteWebhook(db: Q, id: string) {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  seq: string;
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
