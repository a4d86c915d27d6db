import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { sendJsonText, useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { IdempotencyHeaders, IdParams, NoContent, problems } from '../../http/schemas.ts';
import { availabilityInAnyCase, UnitArray, UnitCreateBody, UnitCreateQuery, UnitListQuery, UnitPatchSchema, UnitSchema } from './units.schemas.ts';
import { UnitService } from './units.service.ts';
import { createRequestOf, sendCreated } from '../shared/idempotent.ts';
import { LIST_TEXT, TotalHeader } from '../shared/list.ts';
import { objectQuery } from '../shared/query.ts';
import { csvOrJson, sendCsv, toCsv, wantsCsv } from '../inventory/csv.ts';

/** The CSV export's columns: the Unit record's fields, in its order. */
const CSV_COLUMNS = Object.keys(UnitSchema.properties);
const MAX_CSV_UNITS = 100_000;

const Unit = Type.Ref('Unit');
const ETag = { ETag: { type: 'string' } };
const locationOf = (id: string) => `/units/${id}`;

export const unitRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const units = new UnitService(ctx);

  app.post(
    '/units',
    {
      preValidation: availabilityInAnyCase,
      schema: {
        operationId: 'createUnit',
        tags: ['units'],
        summary: 'Create a unit in a project (optionally on one of its floors)',
        description:
          'Query parameters `name`, `position`, `project` and optional `floor`; other Unit fields may come in a JSON body (query parameters win). `specificType` defaults to `unit`.',
        querystring: UnitCreateQuery,
        body: UnitCreateBody,
        headers: IdempotencyHeaders,
        'x-create-inputs': { required: ['project', 'name'] },
        response: { 201: { ...Unit, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const outcome = await units.create(principalOf(request), { ...request.body, ...request.query }, createRequestOf(request));
      return sendCreated(reply, outcome, locationOf(outcome.record._id));
    },
  );

  app.get(
    '/units',
    {
      preValidation: [objectQuery(['filters', 'options']), availabilityInAnyCase],
      schema: {
        operationId: 'listUnits',
        tags: ['units'],
        summary: "A project's units (optionally one floor's, or one availability)",
        description:
          'JSON, or RFC 4180 CSV with `Accept: text/csv` or `format=csv` (one row per unit, arrays and objects as JSON text; see docs/inventory.md); ' +
          'a CSV export holds every unit unless `options.limit` asks for a page. Without `options.sort`, units come in floor and position order. ' +
          '`filters` ranges (`priceMin`…`bedroomsMax`) are inclusive; a unit without the field does not match a range on it. ' +
          LIST_TEXT,
        querystring: UnitListQuery,
        response: { 200: { ...csvOrJson(UnitArray, 'units'), headers: TotalHeader }, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const csv = wantsCsv(request, request.query.format);
      // A spreadsheet export is the whole list unless a page is asked for.
      const { records, total } = await units.list(principalOf(request), request.query, csv ? MAX_CSV_UNITS : 100, ctx.clock.now());
      reply.header('X-Total-Count', String(total));
      if (csv) return sendCsv(reply, `units-${request.query.project}.csv`, toCsv(records, CSV_COLUMNS));
      return records;
    },
  );

  app.get(
    '/units/:id',
    {
      schema: {
        operationId: 'getUnit',
        tags: ['units'],
        summary: 'Fetch one unit',
        params: IdParams,
        response: { 200: { ...Unit, headers: ETag }, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { record, etag } = await units.getDocument(principalOf(request), request.params.id, ctx.clock.now());
      reply.header('ETag', etag);
      return sendJsonText(reply, record);
    },
  );

  app.patch(
    '/units/:id',
    {
      preValidation: availabilityInAnyCase,
      schema: {
        operationId: 'updateUnit',
        tags: ['units'],
        summary: 'Update a unit',
        description:
          'Only the fields sent change. Changing `floor` moves the unit between floors of its project (both floors change in one transaction). ' +
          '`availability` is one of available, on_hold, reserved, sold, leased, unavailable (any case); leaving on_hold clears `onHoldExpiresAt`. `If-Match` with a stale ETag → 412.',
        params: IdParams,
        body: UnitPatchSchema,
        response: { 200: { ...Unit, headers: ETag }, ...problems(400, 401, 403, 404, 412, 415) },
      },
    },
    async (request, reply) => {
      const { record, etag } = await units.patch(principalOf(request), request.params.id, request.body, request.headers['if-match'], ctx.clock.now());
      reply.header('ETag', etag);
      return record;
    },
  );

  app.delete(
    '/units/:id',
    {
      schema: {
        operationId: 'deleteUnit',
        tags: ['units'],
        summary: "Delete a unit (owner and administrators); it leaves its floor's units",
        params: IdParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      await units.delete(principalOf(request), request.params.id, request.headers['if-match']);
      return reply.code(204).send();
    },
  );
};
