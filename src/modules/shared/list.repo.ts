import { sql, type SelectQueryBuilder } from 'kysely';
import type { Principal } from '../../http/auth.ts';
import { sortOf, totalOf, windowTotal } from './list.ts';

export interface VisiblePage {
  skip: number;
  limit: number;
  /** One of SORTS. */
  sort: string;
  updatedSince?: string | undefined;
}

/** What decides a visible list's statement text: the caller's reach, the `updatedSince` filter, the sort. */
export interface VisibleShape {
  all: boolean;
  since: boolean;
  sort: string;
}

/** The values a visible list's statement takes (placeholders while it is built). */
export interface VisibleValues {
  me: string;
  since: Date | undefined;
  skip: number;
  limit: number;
  [name: string]: unknown;
}

export function visibleShape(principal: Principal, page: VisiblePage): VisibleShape {
  return { all: principal.role === 'admin', since: Boolean(page.updatedSince), sort: page.sort };
}

export function visibleValues(principal: Principal, page: VisiblePage): VisibleValues {
  return { me: principal.id, since: page.updatedSince ? new Date(page.updatedSince) : undefined, skip: page.skip, limit: page.limit };
}

/**
 * The one list of records the caller can see (projects, groups): owned, administered or edited by the caller (a
 * platform administrator sees all), changed at or after `updatedSince`, sorted from the whitelist with `_id` breaking
 * ties so pages are stable, with the count before paging. `q` selects the record's columns from the table as `alias`,
 * with any filters of its own. Built once per shape (`namedStatement` in db/prepared.ts), so the values here are placeholders.
 */
export function visibleList<DB, TB extends keyof DB, O>(q: SelectQueryBuilder<DB, TB, O>, alias: string, shape: VisibleShape, v: VisibleValues) {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  if (!shape.all) {
    const me = sql`array[${v.me}]::char(24)[]`;
    q = q.where(sql<boolean>`(${col('user_id')} = ${v.me} or ${col('administrators')} @> ${me} or ${col('editors')} @> ${me})`);
  }
  if (shape.since) q = q.where(sql<boolean>`${col('updated_at')} >= ${v.since}`);
  const { column, direction } = sortOf(shape.sort, { name: col('name'), createdAt: col('created_at'), updatedAt: col('updated_at') });
  return q.select(windowTotal).orderBy(column, direction).orderBy(col('id'), direction).offset(v.skip).limit(v.limit);
}

/** A page of a visible list and its count: past the last page, the count is asked again from the start. */
export async function pageWithTotal<R extends { total?: unknown }>(run: (skip: number, limit: number) => Promise<R[]>, page: VisiblePage) {
  const rows = await run(page.skip, page.limit);
  const total = await totalOf(rows, page.skip, () => run(0, 1));
  return { rows, total };
}
