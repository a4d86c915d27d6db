import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { publishedSql } from '../modules/projects/drafts.ts';

type Q = Kysely<Database>;

/** The published project a public form names, by id or by namespace, with its settings (a draft takes no forms). */
export function findFormProject(db: Q, by: { project: string } | { namespace: string }): Promise<{ id: string; data: Record<string, unknown> } | undefined> {
  let q = db.selectFrom('projects as p').select(['id', 'data']).where(publishedSql('p'));
  q = 'project' in by ? q.where('id', '=', by.project) : q.where('namespace', '=', by.namespace);
  return q.executeTakeFirst();
}

/** The project a namespace names and whether it is published: what a live-feed stream needs, not its settings. */
export function findProjectByNamespace(db: Q, namespace: string): Promise<{ id: string; published: boolean } | undefined> {
  return db
    .selectFrom('projects as p')
    .select(['id', publishedSql('p').as('published')])
    .where('namespace', '=', namespace)
    .executeTakeFirst();
}

export interface PublicEventRow {
  seq: string | number;
  type: string;
  data: Record<string, unknown>;
  show_prices: boolean;
  hide_sold: boolean;
  /** The availability of the unit the event is about, as stored now; null when it is gone or not a unit. */
  subject_availability: string | null;
}

/**
 * A project's events after `after` (up to `upTo`), in seq order, at most `limit`, each with whether the project shows
 * prices and hides sold units, and its unit's availability now.
 */
export function listEventsAfter(db: Q, projectId: string, after: number, upTo: number | undefined, limit: number): Promise<PublicEventRow[]> {
  let q = db
    .selectFrom('events as e')
    .innerJoin('projects as p', 'p.id', 'e.project_id')
    .leftJoin('units as u', (j) => j.onRef('u.id', '=', 'e.subject_id').onRef('u.project_id', '=', 'e.project_id'))
    .select([
      'e.seq',
      'e.type',
      'e.data',
      sql<boolean>`(p.data->'showPrices') is distinct from 'false'::jsonb`.as('show_prices'),
      sql<boolean>`(p.data->'hideSold') = 'true'::jsonb`.as('hide_sold'),
      'u.availability as subject_availability',
    ])
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
