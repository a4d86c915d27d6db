import type { Transaction } from 'kysely';
import type { Ctx } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import { splitEmailList } from '../../http/validation.ts';
import { depositNotice, depositReceiptMail, langOf } from '../../mail/templates.ts';
import { actorOf, PUBLIC, SYSTEM, type Actor } from '../events/event-model.ts';
import { markHoldReleased } from '../holds/index.ts';
import { markLeadDeposit } from '../leads/leads.repo.ts';
import { findProjectMembership, touchOwnerBundles } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { reserveDepositUnit } from '../units/unit-writes.repo.ts';
import { findUserById, findUserByPaymentsAccount, mergeUserProfile } from '../users/users.repo.ts';
import { depositFor, toMajor, toMinor } from './amounts.ts';
import {
  claimPendingDeposits,
  findDeposit,
  findDepositMailContext,
  findDepositTerms,
  findPublicDeposit,
  insertDeposit,
  listProjectDeposits,
  lockDepositBySession,
  markDepositExpired,
  markDepositPaid,
  markDepositRefunded,
  recordPaymentEvent,
  type DepositFilters,
  type DepositRow,
  type DepositStatus,
} from './deposits.repo.ts';
import { paymentsOff, type AccountState, type SessionState } from './stripe.ts';
import { BillingService } from '../billing/billing.service.ts';

/** A deposit as the sales team reads it (GET /projects/{id}/deposits, POST /deposits/{id}/refund). */
export interface DepositRecord {
  _id: string;
  project: string;
  unit: string | null;
  unitName?: string | undefined;
  lead: string | null;
  status: string;
  amount: number;
  currency: string;
  buyerName: string;
  buyerEmail: string;
  createdAt: string;
  expiresAt: string;
  paidAt: string | null;
  expiredAt: string | null;
  refundedAt: string | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export const toDeposit = (r: DepositRow & { unit_name?: string | null }): DepositRecord => ({
  _id: r.id,
  project: r.project_id,
  unit: r.unit_id,
  ...(r.unit_name ? { unitName: r.unit_name } : {}),
  lead: r.lead_id,
  status: r.status,
  amount: Number(r.amount),
  currency: r.currency,
  buyerName: r.buyer_name,
  buyerEmail: r.buyer_email,
  createdAt: new Date(r.created_at).toISOString(),
  expiresAt: new Date(r.expires_at).toISOString(),
  paidAt: iso(r.paid_at),
  expiredAt: iso(r.expired_at),
  refundedAt: iso(r.refunded_at),
});

/** What a unit's hold will charge: the owner's account, the amount in minor units and the currency. */
export interface DepositTerms {
  accountId: string;
  amount: number;
  currency: string;
  description: string | undefined;
}

/** The payment part of a hold's answer. */
export interface PaymentOffer {
  _id: string;
  status: 'pending';
  checkoutUrl: string;
  amount: number;
  currency: string;
  expiresAt: string;
}

/** GET /users/me/payments. */
export interface PaymentsState {
  available: boolean;
  connected: boolean;
  detailsSubmitted: boolean;
  chargesEnabled: boolean;
  missing: string[];
  disabledReason: string | null;
}

/** How many pending deposits one reconciliation pass asks Stripe about. */
const RECONCILE_BATCH = 20;

/**
 * Deposits through each project owner's own Stripe account: onboarding, the deposit a hold takes, Stripe's events,
 * refunds, the list, and the pass that expires lapsed sessions and finds payments whose events never came.
 */
/** How long a node trusts what it kept of a complete connected account before asking Stripe again. */
const COMPLETE_ACCOUNT_READ_MS = 10 * 60_000;

export class DepositsService {
  readonly #billing: BillingService;

  constructor(private readonly ctx: Ctx) {
    this.#billing = new BillingService(ctx);
  }

