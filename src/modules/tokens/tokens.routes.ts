import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { NoContent, problems } from '../../http/schemas.ts';
import { ApiTokenArray, CreateApiTokenBody, CreatedApiTokenSchema, MAX_API_TOKENS, TokenParams } from './tokens.schemas.ts';
import { ApiTokenService } from './tokens.service.ts';

const FROM_A_SESSION = 'Only from a signed-in session: a request authenticated by an API token gets 403.';

/** The caller's API tokens (docs/authentication.md#api-tokens). */
export const apiTokenRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new ApiTokenService(ctx);

  app.post(
    '/users/me/tokens',
    {
      schema: {
        operationId: 'createUsersMeTokens',
        tags: ['users'],
        summary: 'Create an API token for the caller',
        description:
          `The answer carries the secret \`token\` (sst_…) once; only its hash is kept. It acts as the caller; scope \`read\` allows only GET and HEAD. ` +
          `At most ${MAX_API_TOKENS} tokens per user (→ 409). ${FROM_A_SESSION}`,
        body: CreateApiTokenBody,
        response: { 201: CreatedApiTokenSchema, ...problems(400, 401, 403, 409, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );

  app.get(
    '/users/me/tokens',
    {
      schema: {
        operationId: 'listUsersMeTokens',
        tags: ['users'],
        summary: "The caller's API tokens, oldest first (never the secret)",
        response: { 200: ApiTokenArray, ...problems(401) },
      },
    },
    async (request) => service.list(principalOf(request)),
  );

  app.delete(
    '/users/me/tokens/:id',
    {
      schema: {
        operationId: 'deleteUsersMeTokens',
        tags: ['users'],
        summary: 'Revoke one of the caller’s API tokens',
        description: `The token stops working at once on every node. ${FROM_A_SESSION}`,
        params: TokenParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await service.revoke(principalOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
};
