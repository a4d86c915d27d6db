import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { newObjectId } from '../../lib/object-id.ts';
import type { EventType } from './events.schemas.ts';
import { EVENTS_CHANNEL, IMPERSONAL_CHANGE_KEYS, PERSONAL_EVENT_TYPES, type AppendedEvent, type NewEvent } from './event-model.ts';

type Q = Kysely<Database>;

/** An event's `data`: the record it is about, what changed, and the bulk write it was part of. */
const eventData = (e: Pick<NewEvent, 'subjectId' | 'changes' | 'batch'>) => ({
  _id: e.subjectId,
  ...(e.changes && Object.keys(e.changes).length ? { changes: e.changes } : {}),
  ...(e.batch ? { batch: e.batch } : {}),
});

export interface EventRow {
  id: string;
  project_id: string;
  seq: string | number;
  type: string;
  actor_kind: string;
  actor_id: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

/** Whether the project has a webhook (so its events may have deliveries), read in the append's own statement when asked. */
const hookedSql = (projectId: string, ask: boolean) =>
  ask ? sql<boolean>`exists (select 1 from webhooks w where w.project_id = ${projectId})` : sql<boolean>`false`;

/**
 * Appends one event inside the caller's transaction, in one statement: takes the project's next `seq` from its
 * counter row (locking it until commit, so one project's writers take turns and numbers follow commit order),
 * writes the event and queues a NOTIFY, which PostgreSQL delivers to every listening node only on commit.
 * With `hooked` asked, it also reads whether the project has a webhook: most have none, and their append is this
 * one statement. Call it last in the transaction, after the rows it describes are written.
 */
export async function appendEvent(trx: Q, e: NewEvent, opts: { hooked: boolean } = { hooked: false }): Promise<{ event: AppendedEvent; hooked: boolean }> {
  const data = JSON.stringify(eventData(e));
  const id = newObjectId(e.now);
  const r = await sql<{ seq: string; hooked: boolean }>`
    with c as (
      insert into project_event_counters as pc (project_id, last_seq) values (${e.projectId}, 1)
      on conflict (project_id) do update set last_seq = pc.last_seq + 1
      returning last_seq
    ), e as (
      insert into events (id, project_id, seq, type, subject_id, actor_kind, actor_id, data, created_at)
      select ${id}, ${e.projectId}, c.last_seq, ${e.type}, ${e.subjectId}, ${e.actor.kind}, ${e.actor.id ?? null}, ${data}::jsonb, ${new Date(e.now)}
      from c
      returning seq
    )
    select e.seq, ${hookedSql(e.projectId, opts.hooked)} as hooked, pg_notify(${EVENTS_CHANNEL}, ${e.projectId} || ':' || e.seq) from e`.execute(trx);
  const row = r.rows[0];
  if (!row) throw new Error('appendEvent: no row');
  return { event: { id, seq: Number(row.seq), type: e.type }, hooked: row.hooked };
}

/** The most events appendEvents writes in one statement: keeps one statement's parameters and JSON to a sensible size. */
export const APPEND_BATCH = 1000;

/**
 * Appends up to `APPEND_BATCH` events of one project inside the caller's transaction, in the given order, with
 * consecutive seqs, in one statement: what appendEvent does for each (counter row, events) and one NOTIFY naming
 * the last seq (a listener reads everything after what it has). For writes that change many records at once (bulk
 * PATCH, imports); call it last in the transaction, like appendEvent.
 */
export async function appendEvents(
  trx: Q,
  projectId: string,
  batch: readonly Omit<NewEvent, 'projectId'>[],
  opts: { hooked: boolean } = { hooked: false },
): Promise<{ events: AppendedEvent[]; hooked: boolean }> {
  if (batch.length > APPEND_BATCH) throw new Error(`appendEvents: ${batch.length} events in one statement (at most ${APPEND_BATCH})`);
  const n = batch.length;
  const rows = batch.map((e, ord) => ({
    ord: ord + 1,
    id: newObjectId(e.now),
    type: e.type,
    subject_id: e.subjectId,
    actor_kind: e.actor.kind,
    actor_id: e.actor.id ?? null,
    created_at: new Date(e.now).toISOString(),
    data: eventData(e),
  }));
  const r = await sql<{ last: string; hooked: boolean }>`
    with c as (
      insert into project_event_counters as pc (project_id, last_seq) values (${projectId}, ${n})
      on conflict (project_id) do update set last_seq = pc.last_seq + ${n}
      returning last_seq
    ), i as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as i(ord integer, id text, type text, subject_id text, actor_kind text, actor_id text, created_at timestamptz, data jsonb)
    ), e as (
      insert into events (id, project_id, seq, type, subject_id, actor_kind, actor_id, data, created_at)
      select i.id, ${projectId}, c.last_seq - ${n} + i.ord, i.type, i.subject_id, i.actor_kind, i.actor_id, i.data, i.created_at
      from i, c
    )
    select c.last_seq as last, ${hookedSql(projectId, opts.hooked)} as hooked, pg_notify(${EVENTS_CHANNEL}, ${projectId} || ':' || c.last_seq) from c`.execute(
    trx,
  );
  const row = r.rows[0];
  if (!row) throw new Error('appendEvents: no row');
  const first = Number(row.last) - n + 1;
  return { events: rows.map((e, k) => ({ id: e.id, seq: first + k, type: e.type })), hooked: row.hooked };
}

const COLUMNS = ['id', 'project_id', 'seq', 'type', 'actor_kind', 'actor_id', 'data', 'created_at'] as const;

/** The event as the API shows it. */
export function toEvent(row: EventRow) {
  return {
    id: row.id,
    seq: Number(row.seq),
    type: row.type,
    projectId: row.project_id,
    createdAt: row.created_at.toISOString(),
    actor: { kind: row.actor_kind, ...(row.actor_id ? { id: row.actor_id } : {}) },
    data: row.data,
  };
}

/** A project's events after `after`, oldest first; lead events only when asked for. */
export function listEvents(db: Q, projectId: string, opts: { after: number; limit: number; withLeads: boolean; types?: readonly string[] }) {
  let q = db.selectFrom('events').select(COLUMNS).where('project_id', '=', projectId).where('seq', '>', String(opts.after));
  if (!opts.withLeads) q = q.where('type', 'not in', PERSONAL_EVENT_TYPES as EventType[]);
  if (opts.types) q = q.where('type', 'in', opts.types as string[]);
  return q.orderBy('seq').limit(opts.limit).execute() as Promise<EventRow[]>;
}

/** One record's events, newest first. */
export function listSubjectEvents(db: Q, subjectId: string, opts: { before?: number | undefined; limit: number }) {
  let q = db.selectFrom('events').select(COLUMNS).where('subject_id', '=', subjectId);
  if (opts.before !== undefined) q = q.where('seq', '<', String(opts.before));
  return q.orderBy('seq', 'desc').limit(opts.limit).execute() as Promise<EventRow[]>;
}

/** The project's last seq (0 before its first event). */
export async function lastSeq(db: Q, projectId: string): Promise<number> {
  const row = await db.selectFrom('project_event_counters').select('last_seq').where('project_id', '=', projectId).executeTakeFirst();
  return row ? Number(row.last_seq) : 0;
}

/**
 * Redacts events about these leads or worksheets in place: their `changes` keep only the impersonal keys (status,
 * assignee, unit…), so the log keeps its sequence and a pending webhook delivery sends the redacted event.
 */
export async function redactPersonalEvents(db: Q, subjectIds: string[]): Promise<number> {
  if (!subjectIds.length) return 0;
  const result = await sql`
    update events e set data = (e.data - 'changes') || coalesce((
      select jsonb_build_object('changes', jsonb_object_agg(c.key, c.value))
      from jsonb_each(e.data->'changes') c where c.key = any(${IMPERSONAL_CHANGE_KEYS}::text[])
      having count(*) > 0), '{}'::jsonb)
    where e.subject_id = any(${subjectIds}::text[]) and e.type = any(${[...PERSONAL_EVENT_TYPES]}::text[]) and e.data ? 'changes'`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
