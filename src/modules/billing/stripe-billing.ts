import type Stripe from 'stripe';
import { upstream, type StripeConnector } from '../deposits/stripe.ts';

/** What the service reads of a subscription: Stripe's ids, where it stands and its dates (ms), nothing of a card. */
export interface SubscriptionState {
  id: string;
  customer: string;
  /** trialing, active, past_due, unpaid, canceled, incomplete, incomplete_expired or paused. */
  status: string;
  /** The price of its (first) item, and that item: what the user's published projects are billed on. */
  priceId: string | null;
  itemId: string | null;
  quantity: number | null;
  trialEnd: number | null;
  currentPeriodEnd: number | null;
  cancelAtPeriodEnd: boolean;
  /** When it was made (ms). */
  created: number;
}

const ms = (seconds: number | null | undefined) => (typeof seconds === 'number' ? seconds * 1000 : null);
const idOf = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : (v?.id ?? undefined));

function stateOf(s: Stripe.Subscription): SubscriptionState {
  const item = s.items.data[0];
  // The period is the item's since Stripe's 2025 API versions; older versions kept it on the subscription.
  const periodEnd = item?.current_period_end ?? (s as unknown as { current_period_end?: number }).current_period_end;
  return {
    id: s.id,
    customer: idOf(s.customer) ?? '',
    status: s.status,
    priceId: item?.price.id ?? null,
    itemId: item?.id ?? null,
    quantity: item?.quantity ?? null,
    trialEnd: ms(s.trial_end),
    currentPeriodEnd: ms(periodEnd),
    cancelAtPeriodEnd: s.cancel_at_period_end,
    created: s.created * 1000,
  };
}

/**
 * The plans' calls to Stripe, on the platform's own account with the deposits' client (the same key and
 * STRIPE_API_BASE): the customer, Checkout in subscription mode, the customer portal, and reading back what an event
 * names. Every failure is a 502 in words (`upstream`), never with a key in it.
 */
export class StripeBilling {
  constructor(private readonly connector: StripeConnector) {}

  get #stripe(): Stripe {
    return this.connector.platformClient();
  }

  /** The user's Stripe customer, made once: one Idempotency-Key per user, so two racing requests get one customer. */
  async createCustomer(email: string, userId: string, idempotencyKey: string): Promise<string> {
    try {
      const customer = await this.#stripe.customers.create({ email, metadata: { showsuite_user: userId } }, { idempotencyKey });
      return customer.id;
    } catch (err) {
      throw upstream(err, 'creating the customer');
    }
  }

  /** A Checkout Session in subscription mode for one plan's price; with `trialDays` the subscription starts with a trial. */
  async checkout(input: {
    customer: string;
    price: string;
    quantity: number;
    trialDays: number;
    userId: string;
    successUrl: string;
    cancelUrl: string;
  }): Promise<string> {
    try {
      const session = await this.#stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: input.customer,
        line_items: [{ price: input.price, quantity: input.quantity }],
        subscription_data: {
          metadata: { showsuite_user: input.userId },
          ...(input.trialDays > 0 ? { trial_period_days: input.trialDays } : {}),
        },
        client_reference_id: input.userId,
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
      });
      if (!session.url) throw new Error('no url');
      return session.url;
    } catch (err) {
      throw upstream(err, 'creating the Checkout Session for the subscription');
    }
  }

  /** A customer portal session (change plan, card, invoices, cancel), returning to `returnUrl`. */
  async portal(customer: string, returnUrl: string): Promise<string> {
    try {
      return (await this.#stripe.billingPortal.sessions.create({ customer, return_url: returnUrl })).url;
    } catch (err) {
      throw upstream(err, 'opening the customer portal');
    }
  }

  async retrieveSubscription(id: string): Promise<SubscriptionState> {
    try {
      return stateOf(await this.#stripe.subscriptions.retrieve(id));
    } catch (err) {
      throw upstream(err, 'reading the subscription');
    }
  }

  /** The customer's subscriptions that are not canceled (Stripe's list leaves those out), newest first. */
  async subscriptionsOf(customer: string): Promise<SubscriptionState[]> {
    try {
      const list = await this.#stripe.subscriptions.list({ customer, limit: 100 });
      return list.data.map(stateOf).sort((a, b) => b.created - a.created || b.id.localeCompare(a.id));
    } catch (err) {
      throw upstream(err, 'listing the customer’s subscriptions');
    }
  }

  /** Cancels a subscription now; what its period has left is credited to the customer (Stripe prorates). */
  async cancelSubscription(id: string): Promise<void> {
    try {
      await this.#stripe.subscriptions.cancel(id, { prorate: true });
    } catch (err) {
      throw upstream(err, 'cancelling the subscription');
    }
  }

  /** The subscription a Checkout Session made (subscription mode), read back; undefined for any other session. */
  async subscriptionOfSession(sessionId: string): Promise<string | undefined> {
    try {
      const session = await this.#stripe.checkout.sessions.retrieve(sessionId);
      return session.mode === 'subscription' ? idOf(session.subscription) : undefined;
    } catch (err) {
      throw upstream(err, 'reading the Checkout Session');
    }
  }

  /** The subscription an invoice bills, read back; undefined for an invoice of no subscription. */
  async subscriptionOfInvoice(invoiceId: string): Promise<string | undefined> {
    try {
      const invoice = await this.#stripe.invoices.retrieve(invoiceId);
      return idOf(invoice.parent?.subscription_details?.subscription);
    } catch (err) {
      throw upstream(err, 'reading the invoice');
    }
  }

  /** Sets how many published projects the item bills (Stripe prorates the change). */
  async setQuantity(itemId: string, quantity: number): Promise<void> {
    try {
      await this.#stripe.subscriptionItems.update(itemId, { quantity });
    } catch (err) {
      throw upstream(err, 'changing the subscription item’s quantity');
    }
  }
}