  /** POST /users/me/payments/onboarding: the caller's connected account (created once) and a link to finish it. */
  async onboarding(principal: Principal): Promise<{ url: string }> {
    const stripe = this.ctx.payments;
    if (!stripe.enabled) throw paymentsOff();
    const user = await findUserById(this.ctx.db.kysely, principal.id);
    if (!user) throw notFound('User');
    let account = typeof user.profile.paymentsAccountId === 'string' ? user.profile.paymentsAccountId : undefined;
    if (!account) {
      // One key per user: two requests racing get the same account back from Stripe.
      account = await stripe.createAccount(user.username, user.id, `showsuite-account-${user.id}`);
      await mergeUserProfile(
        this.ctx.db.kysely,
        user.id,
        { paymentsAccountId: account, paymentsOnboardingDone: false, paymentsDetailsSubmitted: false },
        undefined,
        { at: this.ctx.clock.now() },
      );
    }
    // Back to the console's Profile, which reads the account again and says what Stripe still needs.
    const back = `${this.ctx.config.mail.publicUrl}/admin/profile`;
    return { url: await stripe.accountLink(account, `${back}?payments=done`, `${back}?payments=again`) };
  }

  /** When this node last read each complete account back from Stripe (account id → time). */
  readonly #completeReadAt = new Map<string, number>();

