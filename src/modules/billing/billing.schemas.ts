import { Type } from '@sinclair/typebox';
import { DateTime } from '../../http/schemas.ts';
import { PLANS } from './plans.ts';

const PlanName = Type.Union(
  PLANS.map((p) => Type.Literal(p)),
  { description: 'starter: publishes up to PLAN_STARTER_PROJECTS projects at once, the branding shown; pro: any number, the branding may be hidden' },
);
const When = (description: string) => Type.Union([DateTime, Type.Null()], { description });

/** The user's `subscription` field, as the service keeps it from what Stripe reports. */
export const SubscriptionSchema = Type.Object(
  {
    status: Type.String({
      description:
        "Stripe's status: trialing, active (in good standing), past_due, unpaid, canceled, paused (the plan holds until currentPeriodEnd), incomplete, incomplete_expired",
    }),
    plan: Type.Union([PlanName, Type.Null()], { description: 'The plan its price is (null: a price that is neither configured plan)' }),
    trialEnd: When('When the trial ends (null: no trial)'),
    currentPeriodEnd: When('The end of the period paid for (or of the trial)'),
    cancelAtPeriodEnd: Type.Boolean({ description: 'It is cancelled and ends at currentPeriodEnd' }),
  },
  { $id: 'Subscription', additionalProperties: false, description: "A user's subscription to a plan, as last read back from Stripe" },
);

export const PlanTermsSchema = Type.Object(
  {
    name: PlanName,
    publishedProjects: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'Projects published at once (null: any number)' }),
    hideBranding: Type.Boolean({ description: 'Whether the Showsuite branding may be hidden (showBranding, preferences)' }),
  },
  { additionalProperties: false },
);

export const BillingSummarySchema = Type.Object(
  {
    plans: Type.Array(PlanTermsSchema, { description: 'The plans on offer and what each allows' }),
    trialDays: Type.Integer({ minimum: 0, description: 'The trial a checkout starts with now (0: the caller took theirs, or there is none)' }),
    planInEffect: Type.Union([PlanName, Type.Null()], {
      description: 'The plan that counts now (null: none; publishing needs one): the subscription’s while in good standing or until its paid period ends',
    }),
    subscription: Type.Union([Type.Ref('Subscription'), Type.Null()], { description: 'The caller’s subscription (null: never subscribed)' }),
    publishedProjects: Type.Integer({ minimum: 0, description: 'The caller’s projects published now (what the Starter limit counts)' }),
  },
  { additionalProperties: false },
);

export const CheckoutBody = Type.Object({ plan: PlanName }, { additionalProperties: false });

export const StripeUrlSchema = Type.Object(
  { url: Type.String({ format: 'uri', description: "Stripe's page to send the user to (single use, short-lived)" }) },
  { additionalProperties: false },
);

export const BILLING_SCHEMAS = [SubscriptionSchema];
