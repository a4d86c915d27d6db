import type { Transaction } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import { newObjectId } from '../../lib/object-id.ts';
import type { MailQueue } from '../../mail/mail.ts';
import { holdMail } from '../../mail/templates.ts';
import type { EventLog } from '../events/event-log.ts';
import { SYSTEM } from '../events/event-model.ts';
import { markOffered } from '../leads/leads.repo.ts';
import { findFirstWaiting, lockWaitingList } from '../priority/priority.repo.ts';
import { priorityOn } from '../priority/priority.service.ts';
import { holdLink, holdMinutes, recordHold } from './hold-tokens.ts';
import { findHoldTarget, holdUnit } from './holds.repo.ts';

export interface PriorityDeps {
  events: EventLog;
  mail: MailQueue;
  config: Pick<Config, 'pagesUrl'>;
}

/**
 * The priority list's one step: a unit that has just become available, in the transaction `trx` that made it
 * so, goes to the first entry of its waiting list not yet offered. The unit goes on hold for `onHoldMinsDuration`
 * under a hold of its own (with a hold token), the entry is marked offered (spent), and the person is mailed the
 * page's link with the token, through the outbox. Nothing happens when the project has no priority list, the list is
 * spent, or the unit is not free after all.
 *
 * Once across nodes: the caller's write holds the unit's row lock until commit, the waiting list's lock orders
 * offers of one unit, and both the unit's update (only from available) and the entry's mark (only once) are
 * conditional, so a second attempt changes nothing. Answers the entry offered, if any; the caller wakes the mail.
 */
export async function offerToNext(trx: Transaction<Database>, deps: PriorityDeps, unitId: string, now: number): Promise<string | undefined> {
  const target = await findHoldTarget(trx, unitId);
  if (!target || !priorityOn(target.settings)) return undefined;
  await lockWaitingList(trx, target.project_id, unitId);
  const next = await findFirstWaiting(trx, target.project_id, unitId);
  if (!next) return undefined;
  const expiresAt = new Date(now + holdMinutes(target.settings) * 60_000);
  const holdId = newObjectId(now);
  const held = await holdUnit(trx, unitId, holdId, expiresAt, now);
  if (!held) return undefined;
  if (!(await markOffered(trx, next.id, now))) throw new Error(`waiting-list entry ${next.id} was offered twice`);
  const token = await recordHold(trx, { id: holdId, unitId, projectId: target.project_id, client: `priority:${next.id}`, leadId: next.id, now });
  await deps.events.append(trx, {
    projectId: target.project_id,
    type: 'unit.held',
    actor: SYSTEM,
    subjectId: unitId,
    changes: { availability: ['available', 'on_hold'], onHoldExpiresAt: [null, expiresAt.toISOString()] },
    now,
  });
  const data = next.data as { email: string; firstName: string };
  await deps.mail.queue(
    trx,
    holdMail({
      project: { name: target.project_name, settings: target.settings },
      projectId: target.project_id,
      unitName: target.name,
      to: data.email,
      firstName: data.firstName,
      until: expiresAt,
      link: target.namespace === null ? undefined : holdLink(deps.config.pagesUrl, target.namespace, unitId, token),
      now,
    }),
  );
  return next.id;
}
