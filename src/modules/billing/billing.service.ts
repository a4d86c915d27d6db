import type { Kysely } from 'kysely';
import type { BillingConfig } from '../../config.ts';
import type { Ctx } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import { planLapsedMail, planPaymentFailedMail } from '../../mail/templates.ts';
import type { Outbox } from '../../outbox/outbox.ts';
import { SYSTEM } from '../events/event-model.ts';
import { isPublished } from '../projects/drafts.ts';
import { recordPaymentEvent } from '../deposits/deposits.repo.ts';
import type { VerifiedEvent } from '../deposits/stripe.ts';
import { draftOwnerProjects, markOwnerProjectsBilled } from '../projects/projects.repo.ts';
import { findUserById, findUserByPaymentsCustomer, mergeUserProfile } from '../users/users.repo.ts';
import { countPublished, findSubscription, markPaymentWarned, publishedProjectNames, upsertSubscription, type SubscriptionRow } from './billing.repo.ts';
import { queueDuplicatesSettle, queueQuantitySync } from './billing.jobs.ts';
import { billedFields, checkPlan, GOOD_STANDING, planInEffect, planOfPrice, planTerms, RUNNING, type PlanName } from './plans.ts';
import { StripeBilling, type SubscriptionState } from './stripe-billing.ts';

export const billingOff = () =>
  ERRORS.billingOff('Plans are not configured on this server (BILLING is not stripe): nothing is limited and there is nothing to subscribe to');

/** The subscription events the plans act on; `checkout.session.completed` only on the platform's own account. */
const SUBSCRIPTION_EVENTS = new Set(['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted']);
const INVOICE_EVENTS = new Set(['invoice.paid', 'invoice.payment_failed']);

/** The user's `subscription` field: what Stripe last said, in the service's words. */
export interface SubscriptionField {
  status: string;
  plan: PlanName | null;
  trialEnd: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
}