  /**
   * GET /users/me/payments: whether this server takes payments at all and, with the caller's connected account, how
   * it stands at Stripe now (read back, and kept as `account.updated` keeps it), with what Stripe still needs. An
   * account that takes charges with its details in is read back at most every COMPLETE_ACCOUNT_READ_MS per node (its
   * `account.updated` events keep it between); one still missing something is read at each call, so the console sees
   * the owner's progress the moment they come back from Stripe's form.
   */
  async paymentsState(principal: Principal): Promise<PaymentsState> {
    const user = await findUserById(this.ctx.db.kysely, principal.id);
    if (!user) throw notFound('User');
    const accountId = typeof user.profile.paymentsAccountId === 'string' ? user.profile.paymentsAccountId : undefined;
    const stored: PaymentsState = {
      available: this.ctx.payments.enabled,
      connected: accountId !== undefined,
      detailsSubmitted: user.profile.paymentsDetailsSubmitted === true,
      chargesEnabled: user.profile.paymentsOnboardingDone === true,
      missing: [],
      disabledReason: null,
    };
    if (!this.ctx.payments.enabled || !accountId) return stored;
    const now = this.ctx.clock.now();
    const readAt = this.#completeReadAt.get(accountId);
    if (stored.chargesEnabled && stored.detailsSubmitted && readAt !== undefined && now - readAt < COMPLETE_ACCOUNT_READ_MS) return stored;
    const account = await this.ctx.payments.retrieveAccount(accountId);
    await this.ctx.db.kysely.transaction().execute((trx) => this.#keepAccount(trx, account));
    if (account.chargesEnabled && account.detailsSubmitted && !account.missing.length) {
      if (this.#completeReadAt.size >= 10_000) this.#completeReadAt.clear();
      this.#completeReadAt.set(accountId, now);
    } else this.#completeReadAt.delete(accountId);
    return {
      ...stored,
      detailsSubmitted: account.detailsSubmitted,
      chargesEnabled: account.chargesEnabled,
      missing: account.missing,
      disabledReason: account.disabledReason,
    };
  }

  /** What Stripe said of a connected account, kept on its owner (and their projects' bundles changed with it). */
  async #keepAccount(trx: Transaction<Database>, account: AccountState): Promise<void> {
    const user = await findUserByPaymentsAccount(trx, account.id);
    if (!user) return;
    const was = { done: user.profile.paymentsOnboardingDone === true, submitted: user.profile.paymentsDetailsSubmitted === true };
    if (was.done === account.chargesEnabled && was.submitted === account.detailsSubmitted) return;
    await mergeUserProfile(trx, user.id, { paymentsDetailsSubmitted: account.detailsSubmitted, paymentsOnboardingDone: account.chargesEnabled }, undefined, {
      at: this.ctx.clock.now(),
    });
    // The page offers deposits only for an onboarded owner: their bundles change with it.
    if (was.done !== account.chargesEnabled) await touchOwnerBundles(trx, user.id);
  }

  /** The deposit a hold of this unit takes now, or undefined (payments off, the owner not onboarded, no amount). */
  async termsFor(trx: Transaction<Database>, unitId: string): Promise<DepositTerms | undefined> {
    if (!this.ctx.payments.enabled) return undefined;
    const t = await findDepositTerms(trx, unitId);
    if (!t || !t.account_id || !t.onboarded) return undefined;
    const deposit = depositFor(t.settings, t.unit);
    if (!deposit) return undefined;
    const description =
      typeof t.settings.chargeDescription === 'string' && t.settings.chargeDescription.trim() ? t.settings.chargeDescription.trim() : undefined;
    return { accountId: t.account_id, amount: toMinor(deposit.amount, deposit.currency), currency: deposit.currency, description };
  }

  /**
   * In the hold's transaction: a Checkout Session on the owner's account for the deposit, and its record. The session
   * is created under an Idempotency-Key derived from the deposit, so the SDK's retries never make a second one.
   */
  async offer(
    trx: Transaction<Database>,
    terms: DepositTerms,
    hold: {
      depositId: string;
      holdId: string;
      projectId: string;
      namespace: string | null;
      projectName: string;
      unitId: string;
      unitName: string;
      leadId: string;
      buyer: { firstName: string; lastName: string; email: string };
      expiresAt: Date;
      now: number;
    },
  ): Promise<PaymentOffer> {
    const page =
      hold.namespace === null ? this.ctx.config.pagesUrl : `${this.ctx.config.pagesUrl}/p/${encodeURIComponent(hold.namespace)}/units/${hold.unitId}`;
    const back = (how: string) => `${page}?deposit=${hold.depositId}&payment=${how}`;
    const session = await this.ctx.payments.createCheckoutSession(
      terms.accountId,
      {
        amount: terms.amount,
        currency: terms.currency,
        name: `Deposit: ${hold.unitName}, ${hold.projectName}`,
        description: terms.description,
        email: hold.buyer.email,
        depositId: hold.depositId,
        successUrl: back('done'),
        cancelUrl: back('cancelled'),
      },
      `showsuite-deposit-${hold.depositId}`,
    );
    if (!session.url) throw ERRORS.upstreamFailed('Stripe created the Checkout Session without a payment page address');
    await insertDeposit(trx, {
      id: hold.depositId,
      projectId: hold.projectId,
      unitId: hold.unitId,
      leadId: hold.leadId,
      holdId: hold.holdId,
      accountId: terms.accountId,
      sessionId: session.id,
      amount: terms.amount,
      currency: terms.currency,
      buyerName: `${hold.buyer.firstName} ${hold.buyer.lastName}`.trim(),
      buyerEmail: hold.buyer.email,
      createdAt: new Date(hold.now),
      expiresAt: hold.expiresAt,
    });
    const marked = { _id: hold.depositId, status: 'pending', amount: terms.amount, currency: terms.currency };
    await markLeadDeposit(trx, hold.leadId, marked);
    await this.ctx.events.append(trx, {
      projectId: hold.projectId,
      type: 'deposit.pending',
      actor: PUBLIC,
      subjectId: hold.depositId,
      changes: {
        status: [null, 'pending'],
        amount: [null, terms.amount],
        currency: [null, terms.currency],
        unit: [null, hold.unitId],
        lead: [null, hold.leadId],
      },
      now: hold.now,
    });
    return {
      _id: hold.depositId,
      status: 'pending',
      checkoutUrl: session.url,
      amount: terms.amount,
      currency: terms.currency,
      expiresAt: hold.expiresAt.toISOString(),
    };
  }

  /** GET /public/deposits/{id}: where a deposit stands, for the buyer's page (no buyer, no Stripe id). */
  async publicStatus(id: string) {
    const d = await findPublicDeposit(this.ctx.db.kysely, id);
    if (!d) throw notFound('Deposit');
    return {
      _id: d.id,
      status: d.status as DepositStatus,
      amount: Number(d.amount),
      currency: d.currency,
      unit: d.unit_id,
      project: d.project_id,
      expiresAt: new Date(d.expires_at).toISOString(),
    };
  }

  /**
   * POST /payments/webhook: a verified event, handled once across nodes and restarts. What it says is read back
   * from Stripe (the account, the session); the event's id is recorded in the transaction of its effect, so a
   * redelivery or the same event on another node changes nothing, and the 2xx is sent only once that committed.
   */
  async handleEvent(raw: Buffer, signature: string | undefined): Promise<{ handled: boolean }> {
    const event = this.ctx.payments.verifyEvent(raw, signature);
    // The platform's own subscription events (plans, BILLING=stripe) share the endpoint and its once-only record.
    if (this.#billing.handles(event)) return this.#billing.handleEvent(event);
    const now = this.ctx.clock.now();
    const db = this.ctx.db.kysely;
    if (event.type === 'account.updated') {
      const accountId = event.account ?? event.objectId;
      const account = accountId ? await this.ctx.payments.retrieveAccount(accountId) : undefined;
      return db.transaction().execute(async (trx) => {
        if (!(await recordPaymentEvent(trx, event.id, event.type, now))) return { handled: false };
        if (account) await this.#keepAccount(trx, account);
        return { handled: true };
      });
    }
    const sessionEvents = ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'checkout.session.expired'];
    if (sessionEvents.includes(event.type) && event.objectId) {
      const sessionId = event.objectId;
      // The account asked is the deposit's own (the owner's at the time), never the event's word for it.
      const known = await db.transaction().execute((trx) => lockDepositBySession(trx, sessionId));
      const state = known ? await this.ctx.payments.retrieveSession(known.account_id, sessionId) : undefined;
      const outcome = await db.transaction().execute(async (trx) => {
        if (!(await recordPaymentEvent(trx, event.id, event.type, now))) return { handled: false };
        if (state) await this.#apply(trx, sessionId, state, now);
        return { handled: true };
      });
      this.ctx.mail.wake();
      return outcome;
    }
    // Other events are acknowledged (and remembered) so Stripe stops sending them.
    return db.transaction().execute(async (trx) => ({ handled: await recordPaymentEvent(trx, event.id, event.type, now) }));
  }

  /** Moves a pending deposit by its session as Stripe reported it: complete and paid → paid; expired → expired. */
  async #apply(trx: Transaction<Database>, sessionId: string, state: SessionState, now: number): Promise<void> {
    const d = await lockDepositBySession(trx, sessionId);
    if (!d || d.status !== 'pending') return;
    if (state.status === 'complete' && state.paymentStatus === 'paid') {
      // The amount charged is Stripe's word, read back; one that differs from the deposit asked for is not taken as it.
      if (state.amount !== Number(d.amount) || state.currency !== d.currency) return;
      await this.#paid(trx, d, state.paymentIntent, now);
    } else if (state.status === 'expired') {
      await this.#expired(trx, d, now);
    }
  }

