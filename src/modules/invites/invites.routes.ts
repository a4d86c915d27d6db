import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { Auth, principalOf } from '../../http/auth.ts';
import { accountRequestLimit } from '../../http/rate-limits.ts';
import { DateTime, NoContent, ObjectId, problems } from '../../http/schemas.ts';
import { LoginResponseSchema } from '../users/users.schemas.ts';
import { InviteService } from './invites.service.ts';

const LEVELS = ['administrator', 'editor'] as const;

const InviteBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    firstName: Type.Optional(Type.String({ maxLength: 200 })),
    lastName: Type.Optional(Type.String({ maxLength: 200 })),
    level: Type.Union(
      LEVELS.map((l) => Type.Literal(l)),
      { description: 'Where the invitee lands: `administrators` or `editors`' },
    ),
  },
  { additionalProperties: false },
);
const InviteCreated = Type.Object(
  {
    _id: ObjectId,
    email: Type.String(),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    level: Type.Union(LEVELS.map((l) => Type.Literal(l))),
    createdAt: DateTime,
    expiresAt: DateTime,
  },
  { additionalProperties: false },
);
const Named = Type.Object({ _id: ObjectId, name: Type.String() }, { additionalProperties: false });
const InviteLookup = Type.Object(
  {
    email: Type.String(),
    level: Type.Union(LEVELS.map((l) => Type.Literal(l))),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    expiresAt: DateTime,
    project: Type.Optional(Named),
    group: Type.Optional(Named),
  },
  { additionalProperties: false },
);
const TokenParams = Type.Object(
  { token: Type.String({ pattern: '^[A-Za-z0-9_-]{20,200}$', description: 'The token from the invitation link' }) },
  { additionalProperties: false },
);
const AcceptBody = Type.Object(
  {
    password: Type.Optional(
      Type.String({
        minLength: 8,
        maxLength: 1024,
        description: "The new account's password; for an existing account that is not signed in, its current password",
      }),
    ),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    lastName: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
const WhichParams = Type.Object({ id: ObjectId, inviteId: ObjectId }, { additionalProperties: false });

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
          params: Type.Object({ id: ObjectId }, { additionalProperties: false }),
          body: InviteBody,
          response: { 201: InviteCreated, ...problems(400, 401, 403, 404, 415) },
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
          params: WhichParams,
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
        params: TokenParams,
        response: { 200: InviteLookup, ...problems(400, 404, 410, 429) },
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
          'The link works once, for 7 days (410 after).',
        security: [{}, { bearerAuth: [] }, { cookieAuth: [] }],
        params: TokenParams,
        body: AcceptBody,
        response: { 200: LoginResponseSchema, ...problems(400, 401, 403, 404, 409, 410, 415, 429) },
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
