import { perMinute } from '../http/rate-limits.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../context.ts';
import { IdempotencyHeaders, problems } from '../http/schemas.ts';
import { idempotencyKey } from '../modules/shared/idempotency.ts';
import { WaitlistBody, WaitlistLeadSchema } from './public.schemas.ts';
import { PublicService } from './public.service.ts';

/**
 * `POST /public/waitlist`: a visitor asks to hear when a sold (or not yet released) unit comes free. Stored as a
 * lead with source "waitlist", so the sales team sees it where it sees every enquiry.
 */
export const waitlistRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new PublicService(ctx);
  app.post(
    '/public/waitlist',
    {
      schema: {
        operationId: 'joinWaitlist',
        tags: ['public'],
        summary: "Join a project's waitlist (when the project's waitlistEnabled is true)",
        description:
          "Name the project by `project` (id) or `namespace`; `unit` names the unit asked about, which must be one of the project's (else 400) and not " +
          'free: a unit available to the public (or on a hold that has lapsed) → 409 naming `/unit` (hold it or enquire instead). Stored as a lead with `source: "waitlist"`. ' +
          'Same bounds, per-address rate limit and `Idempotency-Key` behaviour as POST /public/leads.',
        security: [],
        headers: IdempotencyHeaders,
        body: WaitlistBody,
        'x-requires-one-of': ['project', 'namespace'],
        response: { 201: WaitlistLeadSchema, ...problems(400, 403, 404, 409, 413, 415, 422, 429) },
      },
      config: { rateLimit: perMinute(ctx.config.limits.publicLeadsPerMinute) },
    },
    async (request, reply) => {
      const outcome = await service.joinWaitlist(idempotencyKey(request.headers['idempotency-key']), request.body);
      if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
      // The stored document is the entry validated above plus the server's fields: the response's shape.
      return reply
        .header('ETag', '"1"')
        .code(201)
        .send(outcome.body as Static<typeof WaitlistLeadSchema>);
    },
  );
};
