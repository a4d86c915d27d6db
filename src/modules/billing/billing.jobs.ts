import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Outbox } from '../../outbox/outbox.ts';

/** The outbox's kinds of the plans (registered only with BILLING=stripe; billing.schedule.ts runs them). */
export const QUANTITY_KIND = 'billing-quantity';
export const LAPSE_KIND = 'billing-lapse';
export const DUPLICATES_KIND = 'billing-duplicates';

export interface BillingJob {
  userId: string;
}

/**
 * Queues, in the write's transaction, the job that sets the owner's subscription quantity to their published projects
 * (Stripe is called after the commit, never inside a request's transaction).
 */
export async function queueQuantitySync(outbox: Outbox, q: Kysely<Database>, userId: string): Promise<void> {
  await outbox.enqueue(q, QUANTITY_KIND, { userId } satisfies BillingJob);
}

/**
 * Queues, in the event's transaction, the job that settles a customer with more than one running subscription (two
 * Checkouts finished in parallel): the newest is kept, each other cancelled at Stripe after the commit.
 */
export async function queueDuplicatesSettle(outbox: Outbox, q: Kysely<Database>, userId: string): Promise<void> {
  await outbox.enqueue(q, DUPLICATES_KIND, { userId } satisfies BillingJob);
}
