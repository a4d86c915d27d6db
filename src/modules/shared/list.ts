import { Type } from '@sinclair/typebox';
import { sql, type RawBuilder } from 'kysely';

export const SORTS = ['name', '-name', 'createdAt', '-createdAt', 'updatedAt', '-updatedAt'] as const;

/** `options` of every list: the same paging and sort everywhere. */
export const ListOptions = Type.Object(
  {
    skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Records to skip (default 0)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Most records to return, 1–500 (default 100)' })),
    sort: Type.Optional(
      Type.Union(
        SORTS.map((s) => Type.Literal(s)),
        { description: 'Field to sort by, `-` for descending; ties break on `_id` so pages are stable' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const TotalHeader = { 'X-Total-Count': { type: 'integer', description: 'Number of matching records before skip and limit' } } as const;

export const LIST_TEXT =
  '`filters` and `options` as deep objects (`filters[updatedSince]=2026-01-01T00:00:00Z&options[limit]=10&options[sort]=-updatedAt`) or JSON text ' +
  '(`options={"limit":10}`). `options.skip` ≥ 0 (0), `options.limit` 1–500 (100), `options.sort` name, createdAt or updatedAt, `-` for descending; ' +
  'ties break on `_id`. `filters.updatedSince` keeps records changed at or after that time. `X-Total-Count` holds the count before paging.';

export const UpdatedSince = Type.String({ format: 'date-time', description: 'Only records changed at or after this time (ISO 8601)' });

export interface Page {
  skip: number;
  limit: number;
  /** One of SORTS; undefined keeps the list's natural order. */
  sort: string | undefined;
}

export function pageOf(options: { skip?: number | undefined; limit?: number | undefined; sort?: string | undefined }, limit = 100): Page {
  return { skip: options.skip ?? 0, limit: options.limit ?? limit, sort: options.sort };
}

/** The column and direction a sort names, from a whitelist of columns (identifiers never come from the request). */
export function sortOf<C>(sort: string, columns: Record<'name' | 'createdAt' | 'updatedAt', C>) {
  const desc = sort.startsWith('-');
  return { column: columns[sort.replace(/^-/, '') as 'name'], direction: desc ? ('desc' as const) : ('asc' as const) };
}

export const windowTotal = sql<number>`count(*) over()`.as('total');

/**
 * X-Total-Count: the rows carry `count(*) over()`; past the last page there is no row to carry it,
 * so `recount` asks again from the start, and the header stays truthful.
 */
export async function totalOf(rows: readonly { total?: unknown }[], skip: number, recount: () => Promise<readonly { total?: unknown }[]>) {
  if (rows.length || !skip) return Number(rows[0]?.total ?? 0);
  return Number((await recount())[0]?.total ?? 0);
}

/** A jsonb field of `data` as a number when it holds one (or a string of digits, as `bedrooms` does), else null. */
export function numericField(alias: string, field: string): RawBuilder<number | null> {
  const value = sql.ref(`${alias}.data`);
  return sql<number | null>`(case when jsonb_typeof(${value}->${field}) = 'number' then (${value}->>${field})::numeric
    when ${value}->>${field} ~ '^ *[0-9]+([.][0-9]+)? *$' then trim(${value}->>${field})::numeric end)`;
}
