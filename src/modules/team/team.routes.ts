import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { TeamSchema } from './team.schemas.ts';
import { TeamService } from './team.service.ts';

/** GET /projects/{id}/team and GET /groups/{id}/team: the owner, administrators and editors by name and e-mail. */
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
  app.get(
    '/groups/:id/team',
    {
      schema: {
        operationId: 'listGroupTeam',
        tags: ['groups'],
        summary: "A group's team by name and e-mail (everyone who can read the group)",
        description:
          'As `GET /projects/{id}/team`, for a group: the owner, then administrators, then editors, each with `name` (null when unset) and `email`. A stranger → 404.',
        params: IdParams,
        response: { 200: TeamSchema, ...problems(400, 401, 404) },
      },
    },
    (request) => team.listGroup(principalOf(request), request.params.id),
  );
};
