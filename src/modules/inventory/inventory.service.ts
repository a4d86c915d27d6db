import type { Ctx } from '../../context.ts';
import { priorityOn } from '../priority/priority.service.ts';
import { offerToNext } from '../holds/index.ts';
import type { Principal } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { ifMatchAllows } from '../../http/conditional.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { bumpVersions } from '../../db/versioned.repo.ts';
import { actorOf, createdChanges, type Actor, type NewEvent } from '../events/event-model.ts';
import { unitUpdateChanges } from '../units/units.change.ts';
import { toUnit } from '../units/units.record.ts';
import { UNIT_DEFAULTS } from '../units/units.schemas.ts';
import type { ProjectRow } from '../projects/projects.record.ts';
import { findProject, findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { Readable } from 'node:stream';
import { jsonTable, type ParsedTable } from './csv.ts';
import { ImportGate, readCsv, tooManyRows } from './import.bounds.ts';
import { FeedError, feedTarget, fetchFeedFile } from './feed.ts';
import { readXlsx } from './xlsx.ts';
import { templateRecords } from './template.ts';
import { planImport, summarise, type ImportPlan, type ImportSettings, type InventoryState, type RowError } from './import.plan.ts';
import { insertSync, inventoryEtag, listSyncs, loadInventory, lockProject } from './inventory.repo.ts';
import { insertFloor } from '../floors/floors.repo.ts';
import { setLastSync } from '../projects/projects.repo.ts';
import { insertUnits, updateUnits, type UnitInsert, type UnitSet } from '../units/unit-writes.repo.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import type { SyncSource } from './inventory.repo.ts';
import { rentcafeRejected, rentcafeTable } from './rentcafe.pull.ts';

export interface ImportRequest {
  projectId: string;
  /** The project's `data`: ftpMapping, yiStatusMapping, ftpWhitelist, ftpBlacklist. */
  settings: Record<string, unknown>;
  table: Pick<ParsedTable, 'headers' | 'rows'>;
  source: SyncSource;
  dryRun: boolean;
  skipErrors: boolean;
  ifMatch: string | undefined;
  userId: string | null;
}

export interface ImportAnswer {
  dryRun: boolean;
  summary: ReturnType<typeof summarise>;
  /** The first CHANGES_LISTED rows; `truncated` when there were more (`summary` counts all). */
  changes: ImportPlan['changes'];
  truncated: boolean;
  errors: RowError[];
  unknownColumns: string[];
  kept: ImportPlan['kept'];
  sync?: string;
}

/** What an import asked by a caller carries besides its table: the query's options and If-Match. */
export interface ImportOptions {
  dryRun: boolean;
  skipErrors: boolean;
  ifMatch: string | undefined;
}

export interface ImportOutcome {
  /** 200 answered or applied; 400 row errors and nothing applied. */
  status: 200 | 400;
  etag: string;
  answer: ImportAnswer;
}

/** One project's inventory: imports (uploads and feed pulls: plan, then apply in one transaction), its template and its syncs. */
export class InventoryService {
  /** Imports and pulls running at once on this node (INVENTORY_IMPORTS_AT_ONCE). */
  readonly gate: ImportGate;

  constructor(private readonly ctx: Ctx) {
    this.gate = new ImportGate(ctx.config.inventory.importsAtOnce);
  }

  /**
   * An upload by a manager of the project: access first (404, 403), then the table (`tableOf` refuses a missing or
   * unreadable body: 400, 415), then the import.
   */
  /**
   * An upload whose body has arrived: access first (404, 403), then `takePlace` (429 when none is free), then the
   * table is read (a workbook is parsed only now, inside the place) and imported.
   */
  async upload(
    principal: Principal,
    projectId: string,
    options: ImportOptions,
    takePlace: () => void,
    tableOf: () => ImportRequest['table'] | Promise<ImportRequest['table']>,
  ): Promise<ImportOutcome> {
    const project = await this.#managed(principal, projectId);
    takePlace();
    const table = await tableOf();
    return this.import({ projectId: project.id, settings: project.data, table, source: 'upload', ...options, userId: principal.id });
  }

  /** A pull asked by a manager of the project: access first (404, 403), then `takePlace` (429 when none is free), then the pull. */
  async pullNow(principal: Principal, projectId: string, options: ImportOptions, takePlace: () => void): Promise<ImportOutcome> {
    const project = await this.#managed(principal, projectId);
    takePlace();
    return this.pull(project, { ...options, userId: principal.id });
  }

  /** A RENTCafé pull asked by a manager of the project: access first (404, 403), then `takePlace`, then the pull. */
  async rentcafeNow(principal: Principal, projectId: string, options: ImportOptions, takePlace: () => void): Promise<ImportOutcome> {
    const project = await this.#managed(principal, projectId);
    takePlace();
    return this.pullRentcafe(project, { ...options, userId: principal.id });
  }

  /**
   * Pulls RENTCafé's availability and prices and imports them (`source: "rentcafe"`), as a feed pull: a dry run changes
   * and records nothing; a call that fails is a failed sync and 502; rows that cannot be applied a failed sync and 400.
   */
  async pullRentcafe(project: ProjectRow, opts: ImportOptions & { userId: string | null }): Promise<ImportOutcome> {
    const startedAt = new Date(this.ctx.clock.now());
    const table = await rentcafeTable(this.ctx, project, async (summary, errors) =>
      opts.dryRun ? undefined : this.recordFailure(project.id, 'rentcafe', startedAt, summary, errors, opts.userId),
    );
    const outcome = await this.import({ projectId: project.id, settings: project.data, table, source: 'rentcafe', ...opts });
    if (outcome.status === 400) await rentcafeRejected(this.ctx, project.id, outcome.answer.errors);
    return outcome;
  }

  /** The project's units as the import template's rows, for whoever may read the project. */
  async template(principal: Principal, projectId: string): Promise<Record<string, unknown>[]> {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findProjectMembership(db, projectId), 'read');
    const state = await db.transaction().execute((trx) => loadInventory(trx, row.id, false));
    return templateRecords(state, this.ctx.clock.now());
  }

  /** A page of the project's syncs, newest first, and their count before paging. */
  async syncs(principal: Principal, projectId: string, { skip, limit }: { skip: number; limit: number }) {
    const db = this.ctx.db.kysely;
    authorize(principal, await findProjectMembership(db, projectId), 'read');
    const rows = await listSyncs(db, projectId, { skip, limit });
    // Past the last page the window count has no row to ride on: count on its own so the header stays true.
    const total = rows[0]?.total ?? (skip ? ((await listSyncs(db, projectId, { skip: 0, limit: 1 }))[0]?.total ?? 0) : 0);
    const records = rows.map((r) => ({
      _id: r.id,
      source: r.source,
      status: r.status,
      startedAt: r.started_at.toISOString(),
      finishedAt: r.finished_at.toISOString(),
      summary: r.summary,
      errors: r.errors,
      user: r.user_id,
    }));
    return { records, total };
  }

  async #managed(principal: Principal, projectId: string): Promise<ProjectRow> {
    return authorize(principal, await findProject(this.ctx.db.kysely, projectId), 'manage').row;
  }

  async import(req: ImportRequest): Promise<ImportOutcome> {
    const startedAt = new Date(this.ctx.clock.now());
    // RENTCafé's rows are already in our words (statuses read through yiStatusMapping); they change existing units only.
    const settings: ImportSettings =
      req.source === 'rentcafe'
        ? { updateOnly: true }
        : {
            ftpMapping: req.settings.ftpMapping as ImportSettings['ftpMapping'],
            yiStatusMapping: req.settings.yiStatusMapping as ImportSettings['yiStatusMapping'],
            ...(req.source === 'ftp'
              ? { whitelist: req.settings.ftpWhitelist as string | undefined, blacklist: req.settings.ftpBlacklist as string | undefined }
              : {}),
          };
    const db = this.ctx.db.kysely;

    if (req.dryRun) {
      const state = await db.transaction().execute((trx) => loadInventory(trx, req.projectId, false));
      const plan = planImport(req.table, state, settings, startedAt.getTime());
      return { status: 200, etag: inventoryEtag(state), answer: answerOf(plan, true) };
    }

    let offered = 0;
    const outcome = await db.transaction().execute(async (trx): Promise<ImportOutcome> => {
      offered = 0;
      if (!(await lockProject(trx, req.projectId))) throw ERRORS.notFound('Project not found');
      const state = await loadInventory(trx, req.projectId, true);
      const etag = inventoryEtag(state);
      if (req.ifMatch !== undefined && !ifMatchAllows(req.ifMatch, etag)) {
        throw ERRORS.preconditionFailed(`The inventory changed since ${req.ifMatch} (now ${etag}); preview the import again`);
      }
      const now = this.ctx.clock.now();
      const plan = planImport(req.table, state, settings, now);
      if (plan.errors.length && !req.skipErrors) return { status: 400, etag, answer: answerOf(plan, false) };
      const written = await this.#apply(trx, req.projectId, state, plan, now);
      const finishedAt = new Date(this.ctx.clock.now());
      const sync = newObjectId(now);
      const answer = { ...answerOf(plan, false), sync };
      await insertSync(trx, {
        id: sync,
        projectId: req.projectId,
        source: req.source,
        status: 'applied',
        startedAt,
        finishedAt,
        summary: answer.summary,
        errors: plan.errors,
        userId: req.userId,
      });
      await setLastSync(trx, req.projectId, finishedAt);
      // Last in the transaction: each floor and unit written, as its own route would log it, then the import itself.
      const actor = importActor(req.source, req.userId);
      const imported = createdChanges({
        source: req.source,
        status: 'applied',
        startedAt: startedAt.toISOString(),
        finishedAt: finishedAt.toISOString(),
        summary: answer.summary,
      });
      await this.ctx.events.appendMany(trx, [
        ...written.map((e) => ({ ...e, projectId: req.projectId, actor, batch: sync, now })),
        { projectId: req.projectId, type: 'inventory.imported', actor, subjectId: sync, changes: imported, now },
      ]);
      // A unit the import makes available goes to its waiting list first, as when staff do it by hand.
      const availableNow = written.filter((e) => e.type === 'unit.updated' && e.changes?.availability?.[1] === 'available');
      if (availableNow.length && priorityOn((await findProjectMembership(trx, req.projectId))?.data ?? {})) {
        for (const e of availableNow) {
          if (await offerToNext(trx, this.ctx, e.subjectId, now)) offered++;
        }
      }
      return { status: 200, etag, answer };
    });
    if (offered) this.ctx.mail.wake();
    // A pull (feed or RENTCafé) with row errors is a failed pull: kept, so the team sees why nothing changed.
    if (outcome.status === 400 && req.source !== 'upload') {
      await this.recordFailure(req.projectId, req.source, startedAt, outcome.answer.summary, outcome.answer.errors, req.userId);
    }
    return outcome;
  }

  /**
   * Pulls the project's feed file and imports it (`source: "ftp"`). A pull that cannot fetch the file records a
   * failed sync (unless a dry run) and throws 502 `upstream_failed` naming what failed; nothing changes.
   */
  async pull(project: ProjectRow, opts: { dryRun: boolean; skipErrors: boolean; ifMatch: string | undefined; userId: string | null }): Promise<ImportOutcome> {
    const startedAt = new Date(this.ctx.clock.now());
    let file: Buffer;
    let where = '';
    try {
      const target = feedTarget(project.data);
      where = target.display;
      const open = (name: string) => (project.secrets[name] ? this.ctx.secrets.open(project.secrets[name]) : undefined);
      file = await fetchFeedFile(
        target,
        { username: open('ftpUsername'), password: open('ftpPassword') },
        {
          timeoutMs: this.ctx.config.inventory.ftpTimeoutSec * 1000,
          maxBytes: this.ctx.config.inventory.maxFileBytes,
          ca: this.ctx.config.inventory.ftpCa,
          allowPrivate: this.ctx.config.allowPrivateTargets,
        },
      );
    } catch (err) {
      if (!(err instanceof FeedError)) throw err;
      const sync = opts.dryRun
        ? undefined
        : await this.recordFailure(project.id, 'ftp', startedAt, { reason: err.reason }, [{ row: null, column: null, message: err.message }], opts.userId);
      if (err.reason === 'misconfigured') {
        throw ERRORS.invalidBody(err.message, {
          errors: [{ path: '/ftpUrl', message: err.message }],
          extra: {
            reason: err.reason,
            ...(sync ? { sync } : {}),
          },
        });
      }
      throw ERRORS.upstreamFailed(err.message, {
        extra: {
          reason: err.reason,
          ...(where ? { server: where } : {}),
          ...(sync ? { sync } : {}),
        },
      });
    }
    let table: Pick<ParsedTable, 'headers' | 'rows'>;
    const { maxRows, maxFileBytes } = this.ctx.config.inventory;
    try {
      const fileName = typeof project.data.ftpFileName === 'string' ? project.data.ftpFileName : '';
      table = /\.json$/i.test(fileName)
        ? jsonFile(file, maxRows)
        : /\.xlsx$/i.test(fileName)
          ? await readXlsx(file, { maxRows, maxBytes: maxFileBytes })
          : await readCsv(Readable.from([file]), { maxRows, maxBytes: maxFileBytes });
    } catch (err) {
      if (!opts.dryRun && err instanceof AppError) {
        const reason = err.code === 'too_many_rows' ? 'too_many_rows' : 'unreadable';
        await this.recordFailure(project.id, 'ftp', startedAt, { reason }, [{ row: null, column: null, message: err.detail }], opts.userId);
      }
      throw err;
    }
    return this.import({
      projectId: project.id,
      settings: project.data,
      table,
      source: 'ftp',
      dryRun: opts.dryRun,
      skipErrors: opts.skipErrors,
      ifMatch: opts.ifMatch,
      userId: opts.userId,
    });
  }

  async recordFailure(projectId: string, source: SyncSource, startedAt: Date, summary: Record<string, unknown>, errors: unknown[], userId: string | null) {
    const id = newObjectId(this.ctx.clock.now());
    await insertSync(this.ctx.db.kysely, {
      id,
      projectId,
      source,
      status: 'failed',
      startedAt,
      finishedAt: new Date(this.ctx.clock.now()),
      summary,
      errors,
      userId,
    });
    return id;
  }

  /**
   * Writes the plan: new floors, new units, changed units, and the floors whose `units` list changed. Returns the
   * events those writes append (floor.created, unit.created, unit.updated, with the payloads of the single routes).
   */
  async #apply(trx: Parameters<typeof loadInventory>[0], projectId: string, state: InventoryState, plan: ImportPlan, now: number): Promise<WrittenEvent[]> {
    let floorPosition = Math.max(-1, ...state.floors.map((f) => f.position));
    const newFloorIds = new Map<string, string>();
    const floorsToCreate = plan.newFloors.map((name) => {
      const id = newObjectId(now);
      newFloorIds.set(name.toLowerCase(), id);
      return { id, name, position: (floorPosition += 1) };
    });
    await insertFloor(
      trx,
      floorsToCreate.map((f) => ({ ...f, projectId, data: {} })),
    );
    const floorIdOf = (floorId: string | null | undefined, newFloor: string | null) => {
      if (newFloor === null) return floorId;
      const id = newFloorIds.get(newFloor.toLowerCase());
      // The plan lists every floor a row names as new in plan.newFloors, created just above.
      if (id === undefined) throw new Error(`import: new floor "${newFloor}" is not in the plan's new floors`);
      return id;
    };

    // New units go after the last unit of their floor unless the row gives a position.
    const lastPosition = new Map<string | null, number>();
    for (const u of state.units) lastPosition.set(u.floor_id, Math.max(lastPosition.get(u.floor_id) ?? -1, u.position));
    const touched: (string | null | undefined)[] = [];
    const inserts: UnitInsert[] = plan.creates.map((c) => {
      const { name: _name, position, availability, ...data } = c.values;
      const floorId = floorIdOf(c.floorId, c.newFloor) ?? null;
      const at = typeof position === 'number' ? position : (lastPosition.get(floorId) ?? -1) + 1;
      lastPosition.set(floorId, Math.max(lastPosition.get(floorId) ?? -1, at));
      touched.push(floorId);
      const status = typeof availability === 'string' ? availability : 'available';
      return { id: newObjectId(now), floorId, name: c.name, position: at, availability: status, data: { ...UNIT_DEFAULTS, ...data } };
    });
    await insertUnits(trx, projectId, inserts);
    const events: WrittenEvent[] = floorsToCreate.map((f) => ({
      type: 'floor.created',
      subjectId: f.id,
      changes: createdChanges({ name: f.name, position: f.position }),
    }));
    for (const u of inserts) {
      events.push({
        type: 'unit.created',
        subjectId: u.id,
        changes: createdChanges({ ...u.data, name: u.name, position: u.position, floor: u.floorId ?? undefined, availability: u.availability }),
      });
    }

    const sets: UnitSet[] = plan.updates.map((u) => {
      const { name, position, availability, ...data } = u.values as { name?: string; position?: number; availability?: string } & Record<string, unknown>;
      const moves = u.floorId !== undefined || u.newFloor !== null;
      if (moves) touched.push(u.unit.floor_id, floorIdOf(u.floorId, u.newFloor));
      else if (position !== undefined) touched.push(u.unit.floor_id);
      const before = toUnit(u.unit, now);
      const changed = moves ? { ...u.values, floor: floorIdOf(u.floorId, u.newFloor) ?? null } : u.values;
      events.push({ type: 'unit.updated', subjectId: u.unit.id, changes: unitUpdateChanges(before, changed) });
      return {
        id: u.unit.id,
        ...(name !== undefined ? { name } : {}),
        ...(position !== undefined ? { position } : {}),
        ...(availability !== undefined ? { availability } : {}),
        ...(moves ? { floorId: floorIdOf(u.floorId, u.newFloor) ?? null } : {}),
        data,
      };
    });
    const at = this.ctx.clock.now();
    await updateUnits(trx, sets, at);
    await bumpVersions(
      trx,
      'floors',
      touched.filter((id) => !id || ![...newFloorIds.values()].includes(id)),
      at,
    );
    return events;
  }
}

