import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

/** An uploaded file's address inside a record's JSON text (relative or absolute, with or without `?w=`). */
const MEDIA_REF = String.raw`/media/([0-9a-f]{32}\.(?:png|jpg|webp|svg|pdf))`;

/** True once per interval across all nodes: the node that gets it runs the orphan sweep. */
export async function claimMediaSweep(db: Q, now: Date, intervalMs: number): Promise<boolean> {
  const due = new Date(now.getTime() - intervalMs);
  const r = await sql<{ id: number }>`
    insert into media_sweep_claims as c (id, claimed_at) values (1, ${now})
    on conflict (id) do update set claimed_at = excluded.claimed_at where c.claimed_at <= ${due}
    returning c.id`.execute(db);
  return r.rows.length === 1;
}

/** Every stored file name that a project, floor, unit or group document refers to. */
export async function referencedMediaNames(db: Q): Promise<Set<string>> {
  const r = await sql<{ name: string }>`
    select distinct m[1] as name from (
      select regexp_matches(data::text, ${MEDIA_REF}, 'g') as m from projects
      union all select regexp_matches(data::text, ${MEDIA_REF}, 'g') from floors
      union all select regexp_matches(data::text, ${MEDIA_REF}, 'g') from units
      union all select regexp_matches(data::text, ${MEDIA_REF}, 'g') from groups
    ) refs`.execute(db);
  return new Set(r.rows.map((row) => row.name));
}

/**
 * Records `now` as the moment each of `names` was found unreferenced (kept when already recorded), forgets every
 * other name (referred to again, or gone), and returns the names unreferenced since `cutoff` or earlier.
 */
export async function markOrphans(db: Q, names: string[], now: Date, cutoff: Date): Promise<string[]> {
  const r = await sql<{ name: string }>`
    with forgotten as (delete from media_orphans where not (name = any(${sql.val(names)}::text[]))),
    added as (
      insert into media_orphans (name, since) select n, ${now} from unnest(${sql.val(names)}::text[]) as n
      on conflict (name) do nothing
    )
    select name from media_orphans where name = any(${sql.val(names)}::text[]) and since <= ${cutoff}`.execute(db);
  return r.rows.map((row) => row.name);
}

/** Forgets that these files were unreferenced: deleted, or uploaded again. */
export async function forgetOrphans(db: Q, names: string[]): Promise<void> {
  await sql`delete from media_orphans where name = any(${sql.val(names)}::text[])`.execute(db);
}
