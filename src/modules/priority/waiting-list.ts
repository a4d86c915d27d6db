import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { authorize } from '../shared/access.ts';
import { findLeadForRank, findLeadRow, listWaiting, lockWaitingList } from './priority.repo.ts';
import { writeRanks } from '../leads/leads.repo.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/**
 * Moves a waitlist entry to `rank` in its unit's waiting list (1 is first; past the end is last): the others close
 * up behind it, and the list is written back as 1..n. Runs under the list's lock, so two re-rankings (or a re-rank
 * and a new entry) take turns. Only with the project's `specialRankEnabled` (else 403); an entry that is not in a
 * unit's waiting list → 400 naming `rank`.
 */
export async function moveInWaitingList(
  trx: Kysely<Database>,
  lead: { id: string; project_id: string; data: Record<string, unknown> },
  settings: Record<string, unknown>,
  rank: number,
): Promise<number> {
  if (settings.specialRankEnabled !== true) throw ERRORS.forbidden("This project's waiting lists are ranked by arrival (specialRankEnabled is off)");
  const unit = lead.data.unit;
  if (lead.data.source !== 'waitlist' || typeof unit !== 'string' || typeof lead.data.rank !== 'number') {
    throw ERRORS.invalidBody('rank: only a waitlist entry for a unit has a rank', {
      errors: [{ path: '/rank', message: 'is only for a waitlist entry for a unit' }],
    });
  }
  await lockWaitingList(trx, lead.project_id, unit);
  const order = (await listWaiting(trx, lead.project_id, unit)).map((w) => w.id).filter((id) => id !== lead.id);
  const at = Math.min(Math.max(rank, 1), order.length + 1);
  order.splice(at - 1, 0, lead.id);
  await writeRanks(trx, order);
  return at;
}

/**
 * PATCH /leads/{id} `{ rank }` (owner and administrators, with specialRankEnabled): the entry moves in its unit's
 * waiting list, the list renumbered in one transaction. Answers the lead as it is now.
 */
export async function rerankLead(ctx: Pick<Ctx, 'db'>, principal: Principal, id: string, rank: number) {
  const db = ctx.db.kysely;
  const { row } = authorize(principal, await findLeadForRank(db, id), 'read-leads', 'Lead');
  await db.transaction().execute((trx) => moveInWaitingList(trx, row, row.settings, rank));
  const lead = await findLeadRow(db, id);
  if (!lead) throw notFound('Lead');
  return lead;
}
