import type { Ctx } from '../../context.ts';
import { reorderChildren } from '../../db/reorder.repo.ts';
import { bumpVersions } from '../../db/versioned.repo.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { actorOf, createdChanges, updatedChanges } from '../events/event-model.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { createOnce, type CreateOutcome, type CreateRequest, type Created } from '../shared/idempotent.ts';
import { pageOf, totalOf } from '../shared/list.ts';
import { changedFields, checkBodyId, childOrder, invalid, parseIfMatch, staleWrite, tagged, type Tagged } from '../shared/records.ts';
import {
  deleteFloor,
  findFloor,
  floorNamesOf,
  insertFloor,
  listFloorUnits,
  nextFloorPosition,
  pageFloors,
  toFloor,
  updateFloor,
  type FloorRow,
} from './floors.repo.ts';
import type { CopyOutlines, FloorCreate, FloorDuplicate, FloorList, FloorPatch } from './floors.schemas.ts';
import { insertUnits } from '../units/unit-writes.repo.ts';
import { UnitService } from '../units/units.service.ts';
import { matchUnits, nextFloorName, renumberUnit } from './renumber.ts';
import { planPicture } from './plan-picture.ts';
import { suggestOutlines, type Suggestion } from './outline-detect.ts';

/** Reads and writes floors: each write checks access, finds what changed and writes it with its event in one transaction. */
export class FloorService {
  constructor(private readonly ctx: Ctx) {}

  async get(principal: Principal, id: string): Promise<Tagged> {
    const { row } = authorize(principal, await findFloor(this.ctx.db.kysely, id), 'read', 'Floor');
    return tagged(toFloor(row), row.version);
  }

  /** A page of the project's floors and the count before paging. */
  async list(principal: Principal, { project, filters = {}, options = {} }: FloorList) {
    const db = this.ctx.db.kysely;
    authorize(principal, await findProjectMembership(db, project), 'read');
    const page = pageOf(options);
    const rows = await pageFloors(db, project, { ...filters, ...page });
    const total = await totalOf(rows, page.skip, () => pageFloors(db, project, { ...filters, skip: 0, limit: 1, sort: undefined }));
    return { records: rows.map(toFloor), total };
  }

  /**
   * Checks a create (400, 404, 403) before anything is written, then writes it once per Idempotency-Key: the stored
   * answer commits with the floor, its project's version and its event.
   */
  async create(principal: Principal, input: FloorCreate, req: CreateRequest): Promise<CreateOutcome> {
    const { project, name, position, ...data } = input;
    if (!project) invalid([{ path: '/project', message: 'is required' }]);
    if (!name) invalid([{ path: '/name', message: 'is required' }]);
    const db = this.ctx.db.kysely;
    authorize(principal, await findProjectMembership(db, project), 'edit');
    const id = newObjectId(this.ctx.clock.now());
    // Without a position the floor goes last.
    const pos = position ?? (await nextFloorPosition(db, project));
    return createOnce(db, 'floors', req, async (trx) => {
      await insertFloor(trx, { id, projectId: project, name, position: pos, data });
      await bumpVersions(trx, 'projects', [project], this.ctx.clock.now());
      await this.ctx.events.append(trx, {
        projectId: project,
        type: 'floor.created',
        actor: actorOf(principal),
        subjectId: id,
        changes: createdChanges({ ...data, name, position: pos }),
        now: this.ctx.clock.now(),
      });
      return created(await findFloor(trx, id));
    });
  }

  /** PATCH: only sent fields that differ change; `units` reorders the floor's own units; a new position changes the project's floors. */
  async patch(principal: Principal, id: string, body: FloorPatch, ifMatch: string | undefined): Promise<Tagged> {
    const db = this.ctx.db.kysely;
    const { row: floor } = authorize(principal, await findFloor(db, id), 'edit', 'Floor');
    const ifVersion = parseIfMatch(ifMatch, floor.version);
    checkBodyId(body, floor.id);
    const { units, project, ...rest } = body;
    if (project !== undefined && project !== floor.project_id) invalid([{ path: '/project', message: 'a floor cannot move to another project' }]);
    const order = childOrder(units, floor.unit_ids, 'units', 'is not a unit of this floor');
    const before = toFloor(floor);
    // Validated by FloorPatchSchema: the changed fields are a part of the body.
    const changes = changedFields(rest, before) as Partial<FloorPatch>;
    if (Object.keys(changes).length || order) {
      const { name, position, ...data } = changes;
      const columns = { ...(name !== undefined ? { name } : {}), ...(position !== undefined ? { position } : {}) };
      await db.transaction().execute(async (trx) => {
        if (!(await updateFloor(trx, floor.id, { columns, data }, { at: this.ctx.clock.now(), ifVersion }))) throw staleWrite();
        if (order) await reorderChildren(trx, 'units', floor.id, order, this.ctx.clock.now());
        if (position !== undefined) await bumpVersions(trx, 'projects', [floor.project_id], this.ctx.clock.now());
        await this.ctx.events.append(trx, {
          projectId: floor.project_id,
          type: 'floor.updated',
          actor: actorOf(principal),
          subjectId: floor.id,
          changes: updatedChanges(before, { ...changes, ...(order ? { units: order } : {}) }),
          now: this.ctx.clock.now(),
        });
      });
    }
    const updated = found(await findFloor(db, floor.id));
    return tagged(toFloor(updated), updated.version);
  }