  async #paid(trx: Transaction<Database>, d: DepositRow, paymentIntent: string | null, now: number) {
    const paid = await markDepositPaid(trx, d.id, paymentIntent, now);
    if (!paid) return;
    const unit = d.unit_id ? await reserveDepositUnit(trx, d.unit_id, d.hold_id, now) : undefined;
    if (unit) {
      if (unit.before === 'on_hold') await markHoldReleased(trx, d.hold_id, now);
      await this.ctx.events.append(trx, {
        projectId: d.project_id,
        type: 'unit.updated',
        actor: SYSTEM,
        subjectId: unit.id,
        changes: { availability: [unit.before, 'reserved'] },
        now,
      });
    }
    await this.#transition(trx, d, 'paid', SYSTEM, now);
    const context = await findDepositMailContext(trx, d.id);
    const settings = context.settings;
    const amountText = new Intl.NumberFormat(langOf(settings.projectLang), { style: 'currency', currency: d.currency.toUpperCase() }).format(
      toMajor(Number(d.amount), d.currency),
    );
    const input = {
      project: { name: context.project_name, settings },
      projectId: d.project_id,
      unitName: context.unit_name ?? '',
      buyer: { name: d.buyer_name, email: d.buyer_email },
      amountText,
      depositId: d.id,
      reserved: unit !== undefined,
      consoleLink: `${this.ctx.config.mail.publicUrl}/admin/projects/${d.project_id}/deposits?deposit=${d.id}`,
      now,
    };
    await this.ctx.mail.queue(trx, depositReceiptMail(input));
    const team = typeof settings.formsSendTo === 'string' ? splitEmailList(settings.formsSendTo) : [];
    if (team.length) await this.ctx.mail.queue(trx, depositNotice(input, team));
  }

