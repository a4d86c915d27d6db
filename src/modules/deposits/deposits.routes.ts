import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { keepRawJson } from '../../http/raw-body.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { csvOrJson, sendCsv, toCsv, wantsCsv } from '../inventory/csv.ts';
import { TotalHeader } from '../shared/list.ts';
import { objectQuery } from '../shared/query.ts';
import { DEPOSIT_COLUMNS, DepositArray, DepositListQuery, OnboardingSchema, StripeEventBody, StripeSignatureHeaders, WebhookAck } from './deposits.schemas.ts';
import { DepositsService } from './deposits.service.ts';

/** Stripe's events are small; a body past this is not one. */
const WEBHOOK_BODY_LIMIT = 256 * 1024;

/** Stripe's side and the buyer's page: the signed webhook, and where a deposit stands. No token. */
export const depositPublicRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new DepositsService(ctx);
  // The signature is over the exact bytes Stripe sent: they are kept beside the parsed body (this plugin's routes only).
  const rawBody = keepRawJson(app, WEBHOOK_BODY_LIMIT);

  app.post(
    '/payments/webhook',
    {
      schema: {
        operationId: 'submitPaymentEvent',
        tags: ['deposits'],
        summary: "Stripe's events (the platform's webhook endpoint, with Connect events)",
        description:
          'Verifies `Stripe-Signature` over the raw body with STRIPE_WEBHOOK_SECRET (400 otherwise). Each event id is handled once across nodes and restarts, and the answer is 2xx only after its effect committed. ' +
          'Nothing is taken from the body but the event id, its type and the object id: the account and the Checkout Session are read back from Stripe. ' +
          '`account.updated` sets the owner’s paymentsDetailsSubmitted and paymentsOnboardingDone; `checkout.session.completed` makes the deposit paid and the unit reserved; `checkout.session.expired` makes it expired. ' +
          'With plans on (BILLING=stripe), the platform’s `customer.subscription.*`, `invoice.paid`, `invoice.payment_failed` and its own `checkout.session.completed` update the user’s subscription, read back from Stripe (docs/billing.md). ' +
          'Without STRIPE_SECRET_KEY → 503 `payments_off`.',
        security: [],
        headers: StripeSignatureHeaders,
        body: StripeEventBody,
        response: { 200: WebhookAck, ...problems(400, 413, 415, 502, 503) },
      },
    },
    async (request) => {
      const { handled } = await service.handleEvent(rawBody(request), request.headers['stripe-signature']);
      return { received: true, duplicate: !handled };
    },
  );

  app.get(
    '/public/deposits/:id',
    {
      schema: {
        operationId: 'getPublicDeposit',
        tags: ['public'],
        summary: 'Where a deposit stands: pending, paid, expired or refunded',
        description:
          'For the buyer’s page after a reload or on its return from Stripe Checkout (the return address carries `deposit=<id>`). Names no buyer and no Stripe id. ' +
          'A payment confirmed at Stripe shows as paid once its event arrived or the reconciliation pass read it.',
        security: [],
        params: IdParams,
        response: { 200: Type.Ref('PublicDeposit'), ...problems(400, 404) },
      },
    },
    async (request, reply) => reply.header('Cache-Control', 'no-store').send(await service.publicStatus(request.params.id)),
  );
};

/** The owner's side: connecting their Stripe account, the project's deposits, refunds. */
export const depositRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new DepositsService(ctx);

  app.post(
    '/users/me/payments/onboarding',
    {
      schema: {
        operationId: 'requestPaymentsOnboarding',
        tags: ['deposits'],
        summary: 'Connect the caller’s own Stripe account (an Express account), or go on with it: a link to Stripe’s onboarding',
        description:
          'Creates the caller’s connected account once (kept as paymentsAccountId) and answers a fresh account link. Stripe’s `account.updated` events then set paymentsDetailsSubmitted and paymentsOnboardingDone (charges enabled); ' +
          'a project takes deposits once its owner’s account is onboarded. Without STRIPE_SECRET_KEY → 503 `payments_off`; Stripe refusing → 502.',
        response: { 200: OnboardingSchema, ...problems(401, 502, 503) },
      },
    },
    async (request, reply) => reply.header('Cache-Control', 'no-store').send(await service.onboarding(principalOf(request))),
  );

  app.get(
    '/users/me/payments',
    {
      schema: {
        operationId: 'getPaymentsState',
        tags: ['deposits'],
        summary: 'Whether this server takes payments, and how the caller’s Stripe account stands now',
        description:
          '`available` false when the server has no STRIPE_SECRET_KEY (then nothing else is asked of Stripe). With a connected account still missing something, the account is read back from Stripe at each call (a complete one at most every ten minutes per node) and kept ' +
          '(paymentsDetailsSubmitted, paymentsOnboardingDone, as Stripe’s `account.updated` keeps them), and `missing` lists what Stripe still needs. ' +
          'The console’s Profile › Payments calls it, also when Stripe’s onboarding sends the owner back (`/admin/profile?payments=done`). Stripe refusing → 502.',
        response: { 200: Type.Ref('PaymentsState'), ...problems(401, 502) },
      },
    },
    async (request, reply) => reply.header('Cache-Control', 'no-store').send(await service.paymentsState(principalOf(request))),
  );

  app.get(
    '/projects/:id/deposits',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        operationId: 'listProjectsDeposits',
        tags: ['deposits'],
        summary: "A project's deposits, newest first (owner and administrators; editors → 403)",
        description:
          '`filters[unit]` lists one unit’s deposits. With `Accept: text/csv` or `format=csv` the answer is RFC 4180 CSV. Amounts are in minor units.',
        params: IdParams,
        querystring: DepositListQuery,
        response: { 200: { ...csvOrJson(DepositArray, 'deposits'), headers: TotalHeader }, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { filters = {}, options = {}, format } = request.query;
      const { records, total } = await service.list(principalOf(request), request.params.id, filters, {
        limit: options.limit ?? 100,
        offset: options.skip ?? 0,
      });
      reply.header('X-Total-Count', String(total));
      if (wantsCsv(request, format))
        return sendCsv(reply, `deposits-${request.params.id}.csv`, toCsv(records as unknown as Record<string, unknown>[], DEPOSIT_COLUMNS));
      return records;
    },
  );

  app.post(
    '/deposits/:id/refund',
    {
      schema: {
        operationId: 'refundDeposit',
        tags: ['deposits'],
        summary: 'Refund a paid deposit at Stripe (owner and administrators; editors → 403)',
        description:
          'The whole amount goes back to the buyer through the owner’s Stripe account; the deposit turns `refunded` (event deposit.refunded). The unit is left as it is. ' +
          'A deposit not paid (pending, expired, already refunded) → 409. Stripe refusing → 502, and nothing changes.',
        params: IdParams,
        response: { 200: Type.Ref('Deposit'), ...problems(400, 401, 403, 404, 409, 502, 503) },
      },
    },
    async (request) => service.refund(principalOf(request), request.params.id),
  );
};
