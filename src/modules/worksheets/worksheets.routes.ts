import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { perMinute } from '../../http/rate-limits.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { allocationToken } from '../allocations/token-header.ts';
import { TotalHeader } from '../shared/list.ts';
import { objectQuery } from '../shared/query.ts';
import { WorksheetArray, WorksheetListQuery, WorksheetPatchBody, WorksheetSubmitBody, WorksheetSubmitHeaders } from './worksheets.schemas.ts';
import { WorksheetService } from './worksheets.service.ts';

const Worksheet = Type.Ref('Worksheet');

/** POST /public/worksheets: a realtor submits a worksheet through their allocation's token. */
export const worksheetPublicRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new WorksheetService(ctx);
  app.post(
    '/public/worksheets',
    {
      schema: {
        operationId: 'createPublicWorksheets',
        tags: ['public'],
        summary: "Submit a worksheet for a buyer through a realtor's allocation",
        description:
          'Needs `X-Allocation-Token` (401 without a valid one). `choices`: 1 to 3 units of the project, in order of preference (a unit of another project → 400). ' +
          "At most WORKSHEETS_PER_ALLOCATION (default 200) of one allocation's worksheets may wait undecided at once → 409; rate-limited per client address like POST /public/leads.",
        security: [],
        headers: WorksheetSubmitHeaders,
        body: WorksheetSubmitBody,
        response: { 201: Worksheet, ...problems(400, 401, 409, 413, 415, 429) },
      },
      config: { rateLimit: perMinute(ctx.config.limits.publicLeadsPerMinute) },
    },
    async (request, reply) =>
      reply
        .code(201)
        .header('Cache-Control', 'no-store')
        .send(await service.submit(allocationToken(request), request.body)),
  );
};

/** The sales team's side: the inbox of worksheets, and deciding one. */
export const worksheetRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new WorksheetService(ctx);
  app.get(
    '/projects/:id/worksheets',
    {
      preValidation: objectQuery(['options']),
      schema: {
        operationId: 'listProjectsWorksheets',
        tags: ['worksheets'],
        summary: "A project's worksheets, oldest first (owner and administrators)",
        params: IdParams,
        querystring: WorksheetListQuery,
        response: { 200: { ...WorksheetArray, headers: TotalHeader }, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { status, options = {} } = request.query;
      const page = { skip: options.skip ?? 0, limit: options.limit ?? 100, status };
      const { worksheets, total } = await service.list(principalOf(request), request.params.id, page);
      reply.header('X-Total-Count', String(total));
      return worksheets;
    },
  );

  app.patch(
    '/worksheets/:id',
    {
      schema: {
        operationId: 'updateWorksheets',
        tags: ['worksheets'],
        summary: 'Accept a worksheet with one of its units (the unit turns reserved), or decline it',
        description:
          '`{ status: "accepted", unit }`: the unit (one of its choices, available or held by its allocation) turns `reserved` and the worksheet `accepted` in one transaction; ' +
          'a unit already accepted for another worksheet, or otherwise taken → 409. `{ status: "declined" }` declines. A worksheet decided already → 409.',
        params: IdParams,
        body: WorksheetPatchBody,
        response: { 200: Worksheet, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => service.decide(principalOf(request), request.params.id, request.body),
  );
};
