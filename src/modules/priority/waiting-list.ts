import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { listWaiting, lockWaitingList, writeRanks } from './priority.repo.ts';

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
  if (settings.specialRankEnabled !== true)
    throw new AppError(403, 'forbidden', "This project's waiting lists are ranked by arrival (specialRankEnabled is off)");
  const unit = lead.data.unit;
  if (lead.data.source !== 'waitlist' || typeof unit !== 'string' || typeof lead.data.rank !== 'number') {
    throw new AppError(400, 'invalid_body', 'rank: only a waitlist entry for a unit has a rank', [
      { path: '/rank', message: 'is only for a waitlist entry for a unit' },
    ]);
  }
  await lockWaitingList(trx, lead.project_id, unit);
  const order = (await listWaiting(trx, lead.project_id, unit)).map((w) => w.id).filter((id) => id !== lead.id);
  const at = Math.min(Math.max(rank, 1), order.length + 1);
  order.splice(at - 1, 0, lead.id);
  await writeRanks(trx, order);
  return at;
}
