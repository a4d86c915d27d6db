import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { reorderChildren } from '../../db/reorder.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, NoContent, problems } from '../../http/schemas.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { bumpProjectVersion, findProjectMembership } from '../projects/projects.repo.ts';
import { actorOf, createdChanges, updatedChanges } from '../events/events.repo.ts';
import { authorize } from '../shared/access.ts';
import { changedFields, checkBodyId, deepEqual, ifMatchVersion, invalid, staleWrite, withEtag } from '../shared/records.ts';
import { deleteFloor, findFloor, insertFloor, listFloors, pageFloors, toFloor, updateFloor } from './floors.repo.ts';
import { createIdempotently, type Created } from '../shared/idempotent.ts';
import { LIST_TEXT, pageOf, TotalHeader, totalOf } from '../shared/list.ts';
import { objectQuery } from '../shared/query.ts';
import { FloorCreateQuery, FloorListQuery, FloorPatchSchema } from './floors.schemas.ts';

const Floor = Type.Ref('Floor');
const ETag = { ETag: { type: 'string' } };

export const floorRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const db = ctx.db.kysely;

  app.post(
    '/floors',
    {
      schema: {
        tags: ['floors'],
        summary: "Create a floor in a project (appended to the project's floors by position)",
        description: 'Query parameters `project`, `name`, `position`; other Floor fields may come in a JSON body (query parameters win).',
        querystring: FloorCreateQuery,
        body: Type.Omit(FloorPatchSchema, ['units', '_id', '__v', 'createdAt', 'updatedAt']),
        response: { 201: { ...Floor, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const { project, name, position, ...data } = { ...request.body, ...request.query };
      if (!project) invalid([{ path: '/project', message: 'is required' }]);
      if (!name) invalid([{ path: '/name', message: 'is required' }]);
      authorize(principalOf(request), await findProjectMembership(db, project), 'edit');
      const id = newObjectId(ctx.clock.now());
      // Without a position the floor goes last.
      const pos = position ?? (await listFloors(db, project)).reduce((max, f) => Math.max(max, f.position + 1), 0);
      return createIdempotently(
        db,
        request,
        reply,
        'floors',
        (floorId) => `/floors/${floorId}`,
        async (trx) => {
          await insertFloor(trx, { id, projectId: project, name, position: pos, data });
          await bumpProjectVersion(trx, project);
          const changes = createdChanges({ ...data, name, position: pos });
          await ctx.events.append(trx, {
            projectId: project,
            type: 'floor.created',
            actor: actorOf(principalOf(request)),
            subjectId: id,
            changes,
            now: ctx.clock.now(),
          });
          const row = (await findFloor(trx, id))!;
          return { record: toFloor(row) as Created['record'], version: row.version };
        },
      );
    },
  );

  app.get(
    '/floors',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        tags: ['floors'],
        summary: "A project's floors in position order",
        description: LIST_TEXT,
        querystring: FloorListQuery,
        response: { 200: { ...Type.Array(Floor), headers: TotalHeader }, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { project, filters = {}, options = {} } = request.query;
      authorize(principalOf(request), await findProjectMembership(db, project), 'read');
      const page = pageOf(options);
      const rows = await pageFloors(db, project, { ...filters, ...page });
      const total = await totalOf(rows, page.skip, () => pageFloors(db, project, { ...filters, skip: 0, limit: 1, sort: undefined }));
      reply.header('X-Total-Count', String(total));
      return rows.map(toFloor);
    },
  );

  app.get(
    '/floors/:id',
    { schema: { tags: ['floors'], summary: 'Fetch one floor', params: IdParams, response: { 200: { ...Floor, headers: ETag }, ...problems(400, 401, 404) } } },
    async (request, reply) => {
      const row = await findFloor(db, request.params.id);
      authorize(principalOf(request), row, 'read', 'Floor');
      withEtag(reply, row!.version);
      return toFloor(row!);
    },
  );

  app.patch(
    '/floors/:id',
    {
      schema: {
        tags: ['floors'],
        summary: 'Update a floor',
        description: "Only the fields sent change. `units` may reorder the floor's own units. `project` cannot change. `If-Match` with a stale ETag → 412.",
        params: IdParams,
        body: FloorPatchSchema,
        response: { 200: { ...Floor, headers: ETag }, ...problems(400, 401, 403, 404, 412, 415) },
      },
    },
    async (request, reply) => {
      const row = await findFloor(db, request.params.id);
      authorize(principalOf(request), row, 'edit', 'Floor');
      const floor = row!;
      const ifVersion = ifMatchVersion(request, floor.version);
      checkBodyId(request.body, floor.id);
      const { units, project, ...rest } = request.body;
      if (project !== undefined && project !== floor.project_id) invalid([{ path: '/project', message: 'a floor cannot move to another project' }]);
      let order: string[] | undefined;
      if (units !== undefined && !deepEqual(units, floor.unit_ids)) {
        const own = new Set(floor.unit_ids);
        const errors = units.flatMap((id, i) => (own.has(id) ? [] : [{ path: `/units/${i}`, message: 'is not a unit of this floor' }]));
        if (new Set(units).size !== units.length) errors.push({ path: '/units', message: 'must not repeat an id' });
        if (errors.length) invalid(errors);
        order = units;
      }
      const changes = changedFields(rest, toFloor(floor));
      if (Object.keys(changes).length || order) {
        const { name, position, ...data } = changes as { name?: string; position?: number } & Record<string, unknown>;
        await db.transaction().execute(async (trx) => {
          const columns = { ...(name !== undefined ? { name } : {}), ...(position !== undefined ? { position } : {}) };
          if (!(await updateFloor(trx, floor.id, { columns, data }, ifVersion))) throw staleWrite();
          if (order) await reorderChildren(trx, 'units', floor.id, order);
          if (position !== undefined) await bumpProjectVersion(trx, floor.project_id);
          const logged = updatedChanges(toFloor(floor), { ...changes, ...(order ? { units: order } : {}) });
          await ctx.events.append(trx, {
            projectId: floor.project_id,
            type: 'floor.updated',
            actor: actorOf(principalOf(request)),
            subjectId: floor.id,
            changes: logged,
            now: ctx.clock.now(),
          });
        });
      }
      const updated = (await findFloor(db, floor.id))!;
      withEtag(reply, updated.version);
      return toFloor(updated);
    },
  );

  app.delete(
    '/floors/:id',
    {
      schema: {
        tags: ['floors'],
        summary: "Delete a floor and its units (owner and administrators); it leaves the project's floors",
        params: IdParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      const row = await findFloor(db, request.params.id);
      authorize(principalOf(request), row, 'delete-child', 'Floor');
      const ifVersion = ifMatchVersion(request, row!.version);
      await db.transaction().execute(async (trx) => {
        if (!(await deleteFloor(trx, row!.id, ifVersion))) throw staleWrite();
        await bumpProjectVersion(trx, row!.project_id);
        await ctx.events.append(trx, {
          projectId: row!.project_id,
          type: 'floor.deleted',
          actor: actorOf(principalOf(request)),
          subjectId: row!.id,
          now: ctx.clock.now(),
        });
      });
      return reply.code(204).send();
    },
  );
};
