import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { problems } from '../../http/schemas.ts';
import { TotalHeader } from '../shared/list.ts';
import { objectQuery } from '../shared/query.ts';
import { AuditArray, AuditListQuery } from './audit.schemas.ts';
import { AuditService } from './audit.service.ts';

/** GET /audit: the log of security events. */
export const auditRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new AuditService(ctx);

  app.get(
    '/audit',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        operationId: 'listAuditEntries',
        tags: ['users'],
        summary: 'The audit log: sign-ins, tokens, members and roles, accounts, exports, erasures, settings changed',
        description:
          'Newest first. A service administrator reads every entry; anyone else the entries about projects they own and their own actions. `filters[actor]` (a user id), ' +
          '`filters[action]`, `filters[project]`, `filters[from]` and `filters[to]` (ISO 8601, from inclusive, to exclusive); `options[skip]` ≥ 0, ' +
          '`options[limit]` 1–500 (100); `X-Total-Count` holds the count before paging. Entries are kept AUDIT_RETENTION_DAYS (365).',
        querystring: AuditListQuery,
        response: { 200: { ...AuditArray, headers: TotalHeader }, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const { records, total } = await service.list(principalOf(request), request.query);
      reply.header('X-Total-Count', String(total));
      return records;
    },
  );
};
