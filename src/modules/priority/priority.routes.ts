import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { WaitingListSchema } from './priority.schemas.ts';
import { PriorityService } from './priority.service.ts';

/** GET /units/{id}/waitlist: a unit's waiting list in rank order, for the owner and administrators. */
export const priorityRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const priority = new PriorityService(ctx);
  app.get(
    '/units/:id/waitlist',
    {
      schema: {
        operationId: 'listUnitsWaitlist',
        tags: ['leads'],
        summary: "A unit's waiting list in rank order (owner and administrators)",
        description:
          'The waitlist entries (leads with source "waitlist") for this unit, first in rank first. `offeredAt` marks an entry the priority list has offered the unit to. ' +
          "With the project's specialRankEnabled, PATCH /leads/{id} `{ rank }` moves an entry.",
        params: IdParams,
        response: { 200: WaitingListSchema, ...problems(400, 401, 403, 404) },
      },
    },
    (request) => priority.waitingList(principalOf(request), request.params.id),
  );
};
