import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { AppError, type FieldError } from '../../http/errors.ts';
import { ObjectId, problems } from '../../http/schemas.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { actorOf } from '../events/events.repo.ts';
import { bumpFloors } from '../floors/floors.repo.ts';
import { can, levelOf } from '../shared/access.ts';
import { etagOf, invalid } from '../shared/records.ts';
import { planUnitChange, type PlannedUnitChange } from './units.change.ts';
import { updateUnits, type UnitSet } from '../inventory/inventory.repo.ts';
import { findUnitsByIds, toUnit } from './units.repo.ts';
import { availabilityInAnyCase, UnitPatchSchema } from './units.schemas.ts';

export const MAX_BULK_UNITS = 1000;

const BulkItem = Type.Object(
  {
    ...UnitPatchSchema.properties,
    _id: ObjectId,
    ifMatch: Type.Optional(Type.String({ maxLength: 200, description: 'The ETag this unit must still have (`"<__v>"`), as If-Match on a single PATCH' })),
  },
  { additionalProperties: false },
);
export const BulkUnitPatch = Type.Array(BulkItem, { minItems: 1, maxItems: MAX_BULK_UNITS });

/** `If-Match` semantics for one item: `*`, or one of a comma-separated list of (weak or strong) tags. */
function matches(ifMatch: string, version: number) {
  if (ifMatch.trim() === '*') return true;
  return ifMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .includes(etagOf(version));
}

export const unitBulkRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const db = ctx.db.kysely;

  app.patch(
    '/units',
    {
      preValidation: availabilityInAnyCase,
      schema: {
        tags: ['units'],
        summary: 'Update many units at once (all or nothing)',
        description:
          `A JSON array of 1–${MAX_BULK_UNITS} items \`{ "_id", ...Unit fields, "ifMatch"? }\`, units of any projects the caller may edit. ` +
          'Each item follows the rules of PATCH /units/{id}. All items are checked before anything is written: a bad field → 400 with `errors[].path` ' +
          "prefixed by the item index (`/3/price`); an id the caller cannot see → 400 at `/<i>/_id`; an `ifMatch` that is not the unit's current ETag → 412. " +
          'One transaction writes every change and appends one `unit.updated` event per changed unit (actor: the caller); the answer is the updated units in request order.',
        body: BulkUnitPatch,
        response: { 200: Type.Array(Type.Ref('Unit')), ...problems(400, 401, 412, 413, 415) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const items = request.body as (Record<string, unknown> & { _id: string; ifMatch?: string })[];
      const now = ctx.clock.now();
      const rows = new Map((await findUnitsByIds(db, [...new Set(items.map((i) => i._id))])).map((r) => [r.id, r]));
      const errors: FieldError[] = [];
      const seen = new Map<string, number>();
      const planned: (PlannedUnitChange | undefined)[] = [];
      const floorChecks: { index: number; floor: string; project: string }[] = [];

      items.forEach((item, i) => {
        const row = rows.get(item._id);
        const level = row && levelOf(principal, row);
        if (!row || !level) {
          errors.push({ path: `/${i}/_id`, message: 'not found' });
          planned.push(undefined);
          return;
        }
        if (!can(level, 'edit')) errors.push({ path: `/${i}/_id`, message: 'may not be changed by the caller' });
        if (seen.has(item._id)) errors.push({ path: `/${i}/_id`, message: `repeats item ${seen.get(item._id)}` });
        seen.set(item._id, i);
        const own: FieldError[] = [];
        const plan = planUnitChange(row, item, now, own);
        errors.push(...own.map((e) => ({ path: `/${i}${e.path}`, message: e.message })));
        if (typeof plan?.floorTo === 'string') floorChecks.push({ index: i, floor: plan.floorTo, project: row.project_id });
        planned.push(plan);
      });

      if (floorChecks.length) {
        const floors = await db
          .selectFrom('floors')
          .select(['id', 'project_id'])
          .where('id', 'in', [...new Set(floorChecks.map((f) => f.floor))])
          .execute();
        const projectOf = new Map(floors.map((f) => [f.id, f.project_id]));
        for (const f of floorChecks) {
          if (projectOf.get(f.floor) !== f.project) errors.push({ path: `/${f.index}/floor`, message: 'is not a floor of this project' });
        }
      }
      if (errors.length) invalid(errors.sort((a, b) => Number(a.path.split('/')[1]) - Number(b.path.split('/')[1])));

      const stale = items.flatMap((item, i) => (item.ifMatch !== undefined && !matches(item.ifMatch, rows.get(item._id)!.version) ? [i] : []));
      if (stale.length) throw staleItems(stale);

      // One statement per thousand items; with ifMatch an item is written only at that version, so a change between
      // the check and the write is caught.
      const writes = items.flatMap((item, i) => (planned[i] ? [{ item, i, plan: planned[i] }] : [])).sort((a, b) => (a.item._id < b.item._id ? -1 : 1));
      if (writes.length) {
        await db.transaction().execute(async (trx) => {
          const touchedFloors: (string | null)[] = [];
          const sets: UnitSet[] = writes.map(({ item, plan }) => {
            const row = rows.get(item._id)!;
            const c = plan.change.columns;
            if (plan.floorTo !== undefined) touchedFloors.push(row.floor_id, plan.floorTo);
            else if (plan.positionChanged) touchedFloors.push(row.floor_id);
            return {
              id: row.id,
              ...(c.name !== undefined ? { name: c.name } : {}),
              ...(c.position !== undefined ? { position: c.position } : {}),
              ...(c.floor_id !== undefined ? { floorId: c.floor_id } : {}),
              ...(c.availability !== undefined ? { availability: c.availability } : {}),
              ...(c.on_hold_expires_at !== undefined ? { onHoldExpiresAt: c.on_hold_expires_at } : {}),
              ...(item.ifMatch !== undefined ? { ifVersion: row.version } : {}),
              data: plan.change.data,
            };
          });
          const written = await updateUnits(trx, sets);
          const lost = writes.filter((w) => !written.has(w.item._id)).map((w) => w.i);
          if (lost.length) throw staleItems(lost.sort((a, b) => a - b));
          await bumpFloors(trx, touchedFloors);
          // One unit.updated per changed unit, as its own PATCH would append, in request order.
          const actor = actorOf(principal);
          await ctx.events.appendMany(
            trx,
            items.flatMap((item, i) => {
              const plan = planned[i];
              if (!plan) return [];
              const row = rows.get(item._id)!;
              return [{ projectId: row.project_id, type: 'unit.updated' as const, actor, subjectId: row.id, changes: plan.logged, now }];
            }),
          );
        });
      }
      const updated = new Map(
        (
          await findUnitsByIds(
            db,
            items.map((i) => i._id),
          )
        ).map((r) => [r.id, r]),
      );
      return items.map((item) => toUnit(updated.get(item._id)!, now));
    },
  );
};

function staleItems(indexes: number[]) {
  return new AppError(
    412,
    'precondition_failed',
    `Item${indexes.length > 1 ? 's' : ''} ${indexes.join(', ')} changed since the ifMatch version; nothing was written`,
    indexes.map((i) => ({ path: `/${i}/ifMatch`, message: 'does not match the current ETag' })),
  );
}
