import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, NoContent, problems } from '../../http/schemas.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { bumpFloors } from '../floors/floors.repo.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { actorOf, createdChanges, SYSTEM, type Changes } from '../events/events.repo.ts';
import { authorize } from '../shared/access.ts';
import { changedFields, checkBodyId, ifMatchVersion, invalid, SERVER_KEPT, staleWrite, withEtag } from '../shared/records.ts';
import { deleteUnit, findUnit, holdExpired, insertUnit, listUnits, releaseExpiredHold, toUnit, updateUnit, type UnitChange } from './units.repo.ts';
import { unitUpdateChanges } from './units.change.ts';
import { availabilityInAnyCase, UNIT_DEFAULTS, UnitCreateQuery, UnitListQuery, UnitPatchSchema, UnitSchema } from './units.schemas.ts';
import { createIdempotently, type Created } from '../shared/idempotent.ts';
import { LIST_TEXT, pageOf, TotalHeader, totalOf } from '../shared/list.ts';
import { objectQuery } from '../shared/query.ts';
import { csvOrJson, sendCsv, toCsv, wantsCsv } from '../inventory/csv.ts';

const UNIT_COLUMNS = Object.keys(UnitSchema.properties);
const MAX_CSV_UNITS = 100_000;

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

  /** Writes a lapsed hold back as available (a read found it first); the service, not the reader, is the actor. */
  async function releaseHold(unit: { id: string; project_id: string; on_hold_expires_at: Date | string | null }, now: number) {
    await db.transaction().execute(async (trx) => {
      if (!(await releaseExpiredHold(trx, unit.id, now))) return;
      const changes: Changes = { availability: ['on_hold', 'available'], onHoldExpiresAt: [new Date(unit.on_hold_expires_at!).toISOString(), null] };
      await ctx.events.append(trx, {
        projectId: unit.project_id,
        type: 'unit.hold_expired',
        actor: SYSTEM,
        subjectId: unit.id,
        changes,
        now,
      });
    });
  }

  app.post(
    '/units',
    {
      preValidation: availabilityInAnyCase,
      schema: {
        tags: ['units'],
        summary: 'Create a unit in a project (optionally on one of its floors)',
        description:
          'Query parameters `name`, `position`, `project` and optional `floor`; other Unit fields may come in a JSON body (query parameters win). `specificType` defaults to `unit`.',
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
      const input = {
        id,
        projectId: project,
        floorId: floor ?? null,
        name,
        position: position ?? 0,
        availability: (availability ?? 'available').toLowerCase(),
        onHoldExpiresAt: onHoldExpiresAt ?? null,
        data: { ...UNIT_DEFAULTS, ...data },
      };
      return createIdempotently(
        db,
        request,
        reply,
        'units',
        (unitId) => `/units/${unitId}`,
        async (trx) => {
          await insertUnit(trx, input);
          await bumpFloors(trx, [floor]);
          const changes = createdChanges({
            ...input.data,
            name,
            position: input.position,
            floor,
            availability: input.availability,
            onHoldExpiresAt: onHoldExpiresAt ?? undefined,
          });
          await ctx.events.append(trx, {
            projectId: project,
            type: 'unit.created',
            actor: actorOf(principalOf(request)),
            subjectId: id,
            changes,
            now: ctx.clock.now(),
          });
          const row = (await findUnit(trx, id))!;
          return { record: toUnit(row, ctx.clock.now()) as Created['record'], version: row.version };
        },
      );
    },
  );

  app.get(
    '/units',
    {
      preValidation: [objectQuery(['filters', 'options']), availabilityInAnyCase],
      schema: {
        tags: ['units'],
        summary: "A project's units (optionally one floor's, or one availability)",
        description:
          'JSON, or RFC 4180 CSV with `Accept: text/csv` or `format=csv` (one row per unit, arrays and objects as JSON text; see docs/inventory.md); ' +
          'a CSV export holds every unit unless `options.limit` asks for a page. Without `options.sort`, units come in floor and position order. ' +
          '`filters` ranges (`priceMin`…`bedroomsMax`) are inclusive; a unit without the field does not match a range on it. ' +
          LIST_TEXT,
        querystring: UnitListQuery,
        response: { 200: { ...csvOrJson(Type.Array(Unit), 'units'), headers: TotalHeader }, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { project, floor, availability, format, filters = {}, options = {} } = request.query;
      authorize(principalOf(request), await findProjectMembership(db, project), 'read');
      const now = ctx.clock.now();
      const csv = wantsCsv(request, format);
      // A spreadsheet export is the whole list unless a page is asked for.
      const page = pageOf(options, csv ? MAX_CSV_UNITS : 100);
      const wanted = [availability, filters.availability].filter((a) => a !== undefined).flatMap((a) => a.toLowerCase().split(','));
      const params = { ...filters, floorId: floor, availability: wanted, now };
      const rows = await listUnits(db, project, { ...params, ...page });
      const total = await totalOf(rows, page.skip, () => listUnits(db, project, { ...params, skip: 0, limit: 1, sort: undefined }));
      const units = rows.map((u) => toUnit(u, now));
      reply.header('X-Total-Count', String(total));
      if (csv) return sendCsv(reply, `units-${project}.csv`, toCsv(units, UNIT_COLUMNS));
      return units;
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
        await releaseHold(row!, now);
        row = (await findUnit(db, row!.id))!;
      }
      withEtag(reply, row!.version);
      return toUnit(row!, now);
    },
  );

  app.patch(
    '/units/:id',
    {
      preValidation: availabilityInAnyCase,
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
      const before = toUnit({ ...unit, data: { ...unit.data } }, now);
      const body = { ...request.body, ...(request.body.availability ? { availability: request.body.availability.toLowerCase() } : {}) };
      const changes = changedFields(body, toUnit(unit, now), IGNORED);
      // A PATCH that only clears a field that is already absent is no change.
      for (const k of ['floor', 'onHoldExpiresAt'] as const) if (changes[k] === null && toUnit(unit, now)[k] === undefined) delete changes[k];
      if (Object.keys(changes).length) {
        // Validated by UnitPatchSchema: the column fields have these types; the rest is the unit's document.
        const { name, position, floor, availability, onHoldExpiresAt, ...data } = changes as {
          name?: string;
          position?: number;
          floor?: string | null;
          availability?: string;
          onHoldExpiresAt?: string | null;
        } & Record<string, unknown>;
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
          // Leaving on_hold clears the expiry too (updateUnit).
          const logged = unitUpdateChanges(before, changes);
          await ctx.events.append(trx, {
            projectId: unit.project_id,
            type: 'unit.updated',
            actor: actorOf(principalOf(request)),
            subjectId: unit.id,
            changes: logged,
            now,
          });
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
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      const row = await findUnit(db, request.params.id);
      authorize(principalOf(request), row, 'delete-child', 'Unit');
      const ifVersion = ifMatchVersion(request, row!.version);
      await db.transaction().execute(async (trx) => {
        if (!(await deleteUnit(trx, row!.id, ifVersion))) throw staleWrite();
        await bumpFloors(trx, [row!.floor_id]);
        await ctx.events.append(trx, {
          projectId: row!.project_id,
          type: 'unit.deleted',
          actor: actorOf(principalOf(request)),
          subjectId: row!.id,
          now: ctx.clock.now(),
        });
      });
      return reply.code(204).send();
    },
  );
};