  /**
   * A copy of the floor with its plan (every floor field) and its units (every unit field and shape), as new records:
   * the copies start `available` (a copy is not sold or held), named by `unitNames` or `<name> (copy)`. Checked
   * before anything is written; the write runs once per Idempotency-Key, with one `floor.created` and one
   * `unit.created` per copy, all under one `batch`.
   */
  async duplicate(principal: Principal, id: string, body: FloorDuplicate, req: CreateRequest): Promise<CreateOutcome> {
    const db = this.ctx.db.kysely;
    const { row: source } = authorize(principal, await findFloor(db, id), 'edit', 'Floor');
    const units = await listFloorUnits(db, source.id);
    const own = new Set(units.map((u) => u.id));
    const strays = Object.keys(body.unitNames ?? {}).filter((unitId) => !own.has(unitId));
    if (strays.length) invalid(strays.map((unitId) => ({ path: `/unitNames/${unitId}`, message: 'is not a unit of this floor' })));
    const now = this.ctx.clock.now();
    const next = body.renumber ? nextFloorName(source.name, await floorNamesOf(db, source.project_id)) : undefined;
    const floor = {
      id: newObjectId(now),
      projectId: source.project_id,
      name: body.name ?? next?.name ?? `${source.name} (copy)`,
      position: body.position ?? (await nextFloorPosition(db, source.project_id)),
      data: source.data,
    };
    const copies = units.map((u) => ({
      id: newObjectId(now),
      floorId: floor.id,
      name: body.unitNames?.[u.id] ?? (next && renumberUnit(u.name, next.from, next.to)) ?? `${u.name} (copy)`,
      position: u.position,
      availability: 'available',
      data: u.data,
    }));
    return createOnce(db, 'floors', req, async (trx) => {
      await insertFloor(trx, floor);
      await insertUnits(trx, floor.projectId, copies);
      await bumpVersions(trx, 'projects', [floor.projectId], this.ctx.clock.now());
      const actor = actorOf(principal);
      const batch = floor.id;
      await this.ctx.events.appendMany(trx, [
        {
          projectId: floor.projectId,
          type: 'floor.created',
          actor,
          subjectId: floor.id,
          changes: createdChanges({ ...floor.data, name: floor.name, position: floor.position }),
          batch,
          now,
        },
        ...copies.map((u) => ({
          projectId: floor.projectId,
          type: 'unit.created' as const,
          actor,
          subjectId: u.id,
          changes: createdChanges({ ...u.data, name: u.name, position: u.position, floor: floor.id, availability: u.availability }),
          batch,
          now,
        })),
      ]);
      return created(await findFloor(trx, floor.id));
    });
  }

  /**
   * Gives this floor's units the outlines of their counterparts on another floor of the project (matched by the end of
   * their numbers, 101 ↔ 201, then by order), as one bulk unit update: all or nothing, one `unit.updated` each.
   */
  async copyOutlines(principal: Principal, id: string, body: CopyOutlines, now: number) {
    const db = this.ctx.db.kysely;
    const { row: target } = authorize(principal, await findFloor(db, id), 'edit', 'Floor');
    const source = await findFloor(db, body.from);
    if (!source || source.project_id !== target.project_id || source.id === target.id) {
      invalid([{ path: '/from', message: "is not another floor of this floor's project" }]);
    }
    const [sources, targets] = await Promise.all([listFloorUnits(db, source.id), listFloorUnits(db, target.id)]);
    const pairs = matchUnits(sources, targets);
    const pathOf = (u: { data: Record<string, unknown> }) => (typeof u.data.path === 'string' && u.data.path ? u.data.path : undefined);
    const items = targets.flatMap((u, i) => {
      const from = sources[pairs.get(i) ?? -1];
      const path = from && pathOf(from);
      if (!path || (pathOf(u) && !body.overwrite) || pathOf(u) === path) return [];
      return [{ _id: u.id, path }];
    });
    const changed = items.length ? await new UnitService(this.ctx).patchMany(principal, items, now) : [];
    const given = new Set(items.map((i) => i._id));
    const unmatched = targets.filter((u) => !given.has(u.id) && !pathOf(u)).map((u) => u.name);
    return { units: changed, unmatched };
  }

  /** Outlines suggested from the floor's plan picture (an upload of this service: `/media/…`); none without one. */
  async suggestOutlines(principal: Principal, id: string): Promise<{ suggestions: Suggestion[] }> {
    const { row } = authorize(principal, await findFloor(this.ctx.db.kysely, id), 'read', 'Floor');
    const url = row.data.floorplanUrl;
    const picture = typeof url === 'string' ? await planPicture(this.ctx.media, url) : undefined;
    return { suggestions: picture ? suggestOutlines(picture) : [] };
  }

  /** Deletes the floor and its units (ON DELETE CASCADE); it leaves the project's floors. */
  async delete(principal: Principal, id: string, ifMatch: string | undefined): Promise<void> {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findFloor(db, id), 'delete-child', 'Floor');
    const ifVersion = parseIfMatch(ifMatch, row.version);
    await db.transaction().execute(async (trx) => {
      if (!(await deleteFloor(trx, row.id, ifVersion))) throw staleWrite();
      await bumpVersions(trx, 'projects', [row.project_id], this.ctx.clock.now());
      await this.ctx.events.append(trx, {
        projectId: row.project_id,
        type: 'floor.deleted',
        actor: actorOf(principal),
        subjectId: row.id,
        now: this.ctx.clock.now(),
      });
    });
  }
}

/** A floor read back after its write; absent only when another request deleted it in between. */
function found(row: FloorRow | undefined): FloorRow {
  if (!row) throw notFound('Floor');
  return row;
}

/** A new floor read back, as its create answers it. */
function created(row: FloorRow | undefined): Created {
  const floor = found(row);
  return { record: toFloor(floor) as Created['record'], version: floor.version };
}
