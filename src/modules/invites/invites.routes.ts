import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { Auth, principalOf } from '../../http/auth.ts';
import { accountRequestLimit } from '../../http/rate-limits.ts';
import { IdParams, NoContent, problems } from '../../http/schemas.ts';
import { LoginResponseSchema } from '../users/users.schemas.ts';
import { InviteAcceptBody, InviteCreateBody, InviteCreatedSchema, InviteLookupSchema, InviteParams, InviteTokenParams } from './invites.schemas.ts';
import { InviteService } from './invites.service.ts';

/** Owners and administrators invite and revoke (authenticated scope). */
export const inviteRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new InviteService(ctx);

  for (const kind of ['project', 'group'] as const) {
    const base = kind === 'project' ? '/projects' : '/groups';
    const Kind = kind === 'project' ? 'Project' : 'Group';
    app.post(
      `${base}/:id/invites`,
      {
        schema: {
          operationId: `inviteTo${Kind}`,
          tags: [`${kind}s`],
          summary: `Invite someone to a ${kind} as administrator or editor`,
          description:
            `Owner and administrators. The invite is listed in the ${kind}'s \`invites\` and the invitee is mailed a link ` +
            '`<PUBLIC_URL>/admin/invites/<token>` that works once, for 7 days. The token is never returned.',
          params: IdParams,
          body: InviteCreateBody,
          response: { 201: InviteCreatedSchema, ...problems(400, 401, 403, 404, 415) },
        },
      },
      async (request, reply) => {
        const invite = await service.create(principalOf(request), kind, request.params.id, request.body);
        return reply.code(201).send(invite);
      },
    );

    app.delete(
      `${base}/:id/invites/:inviteId`,
      {
        schema: {
          operationId: `revoke${Kind}Invitation`,
          tags: [`${kind}s`],
          summary: `Revoke a pending invitation to a ${kind}`,
          description: `Owner and administrators. The link stops working (410) and the invite leaves the ${kind}'s \`invites\`.`,
          params: InviteParams,
          response: { 204: NoContent, ...problems(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await service.revoke(principalOf(request), kind, request.params.id, request.params.inviteId);
        return reply.code(204).send();
      },
    );
  }
};

/** What the invitation link reaches: look-up and acceptance, with or without a session. */
export const invitePublicRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new InviteService(ctx);
  const rateLimit = accountRequestLimit(ctx.config);

  app.get(
    '/invites/:token',
    {
      schema: {
        operationId: 'getInvitation',
        tags: ['invites'],
        summary: 'What an invitation link is for',
        description: 'No authentication: the token is the credential. Unknown token → 404; used, revoked or expired → 410.',
        security: [],
        params: InviteTokenParams,
        response: { 200: InviteLookupSchema, ...problems(400, 404, 410, 429) },
      },
      config: { rateLimit },
    },
    async (request) => service.lookup(request.params.token),
  );

  app.post(
    '/invites/:token/accept',
    {
      schema: {
        operationId: 'acceptInvitation',
        tags: ['invites'],
        summary: 'Accept an invitation',
        description:
          'Signed in (bearer or cookie) as the invited address: that user joins. Signed in as anyone else → 403. ' +
          'Not signed in: creates the account `email` with `password` (and `name`, `lastName`); ' +
          'if that account already exists, `password` must be its password (401 otherwise). ' +
          'The user lands in `administrators` or `editors` and the invite leaves `invites`. Answers like login (200, cookies). ' +
          'The link works once, for 7 days (410 after). With plans on, a published project handed over (level `owner`) takes a place in the new owner’s plan as publishing it would: ' +
          'no room → 402 `plan_limit`, nothing changes and the invitation still works.',
        security: [{}, { bearerAuth: [] }, { cookieAuth: [] }],
        params: InviteTokenParams,
        body: InviteAcceptBody,
        response: { 200: LoginResponseSchema, ...problems(400, 401, 402, 403, 404, 409, 410, 415, 429) },
      },
      config: { rateLimit },
    },
    async (request, reply) => {
      const found = Auth.tokenFrom(request);
      const principal = found ? await ctx.auth.principalFromToken(found.token) : undefined;
      const { user, issued } = await service.accept(request.params.token, principal, request.body, request.ip);
      ctx.authService.setCookies(reply, issued);
      return { ...user, token: issued.accessToken, access_token: issued.accessToken, message: 'Login successful' };
    },
  );
};
