import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { UNIT_COLUMNS, type UnitRow } from '../units/units.repo.ts';
import type { FloorState, InventoryState } from './import.plan.ts';

type Q = Kysely<Database>;

/**
 * The project's floors and units as an import sees them. With `lock`, inside the import's transaction, the rows
 * are locked until it commits: no hold, PATCH or other import changes them between the plan and its writes.
 */
export async function loadInventory(db: Q, projectId: string, lock: boolean): Promise<InventoryState> {
  let fq = db.selectFrom('floors').select(['id', 'name', 'position', 'version']).where('project_id', '=', projectId).orderBy('position').orderBy('id');
  let uq = db.selectFrom('units as u').select(UNIT_COLUMNS).where('u.project_id', '=', projectId).orderBy('u.floor_id').orderBy('u.position').orderBy('u.id');
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

export async function insertFloors(db: Q, projectId: string, floors: { id: string; name: string; position: number }[]) {
  if (!floors.length) return;
  await db
    .insertInto('floors')
    .values(floors.map((f) => ({ id: f.id, project_id: projectId, name: f.name, position: f.position, data: '{}' })))
    .execute();
}

export interface UnitInsert {
  id: string;
  floorId: string | null;
  name: string;
  position: number;
  availability: string;
  data: Record<string, unknown>;
}

const CHUNK = 1000;

/** New units, a thousand per statement. */
export async function insertUnits(db: Q, projectId: string, units: UnitInsert[]) {
  for (let i = 0; i < units.length; i += CHUNK) {
    await db
      .insertInto('units')
      .values(
        units.slice(i, i + CHUNK).map((u) => ({
          id: u.id,
          project_id: projectId,
          floor_id: u.floorId,
          name: u.name,
          position: u.position,
          availability: u.availability,
          on_hold_expires_at: null,
          data: JSON.stringify(u.data),
        })),
      )
      .execute();
  }
}

export interface UnitSet {
  id: string;
  name?: string;
  position?: number;
  /** Present: the unit moves to this floor (null: to no floor). */
  floorId?: string | null;
  availability?: string;
  /** Present: the hold's expiry is set to this (null clears it). */
  onHoldExpiresAt?: string | null;
  /** Write only if the unit is still at this version (a bulk item's ifMatch). */
  ifVersion?: number;
  data: Record<string, unknown>;
}

/**
 * Changes many units, a thousand per statement, with the rules of a unit PATCH: only the given columns change,
 * `data` is merged field by field, leaving on_hold clears the hold, every changed unit's version goes up.
 * Returns the ids written (a unit whose `ifVersion` no longer matches is not).
 */
export async function updateUnits(db: Q, sets: UnitSet[]): Promise<Set<string>> {
  const written = new Set<string>();
  for (let i = 0; i < sets.length; i += CHUNK) {
    const rows = sets.slice(i, i + CHUNK).map((s) => ({
      id: s.id,
      name: s.name ?? null,
      position: s.position ?? null,
      move: s.floorId !== undefined,
      floor_id: s.floorId ?? null,
      availability: s.availability ?? null,
      set_hold: s.onHoldExpiresAt !== undefined,
      hold_until: s.onHoldExpiresAt ?? null,
      if_version: s.ifVersion ?? null,
      data: s.data,
    }));
    // Leaving on_hold releases the hold (as updateUnit does): a different rule from a hold's lapse (holdLapsedSql).
    const r = await sql<{ id: string }>`
      update units u set
        name = coalesce(c.name, u.name),
        position = coalesce(c.position, u.position),
        floor_id = case when c.move then c.floor_id else u.floor_id end,
        availability = coalesce(c.availability, u.availability),
        on_hold_expires_at = case when c.availability is not null and c.availability <> 'on_hold' then null
                                  when c.set_hold then c.hold_until else u.on_hold_expires_at end,
        held_by = case when c.availability is not null and c.availability <> 'on_hold' then null else u.held_by end,
        data = u.data || c.data,
        version = u.version + 1,
        updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as c(id char(24), name text, position double precision, move boolean, floor_id char(24), availability text,
             set_hold boolean, hold_until timestamptz, if_version integer, data jsonb)
      where u.id = c.id and (c.if_version is null or u.version = c.if_version)
      returning u.id`.execute(db);
    for (const row of r.rows) written.add(row.id);
  }
  return written;
}

export async function setLastSync(db: Q, projectId: string, at: string) {
  await db
    .updateTable('projects')
    .set({ data: sql`data || ${JSON.stringify({ lastSync: at })}::jsonb`, version: sql`version + 1`, updated_at: sql`now()` })
    .where('id', '=', projectId)
    .execute();
}

export interface SyncRecord {
  id: string;
  projectId: string;
  source: 'upload' | 'ftp';
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

/**
 * Claims this interval's pull of one project's feed, for this node: one conditional upsert, so of any number of
 * nodes asking at once exactly one gets `true` per interval. The claim row is the schedule's last-run record.
 */
export async function claimFeedPull(db: Q, projectId: string, now: Date, intervalMs: number): Promise<boolean> {
  const due = new Date(now.getTime() - intervalMs);
  const r = await sql<{ project_id: string }>`
    insert into inventory_feed_claims as c (project_id, claimed_at) values (${projectId}, ${now})
    on conflict (project_id) do update set claimed_at = excluded.claimed_at where c.claimed_at <= ${due}
    returning c.project_id`.execute(db);
  return r.rows.length === 1;
}
