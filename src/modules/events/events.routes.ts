import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { EventArray, EventListQuery, HistoryArray, HistoryQuery } from './events.schemas.ts';
import { EventService } from './events.service.ts';

export const eventRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const events = new EventService(ctx);

  app.get(
    '/projects/:id/events',
    {
      schema: {
        operationId: 'listProjectEvents',
        tags: ['events'],
        summary: "The project's change log after a seq, oldest first",
        description:
          'Page through it by passing the last `seq` you have as `after`. Everyone who can read the project sees it; `lead.created`, `lead.updated` and `worksheet.*` events (they name buyers) only owners and administrators. ' +
          'Secrets appear by name only.',
        params: IdParams,
        querystring: EventListQuery,
        response: { 200: EventArray, ...problems(400, 401, 404) },
      },
    },
    (request) => events.list(principalOf(request), request.params.id, request.query),
  );

  app.get(
    '/units/:id/history',
    {
      schema: {
        operationId: 'listUnitHistory',
        tags: ['events'],
        summary: "A unit's changes, newest first",
        description: 'From the project change log: who changed what, when. `before` pages back.',
        params: IdParams,
        querystring: HistoryQuery,
        response: { 200: HistoryArray, ...problems(400, 401, 404) },
      },
    },
    (request) => events.unitHistory(principalOf(request), request.params.id, request.query),
  );
};
