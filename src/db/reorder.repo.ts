import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.ts';
import { versionBumpSql } from './versioned.repo.ts';

/** The ordered children the server keeps: floors of a project, units of a floor. Identifiers come only from here. */
const CHILDREN = {
  floors: { table: 'floors', parent: 'project_id' },
  units: { table: 'units', parent: 'floor_id' },
} as const;

/**
 * The order of ordered children, as `reorderChildren` keeps it: by `position`, ties by id. Every read of a parent's
 * children in order (`project.floors`, `floor.units`, a floor page, the public bundle, an import) sorts by this.
 */
export const childOrderText = (alias?: string): string => (alias ? `${alias}.position, ${alias}.id` : 'position, id');

/** `childOrderText` for a Kysely `orderBy` or a raw statement. */
export const childOrderSql = (alias?: string): RawBuilder<unknown> => sql.raw(childOrderText(alias));

/** `childOrderText` in TypeScript, for children already read: a comparator for `Array#sort`. */
export function byChildOrder(a: { position: number; id: string }, b: { position: number; id: string }): number {
  return a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Rewrites the children's `position`s to follow `order` (0, 1, 2, …); children not listed keep their relative
 * order after them. One statement; rows whose position does not change are not touched.
 */
export async function reorderChildren(db: Kysely<Database>, kind: keyof typeof CHILDREN, parentId: string, order: string[], at: number | Date) {
  const { table, parent } = CHILDREN[kind];
  const t = sql.table(table);
  const p = sql.ref(`c.${parent}`);
  await sql`
    with wanted as (select id, ord from unnest(${sql.val(order)}::text[]) with ordinality as w(id, ord)),
    ranked as (
      select c.id, row_number() over (order by w.ord nulls last, ${childOrderSql('c')}) - 1 as pos
      from ${t} c left join wanted w on w.id = c.id where ${p} = ${parentId}
    )
    update ${t} c set position = r.pos, ${versionBumpSql(at, 'c')}
    from ranked r where c.id = r.id and c.position is distinct from r.pos::double precision`.execute(db);
}
