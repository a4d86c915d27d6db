import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { problems } from '../../http/schemas.ts';
import { BillingSummarySchema, CheckoutBody, StripeUrlSchema } from './billing.schemas.ts';
import { BillingService } from './billing.service.ts';

/** The caller's own plan: what it is, Checkout to take one, Stripe's customer portal to change it. */
export const billingRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new BillingService(ctx);

  app.get(
    '/users/me/subscription',
    {
      schema: {
        operationId: 'getCurrentUserSubscription',
        tags: ['billing'],
        summary: "The caller's plan: the plans on offer, their subscription, the plan in effect and their published projects",
        description: 'Without BILLING=stripe → 404 `billing_off` (nothing is limited on this server, and there is no plan to read).',
        response: { 200: BillingSummarySchema, ...problems(401, 404) },
      },
    },
    async (request, reply) => reply.header('Cache-Control', 'no-store').send(await service.summary(principalOf(request))),
  );

  app.post(
    '/users/me/subscription/checkout',
    {
      schema: {
        operationId: 'requestSubscriptionCheckout',
        tags: ['billing'],
        summary: 'Subscribe to a plan: a link to Stripe Checkout (subscription mode)',
        description:
          'Makes the caller’s Stripe customer once (kept as paymentsCustomer) and answers a Checkout Session in subscription mode on the platform’s account for the plan’s price, with a TRIAL_DAYS trial unless the caller took theirs (appliedTrial). ' +
          'Stripe’s subscription events then keep `subscription` current. A subscription still running (trialing, active, past_due) → 409: plans change in the customer portal. Without BILLING=stripe → 404 `billing_off`; Stripe refusing → 502.',
        body: CheckoutBody,
        response: { 200: StripeUrlSchema, ...problems(400, 401, 404, 409, 415, 502) },
      },
    },
    async (request, reply) => reply.header('Cache-Control', 'no-store').send(await service.checkout(principalOf(request), request.body.plan)),
  );

  app.post(
    '/users/me/subscription/portal',
    {
      schema: {
        operationId: 'requestSubscriptionPortal',
        tags: ['billing'],
        summary: "Manage the plan: a link to Stripe's customer portal (change plan, card, invoices, cancel)",
        description:
          'Makes the caller’s Stripe customer once if need be and answers a customer portal session returning to the console’s Profile. Without BILLING=stripe → 404 `billing_off`; Stripe refusing → 502.',
        response: { 200: StripeUrlSchema, ...problems(401, 404, 502) },
      },
    },
    async (request, reply) => reply.header('Cache-Control', 'no-store').send(await service.portal(principalOf(request))),
  );
};
