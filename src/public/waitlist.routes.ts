import { perMinute } from '../http/rate-limits.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { Ctx } from '../context.ts';
import { DateTime, ObjectId, problems } from '../http/schemas.ts';
import { LeadFields } from '../modules/leads/leads.schemas.ts';
import { idempotencyKey } from '../modules/shared/idempotency.ts';
import { PublicService } from './public.service.ts';

/** Bounds as for POST /public/leads, except that the phone is optional. */
const Waitlistee = {
  firstName: Type.String({ minLength: 1, maxLength: 200 }),
  lastName: Type.String({ minLength: 1, maxLength: 200 }),
  email: LeadFields.email,
  phone: Type.Optional(Type.String({ minLength: 3, maxLength: 50 })),
  unit: Type.Optional(LeadFields.unit),
};

const WaitlistBody = Type.Object(
  {
    project: Type.Optional(ObjectId),
    namespace: Type.Optional(Type.String({ maxLength: 63 })),
    ...Waitlistee,
    message: Type.Optional(LeadFields.message),
    customFields: Type.Optional(LeadFields.customFields),
  },
  { additionalProperties: false },
);

const WaitlistLead = Type.Object(
  {
    _id: ObjectId,
    project: ObjectId,
    ...Waitlistee,
    message: Type.Optional(Type.String()),
    customFields: Type.Optional(LeadFields.customFields),
    source: Type.Literal('waitlist'),
    rank: Type.Optional(Type.Integer({ minimum: 1, description: "For an entry about a unit: its place in that unit's waiting list (1 is first), by arrival" })),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: false },
);

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
          'Name the project by `project` (id) or `namespace`; `unit` names the unit asked about. Stored as a lead with `source: "waitlist"`. ' +
          'Same bounds, per-address rate limit and `Idempotency-Key` behaviour as POST /public/leads.',
        security: [],
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: 'Retry-safe key: the same key and body replay the first response' })),
        }),
        body: WaitlistBody,
        'x-requires-one-of': ['project', 'namespace'],
        response: { 201: WaitlistLead, ...problems(400, 403, 404, 413, 415, 422, 429) },
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
        .send(outcome.body as Static<typeof WaitlistLead>);
    },
  );
};
