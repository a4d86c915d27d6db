import type { Kysely } from 'kysely';
import type { Ctx } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { toLead } from '../leads/leads.repo.ts';
import { authorize } from '../shared/access.ts';
import { findUnit } from '../units/units.repo.ts';
import { hasWaiting, listWaitingLeads } from './priority.repo.ts';

/** The priority list runs only where the project keeps a waitlist, takes holds, and asks for it. */
export const priorityOn = (settings: Record<string, unknown>) =>
  settings.priorityList === true && settings.waitlistEnabled === true && settings.onHoldExperienceEnabled === true;

/** Whether a public hold on this unit must wait: the unit goes to its waiting list first. */
export async function reservedForWaitingList(db: Kysely<Database>, settings: Record<string, unknown>, projectId: string, unitId: string) {
  return priorityOn(settings) && (await hasWaiting(db, projectId, unitId));
}

/** A unit's waiting list as its project's owner and administrators see it: access first, then the list. */
export class PriorityService {
  constructor(private readonly ctx: Pick<Ctx, 'db'>) {}

  async waitingList(principal: Principal, unitId: string) {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findUnit(db, unitId), 'read-leads', 'Unit');
    return (await listWaitingLeads(db, row.project_id, row.id)).map(toLead);
  }
}
