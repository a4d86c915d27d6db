import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { IdempotencyHeaders, IdParams, NoContent, problems } from '../../http/schemas.ts';
import { LIST_TEXT, pageOf, TotalHeader } from '../shared/list.ts';
import { createRequestOf, sendCreated } from '../shared/idempotent.ts';
import { objectQuery } from '../shared/query.ts';
import { GroupArray, GroupCreateBody, GroupCreateQuery, GroupListQuery, GroupPatchSchema } from './groups.schemas.ts';
import { GroupService } from './groups.service.ts';

const Group = Type.Ref('Group');
const ETag = { ETag: { type: 'string' } };

export const groupRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const service = new GroupService(ctx);

  app.post(
    '/groups',
    {
      schema: {
        operationId: 'createGroup',
        tags: ['groups'],
        summary: 'Create a group (the caller owns it)',
        description: 'Query parameters `name`, `namespace`, `hostName`; other Group fields may come in a JSON body (query parameters win).',
        querystring: GroupCreateQuery,
        body: GroupCreateBody,
        headers: IdempotencyHeaders,
        'x-create-inputs': { required: ['name'] },
        response: { 201: { ...Group, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 402, 409, 415) },
      },
    },
    async (request, reply) => {
      const outcome = await service.create(principalOf(request), { ...request.body, ...request.query }, createRequestOf(request));
      return sendCreated(reply, outcome, `/groups/${outcome.record._id}`);
    },
  );

  app.get(
    '/groups',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        operationId: 'listGroups',
        tags: ['groups'],
        summary: 'Visible groups',
        description: LIST_TEXT,
        querystring: GroupListQuery,
        response: { 200: { ...GroupArray, headers: TotalHeader }, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const { filters = {}, options = {} } = request.query;
      const { records, total } = await service.list(principalOf(request), { ...filters, ...pageOf(options), sort: options.sort ?? '-createdAt' });
      reply.header('X-Total-Count', String(total));
      return records;
    },
  );

  app.get(
    '/groups/:id',
    {
      schema: {
        operationId: 'getGroup',
        tags: ['groups'],
        summary: 'Fetch one group',
        params: IdParams,
        response: { 200: { ...Group, headers: ETag }, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { record, etag } = await service.get(principalOf(request), request.params.id);
      reply.header('ETag', etag);
      return record;
    },
  );

  app.patch(
    '/groups/:id',
    {
      schema: {
        operationId: 'updateGroup',
        tags: ['groups'],
        summary: 'Update a group',
        description:
          'Only the fields sent change; a fetched record may be sent back whole. `projects` may hold only projects the caller can see. `If-Match` with a stale ETag → 412.',
        params: IdParams,
        body: GroupPatchSchema,
        response: { 200: { ...Group, headers: ETag }, ...problems(400, 401, 402, 403, 404, 409, 412, 415) },
      },
    },
    async (request, reply) => {
      const { record, etag } = await service.patch(principalOf(request), request.params.id, request.body, request.headers['if-match']);
      reply.header('ETag', etag);
      return record;
    },
  );

  app.delete(
    '/groups/:id',
    {
      schema: {
        operationId: 'deleteGroup',
        tags: ['groups'],
        summary: 'Delete a group (owner only); its projects stay',
        params: IdParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      await service.remove(principalOf(request), request.params.id, request.headers['if-match']);
      return reply.code(204).send();
    },
  );
};