const iso = (ms: number | Date | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Plans (BILLING=stripe): the user's Stripe customer and subscription, Checkout and the customer portal, the webhook's
 * subscription events (read back from Stripe), the subscription's quantity, and what happens when a plan ends unpaid.
 */
export class BillingService {
  readonly #stripe: StripeBilling;

  constructor(private readonly ctx: Ctx) {
    this.#stripe = new StripeBilling(ctx.payments);
  }

  get enabled(): boolean {
    return this.ctx.config.billing.enabled;
  }

  /** Whether the webhook hands this verified event to the plans (with billing on). */
  handles(event: VerifiedEvent): boolean {
    if (!this.enabled) return false;
    return SUBSCRIPTION_EVENTS.has(event.type) || INVOICE_EVENTS.has(event.type) || (event.type === 'checkout.session.completed' && !event.account);
  }

  /** GET /users/me/subscription: the plans on offer, the caller's subscription and the plan in effect, their published projects. */
  async summary(principal: Principal) {
    if (!this.enabled) throw billingOff();
    const db = this.ctx.db.kysely;
    const row = await findSubscription(db, principal.id);
    const user = await findUserById(db, principal.id);
    if (!user) throw notFound('User');
    return {
      plans: planTerms(this.ctx.config.billing),
      trialDays: user.profile.appliedTrial === true ? 0 : this.ctx.config.billing.trialDays,
      planInEffect: planInEffect(row, this.ctx.clock.now()) ?? null,
      subscription: row ? subscriptionField(row) : null,
      publishedProjects: await countPublished(db, principal.id),
    };
  }

  /**
   * POST /users/me/subscription/checkout: Checkout in subscription mode for `plan`, on the platform's account, for the
   * caller's customer (made once), with the trial unless they took it. A subscription still running → 409 (the portal
   * changes plans).
   */
  async checkout(principal: Principal, plan: PlanName): Promise<{ url: string }> {
    if (!this.enabled) throw billingOff();
    const db = this.ctx.db.kysely;
    const user = await findUserById(db, principal.id);
    if (!user) throw notFound('User');
    const row = await findSubscription(db, user.id);
    if (row && RUNNING.has(row.status)) {
      throw ERRORS.conflict(`You already have the ${row.plan ?? 'a'} plan (${row.status}): change plans through POST /users/me/subscription/portal`);
    }
    const customer = await this.#customer(user);
    const { billing, mail } = this.ctx.config;
    const back = `${mail.publicUrl}/admin/profile`;
    const url = await this.#stripe.checkout({
      customer,
      price: billing.prices[plan],
      quantity: Math.max(1, await countPublished(db, user.id)),
      trialDays: user.profile.appliedTrial === true ? 0 : billing.trialDays,
      userId: user.id,
      successUrl: `${back}?plan=done`,
      cancelUrl: `${back}?plan=cancelled`,
    });
    return { url };
  }

  /** POST /users/me/subscription/portal: Stripe's customer portal for the caller's customer (made once). */
  async portal(principal: Principal): Promise<{ url: string }> {
    if (!this.enabled) throw billingOff();
    const user = await findUserById(this.ctx.db.kysely, principal.id);
    if (!user) throw notFound('User');
    const customer = await this.#customer(user);
    return { url: await this.#stripe.portal(customer, `${this.ctx.config.mail.publicUrl}/admin/profile`) };
  }

  /** The user's Stripe customer: kept as `paymentsCustomer`, made once (one Idempotency-Key per user). */
  async #customer(user: { id: string; username: string; profile: Record<string, unknown> }): Promise<string> {
    const kept = user.profile.paymentsCustomer as { id?: unknown } | undefined;
    if (typeof kept?.id === 'string') return kept.id;
    const id = await this.#stripe.createCustomer(user.username, user.id, `showsuite-customer-${user.id}`);
    await mergeUserProfile(this.ctx.db.kysely, user.id, { paymentsCustomer: { id } }, undefined, { at: this.ctx.clock.now() });
    return id;
  }

  /**
   * A verified subscription event: the subscription it names is read back from Stripe (the event's body is not
   * believed), then, in one transaction with the event's id (each event once across nodes), the user's fields, their
   * published projects' billing fields, the quantity's sync and, for a failed payment, the owner's warning.
   */
  async handleEvent(event: VerifiedEvent): Promise<{ handled: boolean }> {
    const subscriptionId = await this.#subscriptionOf(event);
    const state = subscriptionId ? await this.#stripe.retrieveSubscription(subscriptionId) : undefined;
    const now = this.ctx.clock.now();
    const outcome = await this.ctx.db.kysely.transaction().execute(async (trx) => {
      if (!(await recordPaymentEvent(trx, event.id, event.type, now))) return { handled: false };
      if (state) await this.#apply(trx, state, event.type === 'invoice.payment_failed', now);
      return { handled: true };
    });
    this.ctx.outbox.wake();
    return outcome;
  }

  async #subscriptionOf(event: VerifiedEvent): Promise<string | undefined> {
    if (!event.objectId) return undefined;
    if (SUBSCRIPTION_EVENTS.has(event.type)) return event.objectId;
    if (INVOICE_EVENTS.has(event.type)) return this.#stripe.subscriptionOfInvoice(event.objectId);
    return this.#stripe.subscriptionOfSession(event.objectId);
  }

  async #apply(trx: Kysely<Database>, state: SubscriptionState, paymentFailed: boolean, now: number, settling = false): Promise<void> {
    const user = await findUserByPaymentsCustomer(trx, state.customer);
    if (!user) return;
    const before = await findSubscription(trx, user.id, true);
    // An old subscription's late event does not replace a newer one that runs.
    if (before && before.subscription_id !== state.id && !RUNNING.has(state.status)) return;
    // Two that run at once (two Checkouts finished in parallel): one is kept, the other cancelled (settleDuplicates).
    if (!settling && before && before.subscription_id !== state.id && RUNNING.has(before.status)) await queueDuplicatesSettle(this.ctx.outbox, trx, user.id);
    const plan = planOfPrice(this.ctx.config.billing, state.priceId);
    const write = {
      userId: user.id,
      customerId: state.customer,
      subscriptionId: state.id,
      itemId: state.itemId,
      priceId: state.priceId,
      plan,
      status: state.status,
      trialEnd: state.trialEnd === null ? null : new Date(state.trialEnd),
      currentPeriodEnd: state.currentPeriodEnd === null ? null : new Date(state.currentPeriodEnd),
      cancelAtPeriodEnd: state.cancelAtPeriodEnd,
      clearLapse: GOOD_STANDING.has(state.status),
      at: new Date(now),
    };
    const row = await upsertSubscription(trx, write);
    const profile = { subscription: subscriptionField(row), ...(state.trialEnd !== null ? { appliedTrial: true } : {}) };
    await mergeUserProfile(trx, user.id, profile, undefined, { at: now });
    const inEffect = planInEffect(row, now);
    if (inEffect) await markOwnerProjectsBilled(trx, user.id, billedFields(row, inEffect), now);
    if (row.item_id && inEffect && state.quantity !== Math.max(1, await countPublished(trx, user.id))) {
      await queueQuantitySync(this.ctx.outbox, trx, user.id);
    }
    if (paymentFailed && !GOOD_STANDING.has(state.status) && write.currentPeriodEnd && (await markPaymentWarned(trx, user.id, write.currentPeriodEnd))) {
      await this.ctx.mail.queue(
        trx,
        planPaymentFailedMail({
          to: user.username,
          plan: plan === 'pro' ? 'Pro' : 'Starter',
          periodEnd: write.currentPeriodEnd.toUTCString(),
          published: await countPublished(trx, user.id),
          link: `${this.ctx.config.mail.publicUrl}/admin/profile`,
          now,
        }),
      );
    }
  }

  /**
   * The outbox's duplicates job: a customer with more than one running subscription keeps the newest; each other is
   * cancelled now with what its period has left credited by Stripe, so nobody pays twice; the plan is the newest's.
   */
  async settleDuplicates(userId: string): Promise<void> {
    const db = this.ctx.db.kysely;
    const row = await findSubscription(db, userId);
    if (!row) return;
    const [keep, ...others] = (await this.#stripe.subscriptionsOf(row.customer_id)).filter((s) => RUNNING.has(s.status));
    if (!keep || !others.length) return;
    for (const other of others) await this.#stripe.cancelSubscription(other.id);
    const now = this.ctx.clock.now();
    await db.transaction().execute((trx) => this.#apply(trx, keep, false, now, true));
    this.ctx.outbox.wake();
  }

  /** The outbox's quantity job: the subscription item bills as many projects as the user has published (at least one). */
  async syncQuantity(userId: string): Promise<void> {
    const db = this.ctx.db.kysely;
    const row = await findSubscription(db, userId);
    if (!row?.item_id || !planInEffect(row, this.ctx.clock.now())) return;
    await this.#stripe.setQuantity(row.item_id, Math.max(1, await countPublished(db, userId)));
  }

  /**
   * The outbox's lapse job (claimed once across nodes by the schedule): the plan ended unpaid, so the owner is mailed
   * first, then their published projects go to draft, in one transaction. A subscription paid meanwhile is left alone.
   */
  async lapse(userId: string): Promise<string[]> {
    const now = this.ctx.clock.now();
    const drafted = await this.ctx.db.kysely.transaction().execute(async (trx) => {
      const row = await findSubscription(trx, userId, true);
      const user = await findUserById(trx, userId);
      if (!row || !user || row.lapsed_at === null || planInEffect(row, now)) return [];
      const published = await publishedProjectNames(trx, userId);
      if (!published.length) return [];
      await this.ctx.mail.queue(trx, planLapsedMail({ to: user.username, projects: published, link: `${this.ctx.config.mail.publicUrl}/admin/profile`, now }));
      const projects = await draftOwnerProjects(trx, userId, now);
      for (const p of projects) {
        await this.ctx.events.append(trx, {
          projectId: p.id,
          type: 'project.updated',
          actor: SYSTEM,
          subjectId: p.id,
          changes: { published: [true, false] },
          now,
        });
      }
      return projects.map((p) => p.id);
    });
    this.ctx.mail.wake();
    return drafted;
  }
}

export function subscriptionField(row: SubscriptionRow): SubscriptionField {
  return {
    status: row.status,
    plan: (row.plan as PlanName | null) ?? null,
    trialEnd: iso(row.trial_end),
    currentPeriodEnd: iso(row.current_period_end),
    cancelAtPeriodEnd: row.cancel_at_period_end,
  };
}

/**
 * In the transaction that hands a project to a new owner (an accepted invitation with level `owner`), with plans on:
 * a published project takes a place in the new owner's plan as publishing it would (402 `plan_limit` otherwise, so
 * the invitation stays unaccepted until they have room), a project hiding the branding needs their Pro plan, the
 * project is billed on their subscription from now on, and both owners' subscription quantities follow.
 */
export async function billTransfer(
  trx: Kysely<Database>,
  deps: { config: BillingConfig; outbox: Outbox; now: number },
  project: { id: string; data: Record<string, unknown> },
  to: string,
  from: string | undefined,
): Promise<void> {
  if (!deps.config.enabled || !isPublished(project.data)) return;
  const billed = await checkPlan(trx, deps.config, deps.now, to, {
    publishes: { projectId: project.id },
    hidesBranding: project.data.showBranding === false,
  });
  await markOwnerProjectsBilled(trx, to, billed ?? {}, deps.now);
  await queueQuantitySync(deps.outbox, trx, to);
  if (from && from !== to) await queueQuantitySync(deps.outbox, trx, from);
}
