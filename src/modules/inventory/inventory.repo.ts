import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database, InventorySyncsTable } from '../../db/schema.ts';
import { UNIT_COLUMNS } from '../units/units.repo.ts';
import type { UnitRow } from '../units/units.record.ts';

/** Where an import's rows came from: a file uploaded, the FTP/SFTP feed, or RENTCafé. */
export type SyncSource = InventorySyncsTable['source'];
import type { FloorState, InventoryState } from './import.plan.ts';
import { childOrderSql } from '../../db/reorder.repo.ts';

type Q = Kysely<Database>;

/**
 * The project's floors and units as an import sees them. With `lock`, inside the import's transaction, the rows
 * are locked until it commits: no hold, PATCH or other import changes them between the plan and its writes.
 */
export async function loadInventory(db: Q, projectId: string, lock: boolean): Promise<InventoryState> {
  let fq = db.selectFrom('floors').select(['id', 'name', 'position', 'version']).where('project_id', '=', projectId).orderBy(childOrderSql());
  let uq = db.selectFrom('units as u').select(UNIT_COLUMNS).where('u.project_id', '=', projectId).orderBy('u.floor_id').orderBy(childOrderSql('u'));
  if (lock) {
    fq = fq.forUpdate();
    uq = uq.forUpdate();
  }
  const floors: FloorState[] = await fq.execute();
  const units: UnitRow[] = await uq.execute();
  return { floors, units };
}

/** A digest of every floor's and unit's id and version: it changes when any of them is created, changed or deleted. */
export function inventoryEtag(state: InventoryState): string {
  const hash = createHash('sha256');
  for (const id of state.floors.map((f) => `f${f.id}:${f.version}`).sort()) hash.update(id + ',');
  for (const id of state.units.map((u) => `u${u.id}:${u.version}`).sort()) hash.update(id + ',');
  return `"inv-${hash.digest('base64url').slice(0, 22)}"`;
}

/** Locks the project row: imports of one project take turns (and its `lastSync` is written by one at a time). */
export async function lockProject(db: Q, projectId: string) {
  return db.selectFrom('projects').select(['id']).where('id', '=', projectId).forUpdate().executeTakeFirst();
}

export interface SyncRecord {
  id: string;
  projectId: string;
  source: SyncSource;
  status: 'applied' | 'failed';
  startedAt: Date;
  finishedAt: Date;
  summary: Record<string, unknown>;
  errors: unknown[];
  userId: string | null;
}

export async function insertSync(db: Q, s: SyncRecord) {
  await db
    .insertInto('inventory_syncs')
    .values({
      id: s.id,
      project_id: s.projectId,
      source: s.source,
      status: s.status,
      started_at: s.startedAt,
      finished_at: s.finishedAt,
      summary: JSON.stringify(s.summary),
      errors: JSON.stringify(s.errors),
      user_id: s.userId,
    })
    .execute();
}

/** Newest first; `_id` breaks ties. */
export function listSyncs(db: Q, projectId: string, page: { skip: number; limit: number }) {
  return db
    .selectFrom('inventory_syncs')
    .select(['id', 'source', 'status', 'started_at', 'finished_at', 'summary', 'errors', 'user_id', sql<number | string>`count(*) over()`.as('total')])
    .where('project_id', '=', projectId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .offset(page.skip)
    .limit(page.limit)
    .execute();
}

/** Projects with a feed address: the schedule's work list. */
export async function feedProjectIds(db: Q): Promise<string[]> {
  const rows = await db
    .selectFrom('projects')
    .select('id')
    .where(sql<boolean>`coalesce(data->>'ftpUrl', '') <> ''`)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Projects whose RENTCafé credentials are all set (the token sealed): the schedule's other work list. */
export async function rentcafeProjectIds(db: Q): Promise<string[]> {
  const rows = await db
    .selectFrom('projects')
    .select('id')
    .where(
      sql<boolean>`coalesce(data->>'yiCompanyCode', '') <> '' and coalesce(data->>'yiPropertyCode', '') <> '' and coalesce(secrets->>'yiApiToken', '') <> ''`,
    )
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Claims this interval's pull of one project's feed (or RENTCafé), for this node: one conditional upsert, so of any
 * number of nodes asking at once exactly one gets `true` per project, source and interval. The claim row is the
 * schedule's last-run record.
 */
export async function claimFeedPull(db: Q, projectId: string, source: Exclude<SyncSource, 'upload'>, now: Date, intervalMs: number): Promise<boolean> {
  const due = new Date(now.getTime() - intervalMs);
  const r = await sql<{ project_id: string }>`
    insert into inventory_feed_claims as c (project_id, source, claimed_at) values (${projectId}, ${source}, ${now})
    on conflict (project_id, source) do update set claimed_at = excluded.claimed_at where c.claimed_at <= ${due}
    returning c.project_id`.execute(db);
  return r.rows.length === 1;
}
