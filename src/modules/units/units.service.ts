import { amountProblem, depositCurrency } from '../deposits/amounts.ts';
import type { Ctx } from '../../context.ts';
import { holdExpired, offerToNext, writeBackLapsedHold } from '../holds/index.ts';
import { bumpVersions } from '../../db/versioned.repo.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound, type FieldError } from '../../http/errors.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { actorOf, createdChanges } from '../events/event-model.ts';
import { projectsOfFloors } from '../floors/floors.repo.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize, can, checkGuardedFields, levelOf, UNIT_GUARDED_FIELDS } from '../shared/access.ts';
import { createOnce, type CreateOutcome, type CreateRequest, type Created } from '../shared/idempotent.ts';
import { pageOf, totalOf } from '../shared/list.ts';
import { ifMatchAllows } from '../../http/conditional.ts';
import { checkBodyId, deepEqual, etagOf, invalid, parseIfMatch, staleWrite, tagged, type Tagged } from '../shared/records.ts';
import { holdExpiryErrors, perimeterErrors, planUnitChange, touchedFloors, type PlannedUnitChange } from './units.change.ts';
import { findUnit, findUnitDocument, findUnitsByIds, listUnits, unitIdsOfType, type UnitDocumentRow, type UnitWithAccess } from './units.repo.ts';
import { toUnit, unitJson, type UnitRow } from './units.record.ts';
import { deleteUnit, insertUnit, updateUnit, updateUnits, type UnitSet } from './unit-writes.repo.ts';
import { MAX_BULK_UNITS, UNIT_DEFAULTS, type BulkUnitItem, type UnitCreate, type UnitList, type UnitPatch, type UnitsOfTypePatch } from './units.schemas.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/** A bulk item that names a unit the caller can see, with what it changes (undefined: nothing). */
interface CheckedItem {
  i: number;
  item: BulkUnitItem;
  row: UnitWithAccess;
  plan: PlannedUnitChange | undefined;
}

/**
 * Reads and writes units: each write checks access, finds what changed and writes it, the floors whose `units` it
 * changes and its event in one transaction. Times (`now`) come from the caller, which renders the row at that time.
 */
export class UnitService {
  constructor(private readonly ctx: Ctx) {}

  /**
   * GET /units/{id}, the hottest read: one named statement, the record's JSON text written from the stored document
   * (`unitJson`), not serialised again. A lapsed hold found here is written back as available first.
   */
  async getDocument(principal: Principal, id: string, now: number): Promise<Tagged<string>> {
    const row = await this.#document(principal, id, now);
    return tagged(unitJson(row, now), row.version);
  }

