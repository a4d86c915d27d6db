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

/**
 * The one list of records the caller can see (projects, groups): owned, administered or edited by the caller (a
 * platform administrator sees all), changed at or after `updatedSince`, sorted from the whitelist with `_id` breaking
 * ties so pages are stable, with the count before paging. `q` selects the record's columns from the table as `alias`,
 * with any filters of its own.
 */
export async function listVisible<DB, TB extends keyof DB, O>(
  q: SelectQueryBuilder<DB, TB, O>,
  alias: string,
  principal: Principal,
  page: VisiblePage,
): Promise<{ rows: O[]; total: number }> {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  if (principal.role !== 'admin') {
    const me = sql`array[${principal.id}]::char(24)[]`;
    q = q.where(sql<boolean>`(${col('user_id')} = ${principal.id} or ${col('administrators')} @> ${me} or ${col('editors')} @> ${me})`);
  }
  if (page.updatedSince) q = q.where(sql<boolean>`${col('updated_at')} >= ${new Date(page.updatedSince)}`);
  const { column, direction } = sortOf(page.sort, { name: col('name'), createdAt: col('created_at'), updatedAt: col('updated_at') });
  const paged = (skip: number, limit: number) =>
    q.select(windowTotal).orderBy(column, direction).orderBy(col('id'), direction).offset(skip).limit(limit).execute();
  const rows = await paged(page.skip, page.limit);
  // Past the last page the window count has no row to ride on; count again from the start so the header stays truthful.
  const total = await totalOf(rows, page.skip, () => paged(0, 1));
  return { rows, total };
}
