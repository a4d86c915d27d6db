import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { totalOf, type Page } from '../shared/list.ts';
import { listLeads, toLead } from './leads.repo.ts';

/** A project's leads, for its owner and administrators. */
export class LeadService {
  constructor(private readonly ctx: Ctx) {}

  /** One page of leads and the count before paging. */
  async list(principal: Principal, project: string, page: Page & { updatedSince?: string | undefined }) {
    const db = this.ctx.db.kysely;
    authorize(principal, await findProjectMembership(db, project), 'read-leads');
    const rows = await listLeads(db, project, page);
    const total = await totalOf(rows, page.skip, () => listLeads(db, project, { ...page, skip: 0, limit: 1, sort: undefined }));
    return { leads: rows.map(toLead), total };
  }
}
