import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { actorOf, updatedChanges } from '../events/event-model.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { totalOf, type Page } from '../shared/list.ts';
import { changedFields, invalid, parseIfMatch, staleWrite, tagged, type Tagged } from '../shared/records.ts';
import { rerankLead } from '../priority/waiting-list.ts';
import { recordAudit } from '../audit/audit.repo.ts';
import { readableLeads } from './lead-export.ts';
import { findLead, findLeadWithTeam, listLeads, toLead, updateLead, type LeadFilters, type LeadRow } from './leads.repo.ts';

/** What PATCH /leads/{id} may change. */
export interface LeadPatch {
  status?: string | undefined;
  notes?: string | null | undefined;
  assignee?: string | null | undefined;
}

/** Leads, for a project's owner and administrators: listed, filtered, and worked (status, notes, assignee). */
export class LeadService {
  constructor(private readonly ctx: Ctx) {}

  /** A spreadsheet of leads left the service: who took it, of which project (or all theirs), how many rows. */
  async exported(principal: Principal, projectId: string | undefined, format: 'csv' | 'xlsx', count: number): Promise<void> {
    await recordAudit(this.ctx.db.kysely, {
      actor: principal,
      action: 'leads_exported',
      projectId: projectId ?? null,
      subjectId: projectId ?? null,
      detail: { format, count },
      at: new Date(this.ctx.clock.now()),
    });
  }

  /**
   * One page of leads and the count before paging: of `project` (404 for a stranger, 403 for an editor), or without
   * it of every project whose leads the caller may read.
   */
  async list(principal: Principal, project: string | undefined, page: Page & LeadFilters) {
    const db = this.ctx.db.kysely;
    if (project !== undefined) authorize(principal, await findProjectMembership(db, project), 'read-leads');
    const scope = project !== undefined ? { project } : { principal };
    const now = this.ctx.clock.now();
    const rows = await listLeads(db, scope, page, now);
    const total = await totalOf(rows, page.skip, () => listLeads(db, scope, { ...page, skip: 0, limit: 1, sort: undefined }, now));
    return { leads: rows.map(toLead), total };
  }

  /**
   * A project's waitlist sign-ups (its leads with source `waitlist`), oldest first, up to 1,000, as the interface's
   * project record embeds them (`waitlistees`); 404 for a stranger, 403 for an editor, as for its leads.
   */
  async waitlistees(principal: Principal, project: string) {
    const { leads, total } = await this.list(principal, project, { source: 'waitlist', skip: 0, limit: 1000, sort: 'createdAt' });
    const text = (l: Record<string, unknown>, k: string) => (typeof l[k] === 'string' ? { [k]: l[k] } : {});
    const records = leads.map((l) => ({
      _id: l._id,
      ...['firstName', 'lastName', 'email', 'phone', 'unit'].reduce((o, k) => ({ ...o, ...text(l, k) }), {}),
      createdAt: l.createdAt,
    }));
    return { records, total };
  }

  /** An export for people (`tz`): names for ids and times in the zone (see lead-export.ts). */
  readable(leads: ReturnType<typeof toLead>[], timeZone: string) {
    return readableLeads(this.ctx.db.kysely, leads, timeZone);
  }

  /**
   * PATCH: the sent fields that differ change, in one versioned statement with its `lead.updated` event. The
   * assignee must be on the project's team (owner, administrator or editor).
   */
  /** The sales team's fields, then (with `rank`) the entry's place in its unit's waiting list. */
  async patch(principal: Principal, id: string, body: LeadPatch & { rank?: number }, ifMatch: string | undefined): Promise<Tagged> {
    const { rank, ...fields } = body;
    const worked = await this.#work(principal, id, fields, ifMatch);
    const row = rank === undefined ? worked : await rerankLead(this.ctx, principal, id, rank);
    return tagged(toLead(row), row.version);
  }

  async #work(principal: Principal, id: string, body: LeadPatch, ifMatch: string | undefined): Promise<LeadRow> {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findLeadWithTeam(db, id), 'read-leads', 'Lead');
    const ifVersion = parseIfMatch(ifMatch, row.version);
    const before = toLead(row);
    const changes = changedFields(body as Record<string, unknown>, before) as LeadPatch;
    const { assignee } = changes;
    if (typeof assignee === 'string' && assignee !== row.user_id && !row.administrators.includes(assignee) && !row.editors.includes(assignee)) {
      invalid([{ path: '/assignee', message: "is not on this project's team (its owner, administrators and editors)" }]);
    }
    if (!Object.keys(changes).length) return row;
    await db.transaction().execute(async (trx) => {
      if (!(await updateLead(trx, row.id, changes, { at: this.ctx.clock.now(), ifVersion }))) throw staleWrite();
      // The CRMs that have the lead are sent its new status, notes or assignee (through the outbox).
      await this.ctx.crm.queue(trx, row.project_id, row.id);
      await this.ctx.events.append(trx, {
        projectId: row.project_id,
        type: 'lead.updated',
        actor: actorOf(principal),
        subjectId: row.id,
        changes: updatedChanges(before, changes as Record<string, unknown>),
        now: this.ctx.clock.now(),
      });
    });
    this.ctx.crm.wake();
    const updated = await findLead(db, row.id);
    if (!updated) throw notFound('Lead');
    return updated;
  }
}
