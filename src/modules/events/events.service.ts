import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize, can } from '../shared/access.ts';
import { findUnit } from '../units/units.repo.ts';
import { listEvents, listSubjectEvents, toEvent } from './events.repo.ts';
import type { EventListQuery, HistoryQuery } from './events.schemas.ts';

/** Reads of the change log: access first (404 unseen), then the page. */
export class EventService {
  constructor(private readonly ctx: Pick<Ctx, 'db'>) {}

  /** A project's events after a seq; the events that name buyers only for those who may read leads. */
  async list(principal: Principal, projectId: string, { after, limit }: EventListQuery) {
    const db = this.ctx.db.kysely;
    const { level } = authorize(principal, await findProjectMembership(db, projectId), 'read');
    const rows = await listEvents(db, projectId, { after, limit, withLeads: can(level, 'read-leads') });
    return rows.map(toEvent);
  }

  /** A unit's history, newest first: each change as who, when and what. */
  async unitHistory(principal: Principal, unitId: string, query: HistoryQuery) {
    const db = this.ctx.db.kysely;
    authorize(principal, await findUnit(db, unitId), 'read', 'Unit');
    const rows = await listSubjectEvents(db, unitId, query);
    return rows.map((r) => {
      const e = toEvent(r);
      return { seq: e.seq, type: e.type, at: e.createdAt, actor: e.actor, ...(e.data.changes ? { changes: e.data.changes } : {}) };
    });
  }
}