  async #expired(trx: Transaction<Database>, d: DepositRow, now: number) {
    if (!(await markDepositExpired(trx, d.id, now))) return;
    await this.#transition(trx, d, 'expired', SYSTEM, now);
  }

  /** The lead's mark and the change log's event of a deposit's move from `d.status` to `to`. */
  async #transition(trx: Transaction<Database>, d: DepositRow, to: DepositRow['status'], actor: Actor, now: number) {
    const paidAt = to === 'paid' ? new Date(now).toISOString() : iso(d.paid_at);
    if (d.lead_id) {
      await markLeadDeposit(trx, d.lead_id, { _id: d.id, status: to, amount: Number(d.amount), currency: d.currency, ...(paidAt ? { paidAt } : {}) });
      // A deposit paid or refunded is news for the CRMs: the lead is pushed again, carrying it (woken with the mail).
      if (to === 'paid' || to === 'refunded') await this.ctx.crm.queue(trx, d.project_id, d.lead_id);
    }
    await this.ctx.events.append(trx, {
      projectId: d.project_id,
      type: `deposit.${to}` as 'deposit.paid',
      actor,
      subjectId: d.id,
      changes: { status: [d.status, to] },
      now,
    });
  }

  /** POST /deposits/{id}/refund (owner and administrators): refunded at Stripe, then recorded. */
  async refund(principal: Principal, id: string): Promise<DepositRecord> {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findDeposit(db, id), 'manage', 'Deposit');
    if (row.status !== 'paid') throw ERRORS.conflict(`Only a paid deposit can be refunded (this one is ${row.status})`);
    if (!this.ctx.payments.enabled) throw paymentsOff();
    if (!row.payment_intent_id) throw ERRORS.conflict('Stripe gave no payment for this deposit to refund');
    // One key per deposit: a retried or concurrent refund is the same refund at Stripe.
    const refundId = await this.ctx.payments.refund(row.account_id, row.payment_intent_id, `showsuite-refund-${row.id}`);
    const now = this.ctx.clock.now();
    const refunded = await db.transaction().execute(async (trx) => {
      const done = await markDepositRefunded(trx, id, refundId, now);
      if (!done) {
        const again = await findDeposit(trx, id);
        if (again?.status === 'refunded') return toDeposit(again);
        throw ERRORS.conflict('This deposit changed meanwhile');
      }
      await this.#transition(trx, { ...row, status: 'paid' }, 'refunded', actorOf(principal), now);
      return toDeposit(done);
    });
    this.ctx.crm.wake();
    return refunded;
  }

  /** GET /projects/{id}/deposits (owner and administrators). */
  async list(principal: Principal, projectId: string, filters: DepositFilters, page: { limit: number; offset: number }) {
    const db = this.ctx.db.kysely;
    authorize(principal, await findProjectMembership(db, projectId), 'read-leads');
    const rows = await listProjectDeposits(db, projectId, filters, page);
    return { records: rows.map(toDeposit), total: rows[0]?.total ?? 0 };
  }

  /**
   * The reconciliation pass (on the hold sweeper's schedule, shared through the database): pending deposits are read
   * back from Stripe; those whose window lapsed are expired at Stripe first (a session paid meanwhile stays paid).
   * Answers how many changed.
   */
  async reconcile(now: number): Promise<number> {
    if (!this.ctx.payments.enabled) return 0;
    const db = this.ctx.db.kysely;
    const due = await claimPendingDeposits(db, now, RECONCILE_BATCH);
    let changed = 0;
    for (const d of due) {
      // A window that lapsed, or a hold its holder released: the Checkout page must not take money for it any more.
      const over = d.hold_released || new Date(d.expires_at).getTime() <= now;
      const state = over
        ? await this.ctx.payments.expireSession(d.account_id, d.session_id)
        : await this.ctx.payments.retrieveSession(d.account_id, d.session_id);
      await db.transaction().execute(async (trx) => {
        await this.#apply(trx, d.session_id, state, now);
        const after = await findDeposit(trx, d.id);
        if (after && after.status !== 'pending') changed++;
      });
    }
    if (changed) this.ctx.mail.wake();
    return changed;
  }
}