/** An event #apply's writes append; the import adds project, actor and time. */
type WrittenEvent = Pick<NewEvent, 'type' | 'subjectId' | 'changes'>;

/**
 * Who an import's events name: the user who uploaded the file; for a feed or RENTCafé pull `sync` (the rows came from
 * elsewhere), with the id of the user who asked for it through the API, none for the schedule.
 */
export function importActor(source: SyncSource, userId: string | null): Actor {
  if (source === 'upload' && userId) return actorOf({ id: userId });
  return { kind: 'sync', ...(userId ? { id: userId } : {}) };
}

/** A feed file named *.json: `{ "rows": [...] }` or a bare array of row objects. */
function jsonFile(file: Buffer, maxRows: number): Pick<ParsedTable, 'headers' | 'rows'> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(file.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    throw ERRORS.invalidBody('The feed file is not valid JSON', { errors: [{ path: '/', message: 'is not valid JSON' }] });
  }
  const rows = Array.isArray(parsed) ? parsed : (parsed as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows) || rows.some((r) => typeof r !== 'object' || r === null || Array.isArray(r))) {
    throw ERRORS.invalidBody('The feed file must hold { "rows": [ { header: value } ] }', {
      errors: [{ path: '/rows', message: 'must be an array of objects' }],
    });
  }
  if (rows.length > maxRows) throw tooManyRows(maxRows);
  return jsonTable(rows as Record<string, unknown>[]);
}

/** Rows of `changes` an answer lists: enough to review, not a copy of a 20,000-row file. */
export const CHANGES_LISTED = 1000;

function answerOf(plan: ImportPlan, dryRun: boolean): ImportAnswer {
  return {
    dryRun,
    summary: summarise(plan),
    changes: plan.changes.length > CHANGES_LISTED ? plan.changes.slice(0, CHANGES_LISTED) : plan.changes,
    truncated: plan.changes.length > CHANGES_LISTED,
    errors: plan.errors,
    unknownColumns: plan.unknownColumns,
    kept: plan.kept,
  };
}
