import type { Transaction } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import { splitEmailList } from '../../http/validation.ts';
import type { MailQueue } from '../../mail/mail.ts';
import { holdEndedMail, holdEndedNotice, type EndedHoldForMail } from '../../mail/templates.ts';
import { findEndedHold } from './holds.repo.ts';

export interface ExpiryMailDeps {
  mail: MailQueue;
  config: Pick<Config, 'pagesUrl'>;
}

/** The unit's own page (no hold token: the hold is over), where the holder may hold it again. */
export const unitLink = (pagesUrl: string, namespace: string, unitId: string) => `${pagesUrl}/p/${encodeURIComponent(namespace)}/units/${unitId}`;

/**
 * Queues, in the sweep's transaction that writes the lapsed hold back as available, the holder's notice and (when the
 * project has formsSendTo) the sales team's. The sweep runs on one node at a time under its PostgreSQL lock and the
 * row is written back once, so each lapse is mailed once however many nodes sweep. A visitor's hold only: a priority
 * offer that lapses goes on to the next person, who is mailed by the priority list. Returns how many were queued.
 */
export async function queueHoldEndedMail(trx: Transaction<Database>, deps: ExpiryMailDeps, holdId: string, endedAt: Date, now: number): Promise<number> {
  const hold = await findEndedHold(trx, holdId);
  if (!hold || hold.client.startsWith('priority:') || !hold.lead) return 0;
  const email = typeof hold.lead.email === 'string' ? hold.lead.email : '';
  if (!email) return 0;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const input: EndedHoldForMail = {
    project: { name: hold.project_name, settings: hold.settings },
    projectId: hold.project_id,
    unitName: hold.unit_name,
    endedAt,
    holder: { firstName: text(hold.lead.firstName), lastName: text(hold.lead.lastName), email },
    link: hold.namespace === null ? undefined : unitLink(deps.config.pagesUrl, hold.namespace, hold.unit_id),
    now,
  };
  await deps.mail.queue(trx, holdEndedMail(input));
  const team = typeof hold.settings.formsSendTo === 'string' ? splitEmailList(hold.settings.formsSendTo) : [];
  if (!team.length) return 1;
  await deps.mail.queue(trx, holdEndedNotice(input, team));
  return 2;
}
