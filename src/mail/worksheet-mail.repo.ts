import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

type Q = Kysely<Database>;

/** The e-mail addresses of a project's owner and administrators (active accounts), who decide its worksheets. */
export async function findManagerEmails(db: Q, projectId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('projects as p')
    .innerJoin('users as u', (j) => j.on(sql<boolean>`(u.id = p.user_id or p.administrators @> array[u.id]::char(24)[])`))
    .select('u.username')
    .where('p.id', '=', projectId)
    .where('u.deactivated_at', 'is', null)
    .orderBy('u.username')
    .execute();
  return rows.map((r) => r.username);
}

/** The names of these units of the project. */
export function findUnitNamesOf(db: Q, projectId: string, ids: string[]): Promise<{ id: string; name: string }[]> {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('units').select(['id', 'name']).where('project_id', '=', projectId).where('id', 'in', ids).execute();
}
