import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, SubscriptionsTable } from '../../db/schema.ts';
import { publishedSql } from '../projects/drafts.ts';

type Q = Kysely<Database>;
export type SubscriptionRow = Selectable<SubscriptionsTable>;

const COLUMNS = [
  'user_id',
  'customer_id',
  'subscription_id',
  'item_id',
  'price_id',
  'plan',
  'status',
  'trial_end',
  'current_period_end',
  'cancel_at_period_end',
  'lapsed_at',
  'payment_warned_for',
  'updated_at',
] as const;

/** The user's subscription; `lock` holds its row until the transaction ends (publishing checks against it one at a time). */
export function findSubscription(db: Q, userId: string, lock = false): Promise<SubscriptionRow | undefined> {
  const q = db.selectFrom('subscriptions').select(COLUMNS).where('user_id', '=', userId);
  return (lock ? q.forUpdate() : q).executeTakeFirst();
}

export interface SubscriptionWrite {
  userId: string;
  customerId: string;
  subscriptionId: string;
  itemId: string | null;
  priceId: string | null;
  plan: string | null;
  status: string;
  trialEnd: Date | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  /** Back in good standing: a lapse is over (its projects stay drafts until published again). */
  clearLapse: boolean;
  at: Date;
}

/** The subscription as Stripe last reported it, one row per user (a new subscription replaces the one before). */
export function upsertSubscription(db: Q, s: SubscriptionWrite): Promise<SubscriptionRow> {
  const values = {
    customer_id: s.customerId,
    subscription_id: s.subscriptionId,
    item_id: s.itemId,
    price_id: s.priceId,
    plan: s.plan,
    status: s.status,
    trial_end: s.trialEnd,
    current_period_end: s.currentPeriodEnd,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    updated_at: s.at,
  };
  return db
    .insertInto('subscriptions')
    .values({ user_id: s.userId, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...values, ...(s.clearLapse ? { lapsed_at: null } : {}) }))
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** How many of the user's projects are published, leaving out `except` (the project being published). */
export async function countPublished(db: Q, userId: string, except?: string): Promise<number> {
  let q = db
    .selectFrom('projects as p')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('p.user_id', '=', userId)
    .where(publishedSql('p'));
  if (except) q = q.where('p.id', '<>', except);
  return (await q.executeTakeFirstOrThrow()).n;
}

/** The names of the user's published projects, by name. */
export async function publishedProjectNames(db: Q, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('projects as p').select('p.name').where('p.user_id', '=', userId).where(publishedSql('p')).orderBy('p.name').execute();
  return rows.map((r) => r.name);
}

/**
 * Subscriptions whose paid period ended while they were not in good standing (unpaid, canceled, past due), not yet
 * handled: marked lapsed now and answered. Rows another node is marking are skipped, so each lapse is taken once.
 */
export async function claimLapsed(db: Q, now: Date, limit: number): Promise<{ user_id: string }[]> {
  const { rows } = await sql<{ user_id: string }>`
    with due as (
      select user_id from subscriptions
      where lapsed_at is null and current_period_end <= ${now} and status not in ('trialing', 'active')
      order by current_period_end
      limit ${limit}
      for update skip locked
    )
    update subscriptions s set lapsed_at = ${now}
    from due where s.user_id = due.user_id
    returning s.user_id`.execute(db);
  return rows;
}

/** Records that the owner was warned of a failed payment for the period ending `periodEnd`: false when they already were. */
export async function markPaymentWarned(db: Q, userId: string, periodEnd: Date): Promise<boolean> {
  const r = await db
    .updateTable('subscriptions')
    .set({ payment_warned_for: periodEnd })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('payment_warned_for', 'is', null), eb('payment_warned_for', '<>', periodEnd)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
