import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { accountRequestLimit } from '../../http/rate-limits.ts';
import { NoContent, problems } from '../../http/schemas.ts';
import { langOf } from '../../mail/templates.ts';
import { PasswordResetAccepted, PasswordResetConfirmBody, PasswordResetRequestBody } from './users.schemas.ts';
import { UserService } from './users.service.ts';

const ANSWER = 'If an account exists for this address, a link to choose a new password has been mailed to it.';

/** Forgotten passwords: no authentication (the mailed token is the credential). */
export const passwordResetRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new UserService(ctx);
  const rateLimit = accountRequestLimit(ctx.config);

  app.post(
    '/users/password-reset',
    {
      schema: {
        operationId: 'requestPasswordReset',
        tags: ['auth'],
        summary: 'Ask for a password-reset link',
        description:
          'Always 202 with the same body, after the same work, whether or not the account exists; ' +
          'an existing account is mailed `<PUBLIC_URL>/admin/reset/<token>` ' +
          '(once, 1 hour). At most PASSWORD_RESETS_PER_HOUR links per address per hour are mailed (more requests are answered the same and send nothing). ' +
          'Rate-limited per client address (429). The mail is in the language of `Accept-Language` (en, fr, es).',
        security: [],
        body: PasswordResetRequestBody,
        response: { 202: PasswordResetAccepted, ...problems(400, 415, 429) },
      },
      config: { rateLimit },
    },
    async (request, reply) => {
      await service.requestPasswordReset(request.body.username, langOf(request.headers['accept-language']));
      return reply.code(202).send({ message: ANSWER });
    },
  );

  app.post(
    '/users/password-reset/confirm',
    {
      schema: {
        operationId: 'confirmPasswordReset',
        tags: ['auth'],
        summary: 'Choose a new password with a reset token',
        description:
          'Sets the password and ends every session of the user (204). A token works once, for 1 hour: used, expired or unknown → 410. ' +
          'Rate-limited per client address.',
        security: [],
        body: PasswordResetConfirmBody,
        response: { 204: NoContent, ...problems(400, 410, 415, 429) },
      },
      config: { rateLimit },
    },
    async (request, reply) => {
      await service.resetPassword(request.body.token, request.body.password);
      return reply.code(204).send();
    },
  );
};
