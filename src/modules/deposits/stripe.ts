import Stripe from 'stripe';
import type { PaymentsConfig } from '../../config.ts';
import { ERRORS, type AppError } from '../../http/errors.catalogue.ts';

/** What the service reads of a Checkout Session: never more than Stripe's ids, the amount and where it stands. */
export interface SessionState {
  id: string;
  url: string | null;
  /** open, complete or expired. */
  status: string;
  /** paid, unpaid or no_payment_required. */
  paymentStatus: string;
  amount: number;
  currency: string;
  paymentIntent: string | null;
}

/** What the service reads of a connected account. */
export interface AccountState {
  id: string;
  detailsSubmitted: boolean;
  chargesEnabled: boolean;
  /** What Stripe still needs of the owner (past due first, then currently due): Stripe's requirement names. */
  missing: string[];
  /** Why Stripe disabled charges, in Stripe's words (`requirements.past_due`, `requirements.pending_verification`, …). */
  disabledReason: string | null;
}

/** A verified Stripe event: its id, type, the connected account it came from and the id of the object it names. */
export interface VerifiedEvent {
  id: string;
  type: string;
  account: string | undefined;
  objectId: string | undefined;
}

export const paymentsOff = () => ERRORS.paymentsOff('Payments are not configured on this server (STRIPE_SECRET_KEY is unset): no deposit can be taken');

/** A Stripe failure in words, without anything from the request (keys, customers). */
export function upstream(err: unknown, doing: string): AppError {
  const detail = err instanceof Stripe.errors.StripeError ? `${err.type}${err.code ? ` (${err.code})` : ''}: ${err.message}` : 'no answer';
  return ERRORS.upstreamFailed(`Stripe refused or did not answer while ${doing}: ${detail}`, { cause: err });
}

/**
 * The service's one door to Stripe: the platform's key, the API address (STRIPE_API_BASE) and every call the
 * deposits make, each on the owner's connected account (`Stripe-Account`) where it concerns their money.
 */
export class StripeConnector {
  readonly #stripe: Stripe | undefined;
  readonly #webhookSecret: string | undefined;

  constructor(config: PaymentsConfig) {
    this.#webhookSecret = config.webhookSecret;
    this.#stripe = config.secretKey
      ? new Stripe(config.secretKey, {
          protocol: config.api.protocol,
          host: config.api.host,
          port: config.api.port,
          // Retries carry the same Idempotency-Key, so a lost answer never creates a second object.
          maxNetworkRetries: 2,
          timeout: 20_000,
          telemetry: false,
        })
      : undefined;
  }

  get enabled(): boolean {
    return this.#stripe !== undefined;
  }

  #client(): Stripe {
    if (!this.#stripe) throw paymentsOff();
    return this.#stripe;
  }

  /** The platform's client, for the plans' calls (src/modules/billing/stripe-billing.ts): the same key and API address. */
  platformClient(): Stripe {
    return this.#client();
  }

  async createAccount(email: string, userId: string, idempotencyKey: string): Promise<string> {
    try {
      const account = await this.#client().accounts.create({ type: 'express', email, metadata: { showsuite_user: userId } }, { idempotencyKey });
      return account.id;
    } catch (err) {
      throw upstream(err, 'creating the connected account');
    }
  }

  async accountLink(account: string, returnUrl: string, refreshUrl: string): Promise<string> {
    try {
      const link = await this.#client().accountLinks.create({ account, return_url: returnUrl, refresh_url: refreshUrl, type: 'account_onboarding' });
      return link.url;
    } catch (err) {
      throw upstream(err, 'creating the onboarding link');
    }
  }

  async retrieveAccount(account: string): Promise<AccountState> {
    try {
      const a = await this.#client().accounts.retrieve(account);
      const r = a.requirements;
      return {
        id: a.id,
        detailsSubmitted: a.details_submitted,
        chargesEnabled: a.charges_enabled,
        missing: [...new Set([...(r?.past_due ?? []), ...(r?.currently_due ?? [])])],
        disabledReason: r?.disabled_reason ?? null,
      };
    } catch (err) {
      throw upstream(err, 'reading the connected account');
    }
  }

  async createCheckoutSession(
    account: string,
    input: {
      amount: number;
      currency: string;
      name: string;
      description: string | undefined;
      email: string;
      depositId: string;
      successUrl: string;
      cancelUrl: string;
    },
    idempotencyKey: string,
  ): Promise<SessionState> {
    try {
      const session = await this.#client().checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: input.currency,
                unit_amount: input.amount,
                product_data: { name: input.name, ...(input.description ? { description: input.description } : {}) },
              },
            },
          ],
          customer_email: input.email,
          client_reference_id: input.depositId,
          metadata: { showsuite_deposit: input.depositId },
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        },
        { stripeAccount: account, idempotencyKey },
      );
      return sessionState(session);
    } catch (err) {
      throw upstream(err, 'creating the Checkout Session');
    }
  }

  async retrieveSession(account: string, sessionId: string): Promise<SessionState> {
    try {
      return sessionState(await this.#client().checkout.sessions.retrieve(sessionId, {}, { stripeAccount: account }));
    } catch (err) {
      throw upstream(err, 'reading the Checkout Session');
    }
  }

  /** Expires an open session; answers the session as it then stands (a session completed meanwhile stays complete). */
  async expireSession(account: string, sessionId: string): Promise<SessionState> {
    try {
      return sessionState(await this.#client().checkout.sessions.expire(sessionId, {}, { stripeAccount: account }));
    } catch (err) {
      // Only an open session can be expired: whatever it became (complete, expired), read it.
      if (err instanceof Stripe.errors.StripeInvalidRequestError) return this.retrieveSession(account, sessionId);
      throw upstream(err, 'expiring the Checkout Session');
    }
  }

  async refund(account: string, paymentIntent: string, idempotencyKey: string): Promise<string> {
    try {
      const refund = await this.#client().refunds.create({ payment_intent: paymentIntent }, { stripeAccount: account, idempotencyKey });
      return refund.id;
    } catch (err) {
      throw upstream(err, 'refunding the deposit');
    }
  }

  /**
   * Checks a webhook's `Stripe-Signature` over the raw body with STRIPE_WEBHOOK_SECRET (within Stripe's five-minute
   * tolerance) and answers the event's ids; 400 when it does not verify. Nothing else of the body is trusted.
   */
  verifyEvent(raw: Buffer, signature: string | undefined): VerifiedEvent {
    const stripe = this.#client();
    if (!this.#webhookSecret) throw paymentsOff();
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(raw, signature ?? '', this.#webhookSecret);
    } catch {
      throw ERRORS.invalidRequest('The Stripe-Signature header does not verify against the body');
    }
    const object = event.data.object as { id?: unknown };
    return { id: event.id, type: event.type, account: event.account ?? undefined, objectId: typeof object.id === 'string' ? object.id : undefined };
  }
}

function sessionState(s: Stripe.Checkout.Session): SessionState {
  const pi = s.payment_intent;
  return {
    id: s.id,
    url: s.url ?? null,
    status: s.status ?? 'open',
    paymentStatus: s.payment_status,
    amount: s.amount_total ?? 0,
    currency: s.currency ?? '',
    paymentIntent: typeof pi === 'string' ? pi : (pi?.id ?? null),
  };
}
