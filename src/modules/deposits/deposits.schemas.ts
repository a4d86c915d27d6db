import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../../http/schemas.ts';

export const DEPOSIT_STATUSES = ['pending', 'paid', 'expired', 'refunded'] as const;
const DepositStatus = Type.Union(
  DEPOSIT_STATUSES.map((s) => Type.Literal(s)),
  {
    description:
      'pending: waiting for the buyer to pay at Stripe Checkout (the unit is on hold); paid: Stripe confirmed it (the unit turned reserved); expired: the payment window lapsed or the session expired unpaid; refunded: refunded at Stripe by the sales team',
  },
);
const Amount = Type.Integer({
  minimum: 1,
  description: "In the currency's minor unit, as Stripe counts it (cents: 50000 is 500.00 usd; yen: 500 is ¥500)",
  examples: [50000],
});
const Currency = Type.String({ pattern: '^[a-z]{3}$', description: 'Lower-case ISO 4217 code', examples: ['usd'] });
const At = (description: string) => Type.Union([DateTime, Type.Null()], { description });

/** A deposit as the sales team reads it; its property order is the CSV export's column order. */
export const DepositSchema = Type.Object(
  {
    _id: ObjectId,
    project: ObjectId,
    unit: Type.Union([ObjectId, Type.Null()], { description: 'The unit held (null once the unit is deleted)' }),
    unitName: Type.Optional(Type.String({ description: "The unit's name, when it still exists" })),
    lead: Type.Union([ObjectId, Type.Null()], { description: 'The lead the hold made (null once the lead is erased)' }),
    status: DepositStatus,
    amount: Amount,
    currency: Currency,
    buyerName: Type.String({ description: 'The holder’s first and last name' }),
    buyerEmail: Type.String({ description: 'The holder’s e-mail (Stripe Checkout asks for it again)' }),
    createdAt: { ...DateTime, description: 'When the hold asked for it' },
    expiresAt: { ...DateTime, description: 'The end of the payment window (DEPOSIT_WINDOW_MINUTES after the hold)' },
    paidAt: At('When Stripe confirmed it paid'),
    expiredAt: At('When it expired unpaid'),
    refundedAt: At('When it was refunded'),
  },
  { $id: 'Deposit', additionalProperties: false, description: 'A deposit taken with a hold, through the project owner’s Stripe account' },
);
export const DepositArray = Type.Array(Type.Ref('Deposit'));
export const DEPOSIT_COLUMNS = Object.keys(DepositSchema.properties);

/** The payment part of a hold's answer on a project taking deposits. */
export const PaymentOfferSchema = Type.Object(
  {
    _id: { ...ObjectId, description: 'The deposit: GET /public/deposits/{id} tells where it stands; the return address from Checkout carries it' },
    status: Type.Literal('pending'),
    checkoutUrl: Type.String({ format: 'uri', description: "Stripe Checkout's page on the owner's account: send the buyer there" }),
    amount: Amount,
    currency: Currency,
    expiresAt: { ...DateTime, description: 'The end of the payment window: unpaid by then, the unit is released and the session expired' },
  },
  { $id: 'PaymentOffer', additionalProperties: false, description: 'The deposit this hold asks for' },
);

/** GET /public/deposits/{id}: where a deposit stands, for the buyer's page (no buyer, no Stripe id). */
export const PublicDepositSchema = Type.Object(
  {
    _id: ObjectId,
    status: DepositStatus,
    amount: Amount,
    currency: Currency,
    unit: Type.Union([ObjectId, Type.Null()]),
    project: ObjectId,
    expiresAt: { ...DateTime, description: 'The end of the payment window' },
  },
  { $id: 'PublicDeposit', additionalProperties: false },
);

export const OnboardingSchema = Type.Object(
  {
    url: Type.String({ format: 'uri', description: "Stripe's onboarding page for the caller's connected account (an account link: single use, short-lived)" }),
  },
  { additionalProperties: false },
);

/** GET /users/me/payments: whether this server takes payments, and how the caller's Stripe account stands. */
export const PaymentsStateSchema = Type.Object(
  {
    available: Type.Boolean({
      description: 'Whether this server takes payments at all (STRIPE_SECRET_KEY set). False: no deposit is taken anywhere, and there is nothing to connect',
    }),
    connected: Type.Boolean({ description: 'Whether the caller has a connected Stripe account (paymentsAccountId)' }),
    detailsSubmitted: Type.Boolean({ description: "Stripe's `details_submitted`: the owner finished Stripe's onboarding form" }),
    chargesEnabled: Type.Boolean({ description: "Stripe's `charges_enabled`: the owner's projects take deposits (paymentsOnboardingDone)" }),
    missing: Type.Array(Type.String(), {
      description:
        "What Stripe still needs before it enables charges or keeps them enabled, in Stripe's requirement names (past due first): `external_account`, `tos_acceptance.date`, `individual.dob.day`, …",
      examples: [['external_account', 'tos_acceptance.date']],
    }),
    disabledReason: Type.Union([Type.String(), Type.Null()], {
      description: "Why Stripe disabled charges, in Stripe's words (`requirements.past_due`, `requirements.pending_verification`, `under_review`, …), or null",
    }),
  },
  { $id: 'PaymentsState', additionalProperties: false, description: 'Whether this server takes payments, and how the caller’s Stripe account stands' },
);

export const DepositListQuery = Type.Object(
  {
    filters: Type.Optional(
      Type.Object(
        {
          unit: Type.Optional({ ...ObjectId, description: "One unit's deposits (the console's unit sheet)" }),
        },
        { additionalProperties: false },
      ),
    ),
    format: Type.Optional(Type.Literal('csv', { description: 'CSV instead of JSON (as `Accept: text/csv`)' })),
    options: Type.Optional(
      Type.Object(
        {
          skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Deposits to skip (default 0)' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Most deposits to return, 1–1000 (default 100)' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** A Stripe event as it arrives: only its signature is trusted, and only its id, type and object id are read. */
export const StripeEventBody = Type.Object(
  {
    id: Type.String({ description: 'The event id (evt_…): each is handled once' }),
    type: Type.String({
      description:
        'account.updated, checkout.session.completed, checkout.session.async_payment_succeeded, checkout.session.expired; with plans on also customer.subscription.created|updated|deleted, invoice.paid, invoice.payment_failed; others are acknowledged',
    }),
  },
  { additionalProperties: true, description: "A Stripe event, signed with the endpoint's secret (Stripe-Signature)" },
);
export const StripeSignatureHeaders = Type.Object({
  'stripe-signature': Type.Optional(Type.String({ description: 't=<unix time>,v1=<HMAC-SHA256 of "t.body" with STRIPE_WEBHOOK_SECRET>' })),
});
export const WebhookAck = Type.Object(
  { received: Type.Boolean(), duplicate: Type.Boolean({ description: 'true when this event had been handled before (nothing changed)' }) },
  { additionalProperties: false },
);

export const DEPOSIT_SCHEMAS = [DepositSchema, PaymentOfferSchema, PublicDepositSchema, PaymentsStateSchema];
export type Deposit = Static<typeof DepositSchema>;
