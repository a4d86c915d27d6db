import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { IdempotencyHeaders, IdParams, NoContent, problems } from '../../http/schemas.ts';
import { createRequestOf, sendCreated } from '../shared/idempotent.ts';
import { LIST_TEXT, TotalHeader } from '../shared/list.ts';
import { objectQuery } from '../shared/query.ts';
import {
  CopyOutlinesBody,
  CopyOutlinesResult,
  FloorArray,
  FloorCreateBody,
  FloorCreateQuery,
  FloorDuplicateBody,
  FloorListQuery,
  FloorPatchSchema,
  OutlineSuggestions,
} from './floors.schemas.ts';
import { FloorService } from './floors.service.ts';

const Floor = Type.Ref('Floor');
const ETag = { ETag: { type: 'string' } };
const locationOf = (id: string) => `/floors/${id}`;

export const floorRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const floors = new FloorService(ctx);

  app.post(
    '/floors',
    {
      schema: {
        operationId: 'createFloor',
        tags: ['floors'],
        summary: "Create a floor in a project (appended to the project's floors by position)",
        description: 'Query parameters `project`, `name`, `position`; other Floor fields may come in a JSON body (query parameters win).',
        querystring: FloorCreateQuery,
        body: FloorCreateBody,
        headers: IdempotencyHeaders,
        'x-create-inputs': { required: ['project', 'name'] },
        response: { 201: { ...Floor, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const outcome = await floors.create(principalOf(request), { ...request.body, ...request.query }, createRequestOf(request));
      return sendCreated(reply, outcome, locationOf(outcome.record._id));
    },
  );

  app.post(
    '/floors/:id/duplicate',
    {
      schema: {
        operationId: 'duplicateFloor',
        tags: ['floors'],
        summary: 'Copy a floor with its plan, shapes and units (owner, administrators, editors)',
        description:
          'A new floor with every field of this one (plan, image, settings), and a copy of each of its units with every field and shape, in one transaction. ' +
          'Copies start `available`; each is named by `unitNames` (by the id of the unit copied) or as its name and " (copy)". ' +
          'The floor goes after the last floor unless `position` is given; its name defaults to this one\'s and " (copy)". ' +
          'The change log gets `floor.created` and one `unit.created` per copy, sharing one `batch`. Honours `Idempotency-Key`.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: FloorDuplicateBody,
        response: { 201: { ...Floor, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const outcome = await floors.duplicate(principalOf(request), request.params.id, { ...request.body }, createRequestOf(request));
      return sendCreated(reply, outcome, locationOf(outcome.record._id));
    },
  );

  app.post(
    '/floors/:id/copy-outlines',
    {
      schema: {
        operationId: 'copyFloorOutlines',
        tags: ['floors'],
        summary: "Give this floor's units the outlines of their counterparts on another floor (owner, administrators, editors)",
        description:
          'Units are matched by the end of their numbers (the last two digits and any letters after them: 101 ↔ 201, 1204A ↔ 1304A) where each floor has that ' +
          'ending once, then the rest by their order on their floors. Only units without an outline get one unless `overwrite`. Written as one bulk unit ' +
          'update (PATCH /units): all or nothing, one `unit.updated` per unit changed. `unmatched` names the units still without an outline.',
        params: IdParams,
        body: CopyOutlinesBody,
        response: { 200: CopyOutlinesResult, ...problems(400, 401, 403, 404, 412, 415) },
      },
    },
    (request) => floors.copyOutlines(principalOf(request), request.params.id, request.body, ctx.clock.now()),
  );

  app.get(
    '/floors/:id/outline-suggestions',
    {
      schema: {
        operationId: 'suggestFloorOutlines',
        tags: ['floors'],
        summary: "Outlines proposed from the floor's plan picture",
        description:
          'The light areas of `floorplanUrl` enclosed by dark walls (flood fill of the picture scaled to 400 pixels on its longer side), as outlines in the ' +
          "plan editor's drawing space; rooms open to each other by more than about 1 % of the picture's width come out as one. Nothing is written: a " +
          "client offers them and saves the ones accepted as units' `path`. Empty when the plan is not an uploaded picture (`/media/…`, not a PDF). See docs/console.md.",
        params: IdParams,
        response: { 200: OutlineSuggestions, ...problems(400, 401, 404) },
      },
    },
    (request) => floors.suggestOutlines(principalOf(request), request.params.id),
  );

  app.get(
    '/floors',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        operationId: 'listFloors',
        tags: ['floors'],
        summary: "A project's floors in position order",
        description: LIST_TEXT,
        querystring: FloorListQuery,
        response: { 200: { ...FloorArray, headers: TotalHeader }, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { records, total } = await floors.list(principalOf(request), request.query);
      reply.header('X-Total-Count', String(total));
      return records;
    },
  );

  app.get(
    '/floors/:id',
    {
      schema: {
        operationId: 'getFloor',
        tags: ['floors'],
        summary: 'Fetch one floor',
        params: IdParams,
        response: { 200: { ...Floor, headers: ETag }, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { record, etag } = await floors.get(principalOf(request), request.params.id);
      reply.header('ETag', etag);
      return record;
    },
  );

  app.patch(
    '/floors/:id',
    {
      schema: {
        operationId: 'updateFloor',
        tags: ['floors'],
        summary: 'Update a floor',
        description: "Only the fields sent change. `units` may reorder the floor's own units. `project` cannot change. `If-Match` with a stale ETag → 412.",
        params: IdParams,
        body: FloorPatchSchema,
        response: { 200: { ...Floor, headers: ETag }, ...problems(400, 401, 403, 404, 412, 415) },
      },
    },
    async (request, reply) => {
      const { record, etag } = await floors.patch(principalOf(request), request.params.id, request.body, request.headers['if-match']);
      reply.header('ETag', etag);
      return record;
    },
  );

  app.delete(
    '/floors/:id',
    {
      schema: {
        operationId: 'deleteFloor',
        tags: ['floors'],
        summary: "Delete a floor and its units (owner and administrators); it leaves the project's floors",
        params: IdParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      await floors.delete(principalOf(request), request.params.id, request.headers['if-match']);
      return reply.code(204).send();
    },
  );
};
