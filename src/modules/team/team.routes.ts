import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { TeamSchema } from './team.schemas.ts';
import { TeamService } from './team.service.ts';

/** GET /projects/{id}/team: the project's owner, administrators and editors by name and e-mail. */
export const teamRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const team = new TeamService(ctx);
  app.get(
    '/projects/:id/team',
    {
      schema: {
        operationId: 'listProjectTeam',
        tags: ['projects'],
        summary: "A project's team by name and e-mail (everyone who can read the project)",
        description:
          'The owner, then administrators, then editors, each with `name` (from their profile; null when unset) and `email`, so clients show colleagues ' +
          "(a lead's `assignee`, the team) as people. A stranger → 404.",
        params: IdParams,
        response: { 200: TeamSchema, ...problems(400, 401, 404) },
      },
    },
    (request) => team.list(principalOf(request), request.params.id),
  );
};
