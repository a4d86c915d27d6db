import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, NoContent, problems } from '../../http/schemas.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { bumpFloors } from '../floors/floors.repo.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { changedFields, checkBodyId, ifMatchVersion, invalid, SERVER_KEPT, staleWrite, withEtag } from '../shared/records.ts';
import { deleteUnit, findUnit, holdExpired, insertUnit, listUnits, releaseExpiredHold, toUnit, updateUnit, type UnitChange } from './units.repo.ts';
import { UNIT_DEFAULTS, UnitCreateQuery, UnitListQuery, UnitPatchSchema } from './units.schemas.ts';

const Unit = Type.Ref('Unit');
const ETag = { ETag: { type: 'string' } };
const IGNORED = new Set([...SERVER_KEPT, 'project']);

export const unitRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const db = ctx.db.kysely;

  /** A floor id sent by a client must be a floor of the unit's own project. */
  async function checkFloor(projectId: string, floorId: string | null | undefined, path: string) {
    if (!floorId) return;
    const floor = await db.selectFrom('floors').select('project_id').where('id', '=', floorId).executeTakeFirst();
    if (floor?.project_id !== projectId) invalid([{ path, message: 'is not a floor of this project' }]);
  }

  app.post(
    '/units',
    {
      schema: {
        tags: ['units'],
        summary: 'Create a unit in a project (optionally on one of its floors)',
        description: 'Query parameters `name`, `position`, `project` and optional `floor`; other Unit fields may come in a JSON body (query parameters win). `specificType` defaults to `unit`.',
        querystring: UnitCreateQuery,
        body: Type.Omit(UnitPatchSchema, ['_id', '__v', 'createdAt', 'updatedAt']),
        response: { 201: { ...Unit, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const { project, name, position, floor, availability, onHoldExpiresAt, ...data } = { ...request.body, ...request.query };
      if (!project) invalid([{ path: '/project', message: 'is required' }]);
      if (!name) invalid([{ path: '/name', message: 'is required' }]);
      authorize(principalOf(request), await findProjectMembership(db, project), 'edit');
      await checkFloor(project, floor, '/floor');
      const id = newObjectId(ctx.clock.now());
      await db.transaction().execute(async (trx) => {
        await insertUnit(trx, {
          id,
          projectId: project,
          floorId: floor ?? null,
          name,
          position: position ?? 0,
          availability: (availability ?? 'available').toLowerCase(),
          onHoldExpiresAt: onHoldExpiresAt ?? null,
          data: { ...UNIT_DEFAULTS, ...data },
        });
        await bumpFloors(trx, [floor]);
      });
      const row = (await findUnit(db, id))!;
      withEtag(reply, row.version);
      return reply.code(201).header('Location', `/units/${id}`).send(toUnit(row, ctx.clock.now()));
    },
  );

  app.get(
    '/units',
    {
      schema: {
        tags: ['units'],
        summary: "A project's units (optionally one floor's, or one availability)",
        querystring: UnitListQuery,
        response: { 200: Type.Array(Unit), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const { project, floor, availability } = request.query;
      authorize(principalOf(request), await findProjectMembership(db, project), 'read');
      const now = ctx.clock.now();
      return (await listUnits(db, project, { floorId: floor, availability: availability?.toLowerCase(), now })).map((u) => toUnit(u, now));
    },
  );

  app.get(
    '/units/:id',
    { schema: { tags: ['units'], summary: 'Fetch one unit', params: IdParams, response: { 200: { ...Unit, headers: ETag }, ...problems(400, 401, 404) } } },
    async (request, reply) => {
      let row = await findUnit(db, request.params.id);
      authorize(principalOf(request), row, 'read', 'Unit');
      const now = ctx.clock.now();
      if (holdExpired(row!, now)) {
        await releaseExpiredHold(db, row!.id, now);
        row = (await findUnit(db, row!.id))!;
      }
      withEtag(reply, row!.version);
      return toUnit(row!, now);
    },
  );

  app.patch(
    '/units/:id',
    {
      schema: {
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
      const row = await findUnit(db, request.params.id);
      authorize(principalOf(request), row, 'edit', 'Unit');
      const unit = row!;
      const ifVersion = ifMatchVersion(request, unit.version);
      checkBodyId(request.body, unit.id);
      const now = ctx.clock.now();
      const body = { ...request.body, ...(request.body.availability ? { availability: request.body.availability.toLowerCase() } : {}) };
      const changes = changedFields(body, toUnit(unit, now), IGNORED);
      // A PATCH that only clears a field that is already absent is no change.
      for (const k of ['floor', 'onHoldExpiresAt'] as const) if (changes[k] === null && toUnit(unit, now)[k] === undefined) delete changes[k];
      if (Object.keys(changes).length) {
        const { name, position, floor, availability, onHoldExpiresAt, ...data } = changes as Record<string, any>;
        if (floor !== undefined) await checkFloor(unit.project_id, floor, '/floor');
        const change: UnitChange = {
          columns: {
            ...(name !== undefined ? { name } : {}),
            ...(position !== undefined ? { position } : {}),
            ...(floor !== undefined ? { floor_id: floor } : {}),
            ...(availability !== undefined ? { availability } : {}),
            ...(onHoldExpiresAt !== undefined ? { on_hold_expires_at: onHoldExpiresAt } : {}),
          },
          data,
        };
        if (availability === 'on_hold' && !onHoldExpiresAt && !unit.on_hold_expires_at) {
          invalid([{ path: '/onHoldExpiresAt', message: 'is required to put a unit on hold' }]);
        }
        await db.transaction().execute(async (trx) => {
          if (!(await updateUnit(trx, unit.id, change, ifVersion))) throw staleWrite();
          // The floors whose `units` list changed: both ends of a move, or the floor whose order a new position changed.
          if (floor !== undefined) await bumpFloors(trx, [unit.floor_id, floor]);
          else if (position !== undefined) await bumpFloors(trx, [unit.floor_id]);
        });
      }
      const updated = (await findUnit(db, unit.id))!;
      withEtag(reply, updated.version);
      return toUnit(updated, now);
    },
  );

  app.delete(
    '/units/:id',
    {
      schema: {
        tags: ['units'],
        summary: "Delete a unit (owner and administrators); it leaves its floor's units",
        params: IdParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const row = await findUnit(db, request.params.id);
      authorize(principalOf(request), row, 'delete-child', 'Unit');
      await db.transaction().execute(async (trx) => {
        await deleteUnit(trx, row!.id);
        await bumpFloors(trx, [row!.floor_id]);
      });
      return reply.code(204).send();
    },
  );
};