  async #document(principal: Principal, id: string, now: number): Promise<UnitDocumentRow> {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findUnitDocument(db, id), 'read', 'Unit');
    if (!holdExpired(row, now)) return row;
    await this.releaseHold(row, now);
    const reread = await findUnitDocument(db, row.id);
    if (!reread) throw notFound('Unit');
    return reread;
  }

  /** Writes a lapsed hold back as available (a read found it first); the service, not the reader, is the actor. */
  async releaseHold(unit: Pick<UnitRow, 'id' | 'project_id'> & { on_hold_expires_at: Date | string }, now: number): Promise<void> {
    await this.ctx.db.kysely.transaction().execute((trx) => writeBackLapsedHold(trx, this.ctx, unit, now));
    // A priority hold offered to the next in rank is mailed once this commits.
    this.ctx.mail.wake();
  }

  /** A page of the project's units (`limit` unless the query names one) and the count before paging. */
  async list(principal: Principal, query: UnitList, limit: number, now: number) {
    const db = this.ctx.db.kysely;
    const { project, floor, availability, filters = {}, options = {} } = query;
    authorize(principal, await findProjectMembership(db, project), 'read');
    const page = pageOf(options, limit);
    const wanted = [availability, filters.availability].filter((a) => a !== undefined).flatMap((a) => a.toLowerCase().split(','));
    const params = { ...filters, floorId: floor, availability: wanted, now };
    const rows = await listUnits(db, project, { ...params, ...page });
    const total = await totalOf(rows, page.skip, () => listUnits(db, project, { ...params, skip: 0, limit: 1, sort: undefined }));
    return { records: rows.map((u) => toUnit(u, now)), total };
  }

  /**
   * Checks a create (400, 404, 403) before anything is written, then writes it once per Idempotency-Key: the stored
   * answer commits with the unit, its floor's version and its event.
   */
  async create(principal: Principal, input: UnitCreate, req: CreateRequest): Promise<CreateOutcome> {
    const { project, name, position, floor, availability, onHoldExpiresAt, ...data } = input;
    if (!project) invalid([{ path: '/project', message: 'is required' }]);
    if (!name) invalid([{ path: '/name', message: 'is required' }]);
    const { level } = authorize(principal, await findProjectMembership(this.ctx.db.kysely, project), 'edit');
    // A new unit's stored value is the default: a guarded field sent as something else is a change.
    const defaults: Record<string, unknown> = UNIT_DEFAULTS;
    checkGuardedFields(
      level,
      Object.entries(data).flatMap(([k, v]) => (!deepEqual(v, defaults[k] ?? '') ? [k] : [])),
      UNIT_GUARDED_FIELDS,
    );
    // A unit on hold always has an expiry (holdExpiryErrors, as for a PATCH).
    const holdErrors = [...holdExpiryErrors(availability, onHoldExpiresAt), ...perimeterErrors(data.perimeter)];
    if (holdErrors.length) invalid(holdErrors);
    await this.#checkFloor(project, floor, '/floor');
    const unit = {
      id: newObjectId(this.ctx.clock.now()),
      projectId: project,
      floorId: floor ?? null,
      name,
      position: position ?? 0,
      availability: (availability ?? 'available').toLowerCase(),
      onHoldExpiresAt: onHoldExpiresAt ?? null,
      data: { ...UNIT_DEFAULTS, ...data },
    };
    return createOnce(this.ctx.db.kysely, 'units', req, async (trx): Promise<Created> => {
      await insertUnit(trx, unit);
      await bumpVersions(trx, 'floors', [floor], this.ctx.clock.now());
      const changes = createdChanges({
        ...unit.data,
        name,
        position: unit.position,
        floor,
        availability: unit.availability,
        onHoldExpiresAt: onHoldExpiresAt ?? undefined,
      });
      await this.ctx.events.append(trx, {
        projectId: project,
        type: 'unit.created',
        actor: actorOf(principal),
        subjectId: unit.id,
        changes,
        now: this.ctx.clock.now(),
      });
      const row = found(await findUnit(trx, unit.id));
      return { record: toUnit(row, this.ctx.clock.now()) as Created['record'], version: row.version };
    });
  }

  /** A unit's deposit (`payableAmount`) Stripe would refuse in its project's currency → 400 naming it. */
  async #checkPayable(projectId: string, amount: unknown, errors: FieldError[]) {
    const project = await findProjectMembership(this.ctx.db.kysely, projectId);
    const problem = project ? amountProblem(amount, depositCurrency(project.data)) : undefined;
    if (problem) errors.push({ path: '/payableAmount', message: problem });
  }

  /** PATCH by the rules of planUnitChange; a move changes both floors' `units` in the same transaction. */
  async patch(principal: Principal, id: string, body: UnitPatch, ifMatch: string | undefined, now: number): Promise<Tagged> {
    const db = this.ctx.db.kysely;
    const { row: unit, level } = authorize(principal, await findUnit(db, id), 'edit', 'Unit');
    const ifVersion = parseIfMatch(ifMatch, unit.version);
    checkBodyId(body, unit.id);
    const errors: FieldError[] = [];
    const plan = planUnitChange(unit, body, now, errors);
    if (plan) checkGuardedFields(level, Object.keys(plan.change.data), UNIT_GUARDED_FIELDS);
    if (plan) {
      await this.#checkFloor(unit.project_id, plan.floorTo, '/floor');
      if ('payableAmount' in plan.change.data) await this.#checkPayable(unit.project_id, plan.change.data.payableAmount, errors);
      if (errors.length) invalid(errors);
      await db.transaction().execute(async (trx) => {
        // Leaving on_hold clears the expiry too (updateUnit).
        if (!(await updateUnit(trx, unit.id, plan.change, { at: this.ctx.clock.now(), ifVersion }))) throw staleWrite();
        await bumpVersions(trx, 'floors', touchedFloors(unit, plan), this.ctx.clock.now());
        await this.ctx.events.append(trx, {
          projectId: unit.project_id,
          type: 'unit.updated',
          actor: actorOf(principal),
          subjectId: unit.id,
          changes: plan.logged,
          now,
        });
        // Made available by hand: a waiting list gets it first, in this same transaction.
        if (plan.logged.availability?.[1] === 'available') await offerToNext(trx, this.ctx, unit.id, now);
      });
      this.ctx.mail.wake();
    }
    const updated = found(await findUnit(db, unit.id));
    return tagged(toUnit(updated, now), updated.version);
  }

  /** Deletes the unit; it leaves its floor's `units`. */
  async delete(principal: Principal, id: string, ifMatch: string | undefined): Promise<void> {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findUnit(db, id), 'delete-child', 'Unit');
    const ifVersion = parseIfMatch(ifMatch, row.version);
    await db.transaction().execute(async (trx) => {
      if (!(await deleteUnit(trx, row.id, ifVersion))) throw staleWrite();
      await bumpVersions(trx, 'floors', [row.floor_id], this.ctx.clock.now());
      await this.ctx.events.append(trx, {
        projectId: row.project_id,
        type: 'unit.deleted',
        actor: actorOf(principal),
        subjectId: row.id,
        now: this.ctx.clock.now(),
      });
    });
  }

  /**
   * Bulk PATCH, all or nothing: every item is checked (each error at `/<index>/…`) and every ifMatch compared before
   * one transaction writes them all, with one `unit.updated` per changed unit. The units come back in request order.
   */
  async patchMany(principal: Principal, items: readonly BulkUnitItem[], now: number): Promise<Record<string, unknown>[]> {
    const db = this.ctx.db.kysely;
    const checked = await this.#checkItems(principal, items, now);
    const stale = checked
      .filter(({ i, item, row }) => item.ifMatch !== undefined && !ifMatchAllows(item.ifMatch, etagOf(row.version), `/${i}/ifMatch`))
      .map((c) => c.i);
    if (stale.length) throw staleItems(stale);

    // One statement per thousand items; with ifMatch an item is written only at that version, so a change between
    // the check and the write is caught.
    const writes = checked.flatMap((c) => (c.plan ? [{ ...c, plan: c.plan }] : [])).sort((a, b) => (a.item._id < b.item._id ? -1 : 1));
    if (writes.length) {
      await db.transaction().execute(async (trx) => {
        const sets = writes.map(({ item, row, plan }) => unitSet(row, plan, item.ifMatch !== undefined));
        const written = await updateUnits(trx, sets, this.ctx.clock.now());
        const lost = writes.filter((w) => !written.has(w.row.id)).map((w) => w.i);
        if (lost.length) throw staleItems(lost.sort((a, b) => a - b));
        const floors = writes.flatMap(({ row, plan }) => touchedFloors(row, plan));
        await bumpVersions(trx, 'floors', floors, this.ctx.clock.now());
        // One unit.updated per changed unit, as its own PATCH would append, in request order.
        const actor = actorOf(principal);
        // One batch id for the request: the change log keeps every unit's before values under it (an undo reads them).
        const batch = newObjectId(now);
        await this.ctx.events.appendMany(
          trx,
          checked.flatMap(({ row, plan }) =>
            plan ? [{ projectId: row.project_id, type: 'unit.updated' as const, actor, subjectId: row.id, changes: plan.logged, batch, now }] : [],
          ),
        );
        for (const { row, plan } of writes) if (plan.logged.availability?.[1] === 'available') await offerToNext(trx, this.ctx, row.id, now);
      });
    }
    if (writes.length) this.ctx.mail.wake();
    const ids = items.map((i) => i._id);
    const updated = new Map((await findUnitsByIds(db, ids)).map((r) => [r.id, r]));
    return items.map((item) => toUnit(found(updated.get(item._id)), now));
  }

  /** The same layout and pictures on every unit of a type (PATCH /units/by-type): one bulk update of those units. */
  async patchType(principal: Principal, body: UnitsOfTypePatch, now: number): Promise<Record<string, unknown>[]> {
    const { project, type, ...fields } = body;
    const db = this.ctx.db.kysely;
    authorize(principal, await findProjectMembership(db, project), 'edit');
    const ids = await unitIdsOfType(db, project, type);
    if (ids.length > MAX_BULK_UNITS) {
      throw ERRORS.payloadTooLarge(`More than ${MAX_BULK_UNITS} units have this type; change them by PATCH /units in parts`);
    }
    return ids.length
      ? this.patchMany(
          principal,
          ids.map((_id) => ({ _id, ...fields })),
          now,
        )
      : [];
  }

  /** Every item's checks, before anything is written: 400 naming each bad item (in index order), else the plans. */
  async #checkItems(principal: Principal, items: readonly BulkUnitItem[], now: number): Promise<CheckedItem[]> {
    const rows = new Map((await findUnitsByIds(this.ctx.db.kysely, [...new Set(items.map((i) => i._id))])).map((r) => [r.id, r]));
    const errors: FieldError[] = [];
    const seen = new Map<string, number>();
    const checked: CheckedItem[] = [];
    const floorChecks: { index: number; floor: string; project: string }[] = [];

    items.forEach((item, i) => {
      const row = rows.get(item._id);
      const level = row && levelOf(principal, row);
      if (!row || !level) {
        errors.push({ path: `/${i}/_id`, message: 'not found' });
        return;
      }
      if (!can(level, 'edit')) errors.push({ path: `/${i}/_id`, message: 'may not be changed by the caller' });
      if (seen.has(item._id)) errors.push({ path: `/${i}/_id`, message: `repeats item ${seen.get(item._id)}` });
      seen.set(item._id, i);
      const own: FieldError[] = [];
      const plan = planUnitChange(row, item, now, own);
      if (plan) checkGuardedFields(level, Object.keys(plan.change.data), UNIT_GUARDED_FIELDS, `Item ${i}: `);
      errors.push(...own.map((e) => ({ path: `/${i}${e.path}`, message: e.message })));
      if (typeof plan?.floorTo === 'string') floorChecks.push({ index: i, floor: plan.floorTo, project: row.project_id });
      checked.push({ i, item, row, plan });
    });

    if (floorChecks.length) {
      const floorIds = floorChecks.map((f) => f.floor);
      const projectOf = await projectsOfFloors(this.ctx.db.kysely, floorIds);
      for (const f of floorChecks) {
        if (projectOf.get(f.floor) !== f.project) errors.push({ path: `/${f.index}/floor`, message: 'is not a floor of this project' });
      }
    }
    if (errors.length) invalid(errors.sort((a, b) => Number(a.path.split('/')[1]) - Number(b.path.split('/')[1])));
    return checked;
  }

  /** A floor id sent by a client must be a floor of the unit's own project. */
  async #checkFloor(projectId: string, floorId: string | null | undefined, path: string) {
    if (!floorId) return;
    const projectOf = await projectsOfFloors(this.ctx.db.kysely, [floorId]);
    if (projectOf.get(floorId) !== projectId) invalid([{ path, message: 'is not a floor of this project' }]);
  }
}

