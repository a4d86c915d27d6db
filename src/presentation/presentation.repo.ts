import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { publishedSql } from '../modules/projects/drafts.ts';
import { UNIT_COLUMNS } from '../modules/units/units.repo.ts';
import { type UnitRow } from '../modules/units/units.record.ts';
import { unitFreeSql } from '../modules/holds/hold-rules.ts';

type Q = Kysely<Database>;

/** One unit of a project (undefined when the unit is another project's). */
export function findProjectUnit(db: Q, projectId: string, unitId: string): Promise<UnitRow | undefined> {
  return db.selectFrom('units as u').select(UNIT_COLUMNS).where('u.id', '=', unitId).where('u.project_id', '=', projectId).executeTakeFirst();
}

/** The project's owner's display preferences (`preferences` of the user record: hideBrandingIcon, hideLoadingLogo). */
export async function findOwnerPreferences(db: Q, projectId: string): Promise<Record<string, unknown>> {
  const row = await db
    .selectFrom('projects as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(sql<Record<string, unknown> | null>`u.profile -> 'preferences'`.as('preferences'))
    .where('p.id', '=', projectId)
    .executeTakeFirst();
  return row?.preferences ?? {};
}

/** A group's page record: its name and settings, with its owner's display preferences (as `findOwnerPreferences`). */
export interface GroupPageRow {
  id: string;
  name: string;
  data: Record<string, unknown>;
  preferences: Record<string, unknown> | null;
}

function groupPageQuery(db: Q) {
  return db
    .selectFrom('groups as g')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .select(['g.id', 'g.name', 'g.data', sql<Record<string, unknown> | null>`u.profile -> 'preferences'`.as('preferences')]);
}

export function findGroupByNamespace(db: Q, namespace: string): Promise<GroupPageRow | undefined> {
  return groupPageQuery(db).where('g.namespace', '=', namespace).executeTakeFirst();
}

/** The group whose `hostName` is this host (any case). */
export function findGroupByHost(db: Q, hostName: string): Promise<GroupPageRow | undefined> {
  return groupPageQuery(db)
    .where(sql`lower(g.host_name)`, '=', hostName.toLowerCase())
    .executeTakeFirst();
}

/**
 * A unit that is a home: its `specificType` empty, absent or `unit` (any case). Amenities, parking and storage are
 * never counted as homes (available counts, lowest prices); the page's twin is `isHome` in web/counting.ts.
 */
const homeSql = (alias: string) => sql<boolean>`lower(coalesce(nullif(trim(${sql.ref(`${alias}.data`)}->>'specificType'), ''), 'unit')) in ('unit', 'units')`;

export interface GroupCardRow {
  name: string;
  namespace: string;
  data: Record<string, unknown>;
  /** Homes available, or on a hold that has lapsed (as the bundle shows them); amenities, parking and storage are no homes. */
  available: number;
  /** The lowest numeric price among those units, as numeric text; null when none has one. */
  lowest: string | null;
}

/** A group's public projects in the group's order (those with a namespace, published, not in preview), with their free units' count and lowest price. */
export function listGroupCards(db: Q, groupId: string, now: number): Promise<GroupCardRow[]> {
  const free = sql<boolean>`${unitFreeSql(now, 'u')} and ${homeSql('u')}`;
  return db
    .selectFrom('group_projects as gp')
    .innerJoin('projects as p', 'p.id', 'gp.project_id')
    .select([
      'p.name',
      'p.namespace',
      'p.data',
      sql<number>`(select count(*)::int from units u where u.project_id = p.id and ${free})`.as('available'),
      sql<
        string | null
      >`(select min((u.data->>'price')::numeric) from units u where u.project_id = p.id and ${free} and jsonb_typeof(u.data->'price') = 'number' and coalesce(u.data->>'unitPriceTBD', 'false') <> 'true')`.as(
        'lowest',
      ),
    ])
    .where('gp.group_id', '=', groupId)
    .where('p.namespace', 'is not', null)
    .$narrowType<{ namespace: string }>()
    .where(sql<boolean>`coalesce(p.data->>'previewMode', 'false') <> 'true'`)
    .where(publishedSql('p'))
    .orderBy('gp.position')
    .execute();
}
