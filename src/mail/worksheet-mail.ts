import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { splitEmailList } from '../http/validation.ts';
import { findMailProject } from './lead-mail.repo.ts';
import { findManagerEmails, findUnitNamesOf } from './worksheet-mail.repo.ts';
import type { MailQueue } from './mail.ts';
import { worksheetDecision, worksheetNotice, type WorksheetMailInput } from './templates.ts';

/** A worksheet as its mail needs it. */
export interface WorksheetForMail {
  _id: string;
  allocation: string;
  buyer: { firstName: string; lastName: string; email: string; phone: string };
  choices: string[];
  notes?: string | undefined;
  realtorEmail?: string | undefined;
}

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
  const link = `${input.consoleUrl}/admin/projects/${projectId}/launch`;
  await mail.queue(trx, worksheetNotice(mailInput(projectId, project, ws, names, input.now), to, link));
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
  const realtorEmail = ws.realtorEmail;
  await mail.queue(trx, worksheetDecision({ ...mailInput(projectId, project, ws, new Map(), input.now), realtorEmail }, input.status === 'accepted', unitName));
  return 1;
}

/** What the templates need of a worksheet: its choices by unit name (the id where a unit has none). */
function mailInput(
  projectId: string,
  project: { name: string; data: Record<string, unknown> },
  ws: WorksheetForMail,
  names: Map<string, string>,
  now: number,
): WorksheetMailInput {
  return {
    project: { name: project.name, settings: project.data },
    projectId,
    allocation: ws.allocation,
    buyer: ws.buyer,
    choices: ws.choices.map((id) => names.get(id) ?? id),
    notes: ws.notes,
    realtorEmail: ws.realtorEmail,
    now,
  };
}
