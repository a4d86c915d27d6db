import type { EventType } from './events.schemas.ts';

/**
 * What an event is made of, with no SQL: who acted, what changed, the shapes the log appends and answers. Every
 * module that writes records its changes with these; the log's statements are in events.repo.ts.
 */

// The list of types and who may see each live in events.schemas.ts (one table); here for the modules that read them with the log.
export { EVENT_TYPES, type EventType } from './events.schemas.ts';

/** Events about people (buyers' names, e-mails and phones): only for those who may read leads. */
export const PERSONAL_EVENT_TYPES: readonly EventType[] = ['lead.created', 'lead.updated', 'worksheet.submitted', 'worksheet.accepted', 'worksheet.declined'];

/** Who made a change: a signed-in user, an anonymous visitor, a feed/import, or the service itself (hold expiry). */
export interface Actor {
  kind: 'user' | 'public' | 'sync' | 'system';
  id?: string;
}
export const actorOf = (principal: { id: string }): Actor => ({ kind: 'user', id: principal.id });
export const SYSTEM: Actor = { kind: 'system' };
export const PUBLIC: Actor = { kind: 'public' };

/** field → [before, after]; null stands for "absent". */
export type Changes = Record<string, [unknown, unknown]>;

/** Stands in for a secret's value in `changes`: the field is named, its value never appears. */
export const SECRET_MARK = '***';

/** The channel every node LISTENs on; the payload is `<projectId>:<seq>`. */
export const EVENTS_CHANNEL = 'showsuite_events';

export interface NewEvent {
  projectId: string;
  type: EventType;
  actor: Actor;
  subjectId: string;
  changes?: Changes | undefined;
  /** One id shared by the events of one bulk write (a bulk PATCH, an import): what a client reverts as one. */
  batch?: string | undefined;
  now: number;
}

/** An event as written, for what follows it in the same transaction (its webhook deliveries). */
export interface AppendedEvent {
  id: string;
  seq: number;
  type: EventType;
}

/** `changes` of a created record: every field from absent to its value. */
export function createdChanges(record: Record<string, unknown>, skip: readonly string[] = ['_id', 'createdAt', 'updatedAt']): Changes {
  const out: Changes = {};
  for (const [k, v] of Object.entries(record)) if (v !== undefined && !skip.includes(k)) out[k] = [null, v];
  return out;
}

/** `changes` of an update: each changed field's value before and after. */
export function updatedChanges(before: Record<string, unknown>, changed: Record<string, unknown>): Changes {
  const out: Changes = {};
  for (const [k, v] of Object.entries(changed)) if (v !== undefined) out[k] = [before[k] ?? null, v];
  return out;
}

/** Change keys that say nothing of a person: kept when an event about a buyer is redacted. */
export const IMPERSONAL_CHANGE_KEYS = ['status', 'assignee', 'unit', 'source', 'rank', 'offeredAt', 'availability', 'choices', 'allocation'];
