import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { UNIT_COLUMNS } from '../modules/units/units.repo.ts';
import { type UnitRow } from '../modules/units/units.record.ts';
import { holdLapsedSql } from '../modules/holds/hold-rules.ts';
import { childOrderSql } from '../db/reorder.repo.ts';

type Q = Kysely<Database>;

export interface BundleHead {
  id: string;
  name: string;
  namespace: string | null;
  host_name: string | null;
  project_type: string | null;
  data: Record<string, unknown>;
  content_version: number;
  /** Holds on this project whose time has passed but that are not yet written back. */
  lapsed: number;
  /** The owner's Stripe account can take charges (their profile's paymentsOnboardingDone). */
  owner_payments: boolean;
}

/** One cheap query: enough to answer a revalidation (304) without loading floors and units. */
export async function findBundleHead(db: Q, by: { namespace: string } | { hostName: string }, now: number): Promise<BundleHead | undefined> {
  const lapsed = sql<number>`(select count(*)::int from units u where u.project_id = p.id and ${holdLapsedSql(now, 'u')})`;
  const ownerPayments = sql<boolean>`coalesce((select (o.profile->>'paymentsOnboardingDone')::boolean from users o where o.id = p.user_id), false)`;
  let q = db
    .selectFrom('projects as p')
    .select([
      'p.id',
      'p.name',
      'p.namespace',
      'p.host_name',
      'p.project_type',
      'p.data',
      'p.content_version',
      lapsed.as('lapsed'),
      ownerPayments.as('owner_payments'),
    ]);
  q = 'namespace' in by ? q.where('p.namespace', '=', by.namespace) : q.where(sql`lower(p.host_name)`, '=', by.hostName.toLowerCase());
  const row = await q.executeTakeFirst();
  return row ? { ...row, content_version: Number(row.content_version) } : undefined;
}

export interface BundleFloorRow {
  id: string;
  name: string;
  position: number;
  data: Record<string, unknown>;
}

/** A project's floors in position order. */
export function listBundleFloors(db: Q, projectId: string): Promise<BundleFloorRow[]> {
  return db.selectFrom('floors').select(['id', 'name', 'position', 'data']).where('project_id', '=', projectId).orderBy(childOrderSql()).execute();
}

/** A project's units in position order. */
export function listBundleUnits(db: Q, projectId: string): Promise<UnitRow[]> {
  return db.selectFrom('units as u').select(UNIT_COLUMNS).where('u.project_id', '=', projectId).orderBy(childOrderSql('u')).execute();
}
