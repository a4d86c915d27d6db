import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { splitEmailList } from '../http/validation.ts';
import { findMailProject } from './lead-mail.repo.ts';
import { findManagerEmails, findUnitNamesOf } from './worksheet-mail.repo.ts';
import type { MailQueue } from './mail.ts';
import { escapeHtml } from './templates.ts';

/** A worksheet as its mail needs it. */
export interface WorksheetForMail {
  _id: string;
  allocation: string;
  buyer: { firstName: string; lastName: string; email: string; phone: string };
  choices: string[];
  notes?: string | undefined;
  realtorEmail?: string | undefined;
}

const html = (lines: string[]) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body style="font-family:sans-serif;line-height:1.5;color:#1b1b1b">${lines
    .map((l) => `<p>${escapeHtml(l).replace(/\n/g, '<br>')}</p>`)
    .join('')}</body></html>`;
const fromNameOf = (settings: Record<string, unknown>) =>
  typeof settings.formsFromName === 'string' && settings.formsFromName.trim() ? settings.formsFromName.trim() : undefined;
const buyerName = (ws: WorksheetForMail) => `${ws.buyer.firstName} ${ws.buyer.lastName}`.trim();

/**
 * The sales team's notice of a worksheet, queued in the submission's transaction: to the project's `formsSendTo`,
 * else to its owner and administrators (who decide worksheets). The choices by unit name, a link to the console's
 * Launch tab, Reply-To the realtor when they left an e-mail. Returns how many messages were queued.
 */
export async function queueWorksheetSubmitted(
  trx: Transaction<Database>,
  mail: MailQueue,
  input: { projectId: string; worksheet: WorksheetForMail; consoleUrl: string; now: number },
): Promise<number> {
  const { projectId, worksheet: ws } = input;
  const project = await findMailProject(trx, projectId);
  if (!project) return 0;
  const formsSendTo = typeof project.data.formsSendTo === 'string' ? splitEmailList(project.data.formsSendTo) : [];
  const to = formsSendTo.length ? formsSendTo : await findManagerEmails(trx, projectId);
  if (!to.length) return 0;
  const names = new Map((await findUnitNamesOf(trx, projectId, ws.choices)).map((u) => [u.id, u.name]));
  const choices = ws.choices.map((id, i) => `${i + 1}. ${names.get(id) ?? id}`).join('\n');
  const link = `${input.consoleUrl}/admin/projects/${projectId}/launch`;
  const lines = [
    `${ws.allocation} submitted a worksheet on ${project.name} for ${buyerName(ws)}.`,
    `Buyer: ${buyerName(ws)}, ${ws.buyer.email}, ${ws.buyer.phone}`,
    `Choices, in order of preference:\n${choices}`,
    ...(ws.notes ? [`Notes: ${ws.notes}`] : []),
    ...(ws.realtorEmail ? [`Realtor's e-mail: ${ws.realtorEmail} (they are mailed your decision)`] : []),
    `Accept or decline it in the console: ${link}`,
  ];
  await mail.queue(trx, {
    to,
    fromName: fromNameOf(project.data),
    replyTo: ws.realtorEmail,
    subject: `New worksheet from ${ws.allocation}: ${project.name}`,
    text: `${lines.join('\n\n')}\n`,
    html: html(lines),
    date: input.now,
    project: projectId,
  });
  return 1;
}

/**
 * The realtor's notice of the sales team's decision, queued in the decision's transaction, when the worksheet
 * carries the realtor's e-mail: accepted (with the unit reserved for the buyer) or declined. Returns 0 or 1.
 */
export async function queueWorksheetDecided(
  trx: Transaction<Database>,
  mail: MailQueue,
  input: { projectId: string; worksheet: WorksheetForMail; status: 'accepted' | 'declined'; unitId: string | null; now: number },
): Promise<number> {
  const { projectId, worksheet: ws } = input;
  if (!ws.realtorEmail) return 0;
  const project = await findMailProject(trx, projectId);
  if (!project) return 0;
  const unitName = input.unitId ? ((await findUnitNamesOf(trx, projectId, [input.unitId]))[0]?.name ?? input.unitId) : undefined;
  const accepted = input.status === 'accepted';
  const lines = accepted
    ? [
        `Your worksheet for ${buyerName(ws)} on ${project.name} was accepted: unit ${unitName} is reserved for them.`,
        'The sales team will be in touch about the next steps.',
      ]
    : [`Your worksheet for ${buyerName(ws)} on ${project.name} was declined.`, 'You may submit another worksheet with other choices.'];
  await mail.queue(trx, {
    to: [ws.realtorEmail],
    fromName: fromNameOf(project.data),
    subject: accepted ? `Worksheet accepted: ${unitName} for ${buyerName(ws)} (${project.name})` : `Worksheet declined: ${buyerName(ws)} (${project.name})`,
    text: `${lines.join('\n\n')}\n`,
    html: html(lines),
    date: input.now,
    project: projectId,
  });
  return 1;
}
