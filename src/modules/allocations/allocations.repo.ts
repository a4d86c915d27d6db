import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

/** How an allocation's password is keyed among a project's sealed secrets (the same key as projects.repo.ts). */
const sealKey = (name: string) => `allocation:${name}`;

export interface AllocatedUnit {
  unit_id: string;
  /** The allocation the unit belongs to: the first in the project's `allocations` that lists it. */
  allocation: string;
}

/**
 * The units of a project that belong to an allocation now: listed (by id or name) in an allocation with a name,
 * and neither sold nor reserved (a unit belongs to its allocation until it is sold, reserved or taken off).
 * A unit listed by two allocations belongs to the first. `anyStatus`: every listed unit, whatever its availability
 * now (the live feed masks past `available` values, when the unit was free and so allocated).
 */
export async function listAllocatedUnits(db: Q, projectId: string, opts: { anyStatus?: boolean } = {}): Promise<AllocatedUnit[]> {
  const free = opts.anyStatus ? sql`true` : sql`u.availability not in ('sold', 'reserved')`;
  const rows = await sql<AllocatedUnit>`
    select distinct on (u.id) u.id as unit_id, a.value->>'name' as allocation
    from projects p
    cross join lateral jsonb_array_elements(
      case when jsonb_typeof(p.data->'allocations') = 'array' then p.data->'allocations' else '[]'::jsonb end
    ) with ordinality as a(value, ord)
    cross join lateral regexp_split_to_table(coalesce(a.value->>'allocation', ''), ',') as t(item)
    join units u on u.project_id = p.id and (u.id = btrim(t.item) or u.name = btrim(t.item))
    where p.id = ${projectId} and coalesce(a.value->>'name', '') <> '' and btrim(t.item) <> ''
      and ${free}
    order by u.id, a.ord`.execute(db);
  return rows.rows;
}

/** The allocation a unit belongs to now, if any (the one-unit form of listAllocatedUnits). */
export async function findUnitAllocation(db: Q, projectId: string, unitId: string): Promise<string | undefined> {
  const all = await listAllocatedUnits(db, projectId);
  return all.find((a) => a.unit_id === unitId)?.allocation;
}

export interface AllocationDoor {
  id: string;
  /** Every named allocation with its sealed password (null when none is set). */
  allocations: { name: string; seal: string | null }[];
}

/** What opening an allocation compares against: the project by namespace, its allocations' names and sealed passwords. */
export async function findAllocationDoor(db: Q, namespace: string): Promise<AllocationDoor | undefined> {
  const row = await db.selectFrom('projects').select(['id', 'data', 'secrets']).where('namespace', '=', namespace).executeTakeFirst();
  if (!row) return undefined;
  const list = Array.isArray(row.data.allocations) ? (row.data.allocations as { name?: unknown }[]) : [];
  const secrets = row.secrets;
  const allocations = list
    .filter((a): a is { name: string } => typeof a.name === 'string' && a.name !== '')
    .map((a) => ({ name: a.name, seal: secrets[sealKey(a.name)] ?? null }));
  return { id: row.id, allocations };
}

/** The sealed password an allocation has now (undefined once it is removed or its password cleared). */
export async function findAllocationSeal(db: Q, projectId: string, name: string): Promise<string | undefined> {
  const row = await sql<{ seal: string | null }>`select secrets->>${sealKey(name)} as seal from projects where id = ${projectId}`.execute(db);
  return row.rows[0]?.seal ?? undefined;
}
