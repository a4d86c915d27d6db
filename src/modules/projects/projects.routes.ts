import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { sendJsonText, useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { IdempotencyHeaders, IdParams, NoContent, problems } from '../../http/schemas.ts';
import { objectQuery } from '../shared/query.ts';
import { pageOf } from '../shared/list.ts';
import { createRequestOf, sendCreated } from '../shared/idempotent.ts';
import { PreviewLinkSchema, ProjectArray, ProjectCreateQuery, ProjectListQuery, ProjectPatchSchema } from './projects.schemas.ts';
import { ProjectService } from './projects.service.ts';
import { PREVIEW_HOURS } from './drafts.ts';

const Project = Type.Ref('Project');

export const projectRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const service = new ProjectService(ctx);

  app.get(
    '/projects',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        operationId: 'listProjects',
        tags: ['projects'],
        summary: 'Search visible projects',
        description:
          '`filters` and `options` as JSON text (`filters={"name":"Tower"}`) or bracket form (`filters[name]=Tower&options[limit]=10`). ' +
          '`filters.name` matches a case-insensitive substring, `filters.projectType` exactly. `options.skip` ≥ 0 (0), `options.limit` 1–500 (100), ' +
          '`options.sort` one of name, createdAt, updatedAt with `-` for descending (-createdAt); ties break on `_id`. `X-Total-Count` holds the count before paging.',
        querystring: ProjectListQuery,
        response: {
          200: { ...ProjectArray, headers: { 'X-Total-Count': { type: 'integer', description: 'Matches before skip/limit' } } },
          ...problems(400, 401),
        },
      },
    },
    async (request, reply) => {
      const { filters = {}, options = {} } = request.query;
      const { json, total } = await service.list(principalOf(request), { ...filters, ...pageOf(options), sort: options.sort ?? '-createdAt' });
      // Each record's JSON text as PostgreSQL wrote it (PROJECT_RECORD_SQL), not parsed and serialised again.
      reply.header('X-Total-Count', String(total));
      return sendJsonText(reply, json);
    },
  );

  app.post(
    '/projects',
    {
      schema: {
        operationId: 'createProject',
        tags: ['projects'],
        summary: 'Create a project (the caller owns it)',
        description:
          'Inputs as query parameters `name`, `namespace`, `hostName`; any other Project field may also be sent in a JSON body (query parameters win). ' +
          'With plans on (BILLING=stripe) a project created published (`published` absent or true) takes a place in the caller’s plan, and `showBranding: false` needs Pro: past either → 402 `plan_limit`; `plan` and `subscriptionItem` are then the service’s.',
        querystring: ProjectCreateQuery,
        body: ProjectPatchSchema,
        headers: IdempotencyHeaders,
        'x-create-inputs': { required: ['name'] },
        response: { 201: { ...Project, headers: { Location: { type: 'string' }, ETag: { type: 'string' } } }, ...problems(400, 401, 402, 409, 415) },
      },
    },
    async (request, reply) => {
      const outcome = await service.create(principalOf(request), { ...request.body, ...request.query }, createRequestOf(request));
      return sendCreated(reply, outcome, `/project/${outcome.record._id}`);
    },
  );

  app.get(
    '/projects/:id/preview-link',
    {
      schema: {
        operationId: 'getProjectPreviewLink',
        tags: ['projects'],
        summary: "A signed link that opens the project's page, draft or not (owner, administrators, editors)",
        description:
          `The page on the pages origin (\`/p/{namespace}\`, or the project's host name when it has no namespace) with a \`preview\` token good for ${PREVIEW_HOURS} hours, for whoever holds it. ` +
          'While the project is a draft (`published: false`) the page shows a draft banner and reads its bundle and live feed with the same token; enquiries and holds stay off. ' +
          'A project with neither namespace nor host name → 409.',
        params: IdParams,
        response: {
          200: { ...PreviewLinkSchema, headers: { 'Cache-Control': { type: 'string' } } },
          ...problems(400, 401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const link = await service.previewLink(principalOf(request), request.params.id);
      reply.header('Cache-Control', 'private, no-store');
      return link;
    },
  );

  for (const base of ['/project', '/projects']) {
    const alias = base === '/projects';
    // The plural aliases the interface also serves (`PATCH /project/{id}` also as `/projects/{id}`) need ids of their own.
    const suffix = alias ? 'Alias' : '';
    app.get(
      `${base}/:id`,
      {
        schema: {
          operationId: `getProject${suffix}`,
          tags: ['projects'],
          summary: 'Fetch one project',
          ...(alias ? { description: 'Alias of GET /project/{id}.' } : {}),
          params: IdParams,
          response: { 200: { ...Project, headers: { ETag: { type: 'string' } } }, ...problems(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const { record, etag } = await service.get(principalOf(request), request.params.id);
        reply.header('ETag', etag);
        return record;
      },
    );

    app.patch(
      `${base}/:id`,
      {
        schema: {
          operationId: `updateProject${suffix}`,
          tags: ['projects'],
          summary: 'Update a project',
          description:
            'Changes only the fields sent, atomically. A fetched record may be sent back whole: `_id` (must equal the path id), `createdAt`, `updatedAt`, `configuredSecrets`, `leads` and `waitlistees` are ignored, and unchanged values are no change. ' +
            "Secrets are write-only: a string sets one, `null` clears it. `floors` may reorder the project's own floors. `If-Match` with a stale ETag → 412. " +
            'With plans on (BILLING=stripe): publishing past the owner’s plan, or `showBranding: false` on a plan without Pro → 402 `plan_limit` naming the plan and the limit; `plan` and `subscriptionItem` are kept by the service (sent values are ignored).' +
            (alias ? ' Alias of PATCH /project/{id}.' : ''),
          params: IdParams,
          body: ProjectPatchSchema,
          response: { 200: { ...Project, headers: { ETag: { type: 'string' } } }, ...problems(400, 401, 402, 403, 404, 409, 412, 415) },
        },
      },
      async (request, reply) => {
        const { record, etag } = await service.patch(principalOf(request), request.params.id, request.body, request.headers['if-match']);
        reply.header('ETag', etag);
        return record;
      },
    );

    app.delete(
      `${base}/:id`,
      {
        schema: {
          operationId: `deleteProject${suffix}`,
          tags: ['projects'],
          summary: 'Delete a project (owner only), with its floors, units and leads',
          ...(alias ? { description: 'Alias of DELETE /project/{id}.' } : {}),
          params: IdParams,
          response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
        },
      },
      async (request, reply) => {
        await service.remove(principalOf(request), request.params.id, request.headers['if-match']);
        return reply.code(204).send();
      },
    );
  }
};
