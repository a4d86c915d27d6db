import type { Transaction } from 'kysely';
import type { Ctx } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { queueLeadMail } from '../../mail/lead-mail.ts';
import type { LeadForMail } from '../../mail/templates.ts';
import { createdChanges, PUBLIC } from '../events/event-model.ts';
import { insertLead, LEAD_KEPT, toLead, type LeadRow } from './leads.repo.ts';

/**
 * A lead arriving from outside the sales team (an enquiry, a Cal.com booking), in the caller's transaction: stored,
 * queued for the project's CRMs (the answer never waits for a vendor), mailed to the sales team (and confirmed to the
 * visitor unless `confirm` is false), and logged as `lead.created` for the change feed and webhooks. All of it commits
 * with the lead, or none of it; the caller wakes the mail and the outbox once it has.
 */
export async function takeLead(
  trx: Transaction<Database>,
  ctx: Pick<Ctx, 'crm' | 'mail' | 'events'>,
  lead: { projectId: string; data: Record<string, unknown>; now: number; confirm?: boolean },
): Promise<LeadRow> {
  const { projectId, data, now } = lead;
  const row = await insertLead(trx, { id: newObjectId(now), projectId, data, createdAt: new Date(now) });
  const record = toLead(row);
  await ctx.crm.queue(trx, projectId, row.id);
  await queueLeadMail(trx, ctx.mail, projectId, record as unknown as LeadForMail, now, { confirm: lead.confirm !== false });
  await ctx.events.append(trx, { projectId, type: 'lead.created', actor: PUBLIC, subjectId: row.id, changes: createdChanges(record, LEAD_KEPT), now });
  return row;
}