/** A unit read back after its write; absent only when another request deleted it in between. */
function found(row: UnitWithAccess | undefined): UnitWithAccess {
  if (!row) throw notFound('Unit');
  return row;
}

/** One bulk item's write: only its changed columns, its data merged, at its version when it sent ifMatch. */
function unitSet(row: UnitRow, plan: PlannedUnitChange, guarded: boolean): UnitSet {
  const c = plan.change.columns;
  return {
    id: row.id,
    ...(c.name !== undefined ? { name: c.name } : {}),
    ...(c.position !== undefined ? { position: c.position } : {}),
    ...(c.floor_id !== undefined ? { floorId: c.floor_id } : {}),
    ...(c.availability !== undefined ? { availability: c.availability } : {}),
    ...(c.on_hold_expires_at !== undefined ? { onHoldExpiresAt: c.on_hold_expires_at } : {}),
    ...(guarded ? { ifVersion: row.version } : {}),
    data: plan.change.data,
  };
}

function staleItems(indexes: number[]) {
  return ERRORS.preconditionFailed(`Item${indexes.length > 1 ? 's' : ''} ${indexes.join(', ')} changed since the ifMatch version; nothing was written`, {
    errors: indexes.map((i) => ({ path: `/${i}/ifMatch`, message: 'does not match the current ETag' })),
  });
}
