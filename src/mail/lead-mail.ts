import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { splitEmailList } from '../http/validation.ts';
import { findMailProject, findUnitName } from './lead-mail.repo.ts';
import type { MailQueue } from './mail.ts';
import { leadNotification, visitorConfirmation, type LeadForMail } from './templates.ts';

/**
 * Queues, in the lead's own transaction, the sales team's notice (when the project has formsSendTo) and the
 * visitor's confirmation (when it has formsMessage, unless `confirm` is false: a booking is confirmed by Cal.com).
 * Returns how many messages were queued.
 */
export async function queueLeadMail(
  trx: Transaction<Database>,
  mail: MailQueue,
  projectId: string,
  lead: LeadForMail,
  now: number,
  { confirm: confirming = true }: { confirm?: boolean } = {},
): Promise<number> {
  const project = await findMailProject(trx, projectId);
  if (!project) return 0;
  const settings = project.data;
  const sendTo = typeof settings.formsSendTo === 'string' ? splitEmailList(settings.formsSendTo) : [];
  const confirm = confirming && typeof settings.formsMessage === 'string' && settings.formsMessage.trim() !== '';
  if (!sendTo.length && !confirm) return 0;
  const unitName = lead.unit && /^[0-9a-f]{24}$/.test(lead.unit) ? await findUnitName(trx, projectId, lead.unit) : undefined;
  const target = { name: project.name, settings };
  let queued = 0;
  if (sendTo.length) {
    await mail.queue(trx, { ...leadNotification(target, lead, unitName, sendTo, now), project: projectId });
    queued++;
  }
  if (confirm) {
    await mail.queue(trx, { ...visitorConfirmation(target, lead, now), project: projectId });
    queued++;
  }
  return queued;
}
