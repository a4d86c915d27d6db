import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { requireRole } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { langOf } from '../../mail/templates.ts';
import { TotalHeader } from '../shared/list.ts';
import { objectQuery } from '../shared/query.ts';
import { withEtag } from '../shared/records.ts';
import { AccountArray, AccountListQuery, AccountPatchBody, AccountResetAnswer } from './accounts.schemas.ts';
import { AccountService } from './accounts.service.ts';

/** The Account record (accounts.schemas.ts, registered once with the users module). */
const Account = Type.Ref('Account');

/** Account administration, for the service's administrators (role admin) only; everyone else → 403. */
export const accountRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new AccountService(ctx);

  app.get(
    '/users',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        operationId: 'listAccounts',
        tags: ['users'],
        summary: 'Every account, with its projects and roles (service administrators only)',
        description:
          'Sorted by e-mail address. `filters[q]` matches part of the e-mail or the name, any case; `filters[active]=false` lists deactivated ' +
          'accounts. `options[skip]` ≥ 0 (0), `options[limit]` 1–500 (100); `X-Total-Count` holds the count before paging.',
        querystring: AccountListQuery,
        response: { 200: { ...AccountArray, headers: TotalHeader }, ...problems(400, 401, 403) },
      },
    },
    async (request, reply) => {
      requireRole(request, 'admin');
      const { filters = {}, options = {} } = request.query;
      const { records, total } = await service.list({ q: filters.q, active: filters.active, skip: options.skip ?? 0, limit: options.limit ?? 100 });
      reply.header('X-Total-Count', String(total));
      return records;
    },
  );

  app.patch(
    '/users/:id',
    {
      schema: {
        operationId: 'updateAccount',
        tags: ['users'],
        summary: 'Deactivate or reactivate an account (service administrators only)',
        description:
          '`{ "active": false }` deactivates: the account cannot sign in (403 saying so), every session of it ends and every node stops ' +
          'trusting it at once, and its API tokens are refused. `{ "active": true }` lets it sign in again. Deactivating your own account → 409.',
        params: IdParams,
        body: AccountPatchBody,
        response: { 200: { ...Account, headers: { ETag: { type: 'string' } } }, ...problems(400, 401, 403, 404, 409, 412, 415) },
      },
    },
    async (request, reply) => {
      const admin = requireRole(request, 'admin');
      const account = await service.setActive(admin, request.params.id, request.body.active, request.headers['if-match']);
      withEtag(reply, account.__v);
      return account;
    },
  );

  app.post(
    '/users/:id/password-reset',
    {
      schema: {
        operationId: 'requestAccountPasswordReset',
        tags: ['users'],
        summary: 'Mail an account a link to choose a new password (service administrators only)',
        description:
          'The same mail and link (1 hour, once) as a forgotten-password request, in the language of `Accept-Language`; a deactivated account → 409.',
        params: IdParams,
        response: { 202: AccountResetAnswer, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const admin = requireRole(request, 'admin');
      const message = await service.sendPasswordReset(admin, request.params.id, langOf(request.headers['accept-language']));
      return reply.code(202).send({ message });
    },
  );
};
