import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

export type DepositStatus = 'pending' | 'paid' | 'expired' | 'refunded';

export interface DepositRow {
  id: string;
  project_id: string;
  unit_id: string | null;
  lead_id: string | null;
  hold_id: string;
  account_id: string;
  session_id: string;
  payment_intent_id: string | null;
  amount: number | string;
  currency: string;
  status: string;
  buyer_name: string;
  buyer_email: string;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
  expired_at: Date | null;
  refunded_at: Date | null;
}

const COLUMNS = [
  'd.id',
  'd.project_id',
  'd.unit_id',
  'd.lead_id',
  'd.hold_id',
  'd.account_id',
  'd.session_id',
  'd.payment_intent_id',
  'd.amount',
  'd.currency',
  'd.status',
  'd.buyer_name',
  'd.buyer_email',
  'd.created_at',
  'd.expires_at',
  'd.paid_at',
  'd.expired_at',
  'd.refunded_at',
] as const;

export interface NewDeposit {
  id: string;
  projectId: string;
  unitId: string;
  leadId: string;
  holdId: string;
  accountId: string;
  sessionId: string;
  amount: number;
  currency: string;
  buyerName: string;
  buyerEmail: string;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertDeposit(db: Q, d: NewDeposit): Promise<void> {
  await db
    .insertInto('deposits')
    .values({
      id: d.id,
      project_id: d.projectId,
      unit_id: d.unitId,
      lead_id: d.leadId,
      hold_id: d.holdId,
      account_id: d.accountId,
      session_id: d.sessionId,
      amount: d.amount,
      currency: d.currency,
      status: 'pending',
      buyer_name: d.buyerName,
      buyer_email: d.buyerEmail,
      created_at: d.createdAt,
      expires_at: d.expiresAt,
    })
    .execute();
}

/** A deposit with its project's team (for access checks); `lock` keeps its row until the transaction ends. */
export function findDeposit(db: Q, id: string, lock = false) {
  const q = db
    .selectFrom('deposits as d')
    .innerJoin('projects as p', 'p.id', 'd.project_id')
    .select([...COLUMNS, 'p.user_id', 'p.administrators', 'p.editors'])
    .where('d.id', '=', id);
  return (lock ? q.modifyEnd(sql`for update of d`) : q).executeTakeFirst();
}

/** The deposit of a Checkout Session, its row locked until the transaction ends (one event at a time per deposit). */
export function lockDepositBySession(db: Q, sessionId: string): Promise<DepositRow | undefined> {
  return db.selectFrom('deposits as d').select(COLUMNS).where('d.session_id', '=', sessionId).forUpdate().executeTakeFirst();
}

/** pending → paid, once: undefined when it was not pending. */
export function markDepositPaid(db: Q, id: string, paymentIntent: string | null, now: number): Promise<DepositRow | undefined> {
  return db
    .updateTable('deposits as d')
    .set({ status: 'paid', payment_intent_id: paymentIntent, paid_at: new Date(now) })
    .where('d.id', '=', id)
    .where('d.status', '=', 'pending')
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** pending → expired, once. */
export function markDepositExpired(db: Q, id: string, now: number): Promise<DepositRow | undefined> {
  return db
    .updateTable('deposits as d')
    .set({ status: 'expired', expired_at: new Date(now) })
    .where('d.id', '=', id)
    .where('d.status', '=', 'pending')
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** paid → refunded, once. */
export function markDepositRefunded(db: Q, id: string, refundId: string, now: number): Promise<DepositRow | undefined> {
  return db
    .updateTable('deposits as d')
    .set({ status: 'refunded', refund_id: refundId, refunded_at: new Date(now) })
    .where('d.id', '=', id)
    .where('d.status', '=', 'paid')
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** Which of a project's deposits to list: one unit's. */
export interface DepositFilters {
  unit?: string | undefined;
}

/** A project's deposits, newest first, with the unit's name and the count before paging. */
export function listProjectDeposits(db: Q, projectId: string, filters: DepositFilters, page: { limit: number; offset: number }) {
  let q = db
    .selectFrom('deposits as d')
    .leftJoin('units as u', 'u.id', 'd.unit_id')
    .select([...COLUMNS, 'u.name as unit_name', sql<number>`count(*) over()::int`.as('total')])
    .where('d.project_id', '=', projectId);
  if (filters.unit) q = q.where('d.unit_id', '=', filters.unit);
  return q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(page.limit).offset(page.offset).execute();
}

/**
 * Pending deposits to ask Stripe about, those asked longest ago first, marked asked now: those whose window lapsed
 * or whose holder released the hold (`hold_released`; to expire) and any whose event may never have come. Skips rows another node is checking or has checked at this instant,
 * so nodes sweeping together share the work.
 */
export async function claimPendingDeposits(db: Q, now: number, limit: number): Promise<(DepositRow & { hold_released: boolean })[]> {
  const { rows } = await sql<DepositRow & { hold_released: boolean }>`
    with due as (
      select id from deposits
      where status = 'pending' and (checked_at is null or checked_at < ${new Date(now)})
      order by checked_at nulls first, id
      limit ${limit}
      for update skip locked
    )
    update deposits d set checked_at = ${new Date(now)}
    from due where d.id = due.id
    returning d.id, d.project_id, d.unit_id, d.lead_id, d.hold_id, d.account_id, d.session_id, d.payment_intent_id, d.amount, d.currency,
      d.status, d.buyer_name, d.buyer_email, d.created_at, d.expires_at, d.paid_at, d.expired_at, d.refunded_at,
      coalesce((select h.released_at is not null from holds h where h.id = d.hold_id), false) as hold_released`.execute(db);
  return rows;
}

/** Records a Stripe event as handled, in the transaction of its effect: false when it already was (on any node). */
export async function recordPaymentEvent(db: Q, id: string, type: string, now: number): Promise<boolean> {
  const r = await db
    .insertInto('payment_events')
    .values({ id, type, received_at: new Date(now) })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

/** What deciding a unit's deposit needs: the unit's fields, its project's settings and the owner's payments account. */
export function findDepositTerms(db: Q, unitId: string) {
  return db
    .selectFrom('units as u')
    .innerJoin('projects as p', 'p.id', 'u.project_id')
    .innerJoin('users as o', 'o.id', 'p.user_id')
    .select([
      'u.data as unit',
      'p.data as settings',
      sql<string | null>`o.profile->>'paymentsAccountId'`.as('account_id'),
      sql<boolean>`coalesce((o.profile->>'paymentsOnboardingDone')::boolean, false)`.as('onboarded'),
    ])
    .where('u.id', '=', unitId)
    .executeTakeFirst();
}

/** A deposit as the buyer's page reads it after a reload or on its return from Checkout. */
export function findPublicDeposit(db: Q, id: string) {
  return db
    .selectFrom('deposits as d')
    .select(['d.id', 'd.status', 'd.amount', 'd.currency', 'd.unit_id', 'd.project_id', 'd.expires_at'])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** What a paid deposit's mails name: the unit, the project and its settings. */
export function findDepositMailContext(db: Q, id: string) {
  return db
    .selectFrom('deposits as d')
    .innerJoin('projects as p', 'p.id', 'd.project_id')
    .leftJoin('units as u', 'u.id', 'd.unit_id')
    .select(['p.name as project_name', 'p.data as settings', 'u.name as unit_name'])
    .where('d.id', '=', id)
    .executeTakeFirstOrThrow();
}
