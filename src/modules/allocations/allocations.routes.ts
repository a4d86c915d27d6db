import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { perMinute } from '../../http/rate-limits.ts';
import { problems } from '../../http/schemas.ts';
import { OpenAllocationBody, OpenedAllocation } from './allocations.schemas.ts';
import { Allocations } from './allocations.service.ts';

/** POST /public/allocations/open: a realtor opens their share of a launch with its password. */
export const allocationRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const allocations = new Allocations(ctx);
  app.post(
    '/public/allocations/open',
    {
      schema: {
        operationId: 'createPublicAllocationsOpen',
        tags: ['public'],
        summary: "Open a realtor's allocation with its password",
        description:
          "Answers the allocation's name, its units and a 12-hour token. Any wrong password (and an unknown namespace) → the same 401 in the same time: " +
          "the password is compared with every allocation's, with no early exit. At most ALLOCATION_OPENS_PER_MINUTE tries per client address (default 10) → 429.",
        security: [],
        body: OpenAllocationBody,
        response: { 200: OpenedAllocation, ...problems(400, 401, 413, 415, 429) },
      },
      config: { rateLimit: perMinute(ctx.config.limits.allocationOpensPerMinute) },
    },
    async (request, reply) => {
      const opened = await allocations.open(request.body.namespace, request.body.password);
      return reply.header('Cache-Control', 'no-store').send(opened);
    },
  );
};
