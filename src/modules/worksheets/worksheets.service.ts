import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { Allocations } from '../allocations/allocations.service.ts';
import { findUnitAllocation } from '../allocations/allocations.repo.ts';
import { actorOf, createdChanges, PUBLIC, type Changes } from '../events/event-model.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { totalOf } from '../shared/list.ts';
import { invalid } from '../shared/records.ts';
import {
  countPendingWorksheets,
  countProjectUnits,
  decideWorksheet,
  findWorksheet,
  insertWorksheet,
  listWorksheets,
  lockAllocationWorksheets,
  toWorksheet,
} from './worksheets.repo.ts';
import type { WorksheetPatch, WorksheetSubmit } from './worksheets.schemas.ts';
import { reserveUnit } from '../units/unit-writes.repo.ts';
import { markHoldReleased } from '../holds/index.ts';
import { queueWorksheetDecided, queueWorksheetSubmitted } from '../../mail/worksheet-mail.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

const KEPT = ['_id', '__v', 'project', 'createdAt', 'updatedAt'] as const;
const noToken = () => ERRORS.unauthorized('X-Allocation-Token is required: open the allocation first');

/** Realtors' worksheets: submitted through an allocation's token, decided by the owner and administrators. */
export class WorksheetService {
  readonly #allocations: Allocations;
  constructor(private readonly ctx: Ctx) {
    this.#allocations = new Allocations(ctx);
  }

  /** POST /public/worksheets. At most WORKSHEETS_PER_ALLOCATION wait undecided per allocation (→ 409). */
  async submit(token: string | undefined, body: WorksheetSubmit) {
    const projectId = token ? this.#allocations.projectOf(token) : undefined;
    if (!token || !projectId) throw noToken();
    const now = this.ctx.clock.now();
    const submitted = await this.ctx.db.kysely.transaction().execute(async (trx) => {
      const access = await this.#allocations.verify(trx, token, projectId);
      if (!access) throw noToken();
      if ((await countProjectUnits(trx, projectId, body.choices)) !== body.choices.length)
        invalid([{ path: '/choices', message: 'names a unit that is not of this project' }]);
      await lockAllocationWorksheets(trx, projectId, access.name);
      const limit = this.ctx.config.limits.worksheetsPerAllocation;
      if ((await countPendingWorksheets(trx, projectId, access.name)) >= limit) {
        throw ERRORS.conflict(`This allocation already has ${limit} worksheets waiting for the sales team; wait for decisions before submitting more`);
      }
      const row = await insertWorksheet(trx, {
        id: newObjectId(now),
        projectId,
        allocation: access.name,
        buyer: body.buyer,
        choices: body.choices,
        notes: body.notes,
        realtorEmail: body.realtorEmail,
        now: new Date(now),
      });
      const record = toWorksheet(row);
      // The buyer reaches the project's CRMs as a lead would, through the outbox: the 201 never waits for a vendor.
      await this.ctx.crm.queueWorksheet(trx, projectId, row.id);
      await queueWorksheetSubmitted(trx, this.ctx.mail, { projectId, worksheet: record, consoleUrl: this.ctx.config.mail.publicUrl, now });
      await this.ctx.events.append(trx, {
        projectId,
        type: 'worksheet.submitted',
        actor: PUBLIC,
        subjectId: row.id,
        changes: createdChanges(record, KEPT),
        now,
      });
      return record;
    });
    this.ctx.mail.wake();
    return submitted;
  }

  /** GET /projects/{id}/worksheets: oldest first, for the owner and administrators. */
  async list(principal: Principal, projectId: string, page: { skip: number; limit: number; status?: string | undefined }) {
    const db = this.ctx.db.kysely;
    authorize(principal, await findProjectMembership(db, projectId), 'read-leads');
    const rows = await listWorksheets(db, projectId, page);
    const total = await totalOf(rows, page.skip, () => listWorksheets(db, projectId, { ...page, skip: 0, limit: 1 }));
    return { worksheets: rows.map(toWorksheet), total };
  }

  /**
   * PATCH /worksheets/{id}: accepted with a unit (the unit reserved and the worksheet accepted in one transaction;
   * whichever of two acceptances for one unit commits second finds the unit taken → 409), or declined.
   */
  async decide(principal: Principal, id: string, body: WorksheetPatch) {
    const db = this.ctx.db.kysely;
    const { row: ws } = authorize(principal, await findWorksheet(db, id), 'read-leads', 'Worksheet');
    if (ws.status !== 'submitted') throw ERRORS.conflict(`This worksheet is already ${ws.status}`);
    const unitId = body.status === 'accepted' ? body.unit : null;
    if (unitId !== null && !ws.choices.includes(unitId)) invalid([{ path: '/unit', message: "is not among the worksheet's choices" }]);
    const now = this.ctx.clock.now();
    const actor = actorOf(principal);
    const result = await db.transaction().execute(async (trx) => {
      if (unitId !== null) {
        const owner = await findUnitAllocation(trx, ws.project_id, unitId);
        const unit = await reserveUnit(trx, unitId, ws.project_id, owner === ws.allocation, now);
        if (!unit) throw ERRORS.conflict('That unit is no longer available (reserved, sold, or held by someone else)');
        // The realtor's hold on it ends here: its record says so, as a release by its holder would.
        if (unit.before === 'on_hold' && unit.held_before) await markHoldReleased(trx, unit.held_before, now);
        const changes: Changes = { availability: [unit.before, 'reserved'] };
        await this.ctx.events.append(trx, { projectId: ws.project_id, type: 'unit.updated', actor, subjectId: unitId, changes, now });
      }
      const decided = await decideWorksheet(trx, id, body.status, unitId, new Date(now));
      if (!decided) throw ERRORS.conflict('This worksheet was decided by someone else meanwhile');
      const changes: Changes = { status: ['submitted', body.status], ...(unitId !== null ? { unit: [null, unitId] } : {}) };
      await this.ctx.events.append(trx, { projectId: ws.project_id, type: `worksheet.${body.status}`, actor, subjectId: id, changes, now });
      const record = toWorksheet(decided);
      await queueWorksheetDecided(trx, this.ctx.mail, { projectId: ws.project_id, worksheet: record, status: body.status, unitId, now });
      return record;
    });
    this.ctx.mail.wake();
    return result;
  }
}
