import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

type Q = Kysely<Database>;

/** The project's name and settings, for its lead mail. */
export function findMailProject(db: Q, projectId: string): Promise<{ name: string; data: Record<string, unknown> } | undefined> {
  return db.selectFrom('projects').select(['name', 'data']).where('id', '=', projectId).executeTakeFirst();
}

/** The name of a unit of the project (undefined when it is not one of its units). */
export async function findUnitName(db: Q, projectId: string, unitId: string): Promise<string | undefined> {
  const unit = await db.selectFrom('units').select('name').where('id', '=', unitId).where('project_id', '=', projectId).executeTakeFirst();
  return unit?.name;
}

/** The company of the project's owner (their profile's companyName), which signs the project's mail; undefined when none. */
export async function findProjectSignature(db: Q, projectId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('projects as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(sql<string | null>`u.profile->>'companyName'`.as('company'))
    .where('p.id', '=', projectId)
    .executeTakeFirst();
  const company = row?.company?.trim();
  return company ? company : undefined;
}
