import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { problems } from '../../http/schemas.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { availabilityInAnyCase, BulkUnitPatch, MAX_BULK_UNITS, UnitArray, UnitsOfTypePatch } from './units.schemas.ts';
import { UnitService } from './units.service.ts';

export const unitBulkRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const units = new UnitService(ctx);

  app.patch(
    '/units',
    {
      preValidation: availabilityInAnyCase,
      schema: {
        operationId: 'updateUnits',
        tags: ['units'],
        summary: 'Update many units at once (all or nothing)',
        description:
          `A JSON array of 1–${MAX_BULK_UNITS} items \`{ "_id", ...Unit fields, "ifMatch"? }\`, units of any projects the caller may edit. ` +
          'Each item follows the rules of PATCH /units/{id}. All items are checked before anything is written: a bad field → 400 with `errors[].path` ' +
          "prefixed by the item index (`/3/price`); an id the caller cannot see → 400 at `/<i>/_id`; an `ifMatch` that is not the unit's current ETag → 412. " +
          'One transaction writes every change and appends one `unit.updated` event per changed unit (actor: the caller); the answer is the updated units in request order.',
        body: BulkUnitPatch,
        response: { 200: UnitArray, ...problems(400, 401, 412, 413, 415) },
      },
    },
    (request) => units.patchMany(principalOf(request), request.body, ctx.clock.now()),
  );

  app.patch(
    '/units/by-type',
    {
      schema: {
        operationId: 'updateUnitsOfType',
        tags: ['units'],
        summary: 'Give every unit of a type the same layout and pictures',
        description:
          'Sets the fields sent (`layoutUrl`, `layoutGallery`, `images`, `unitImageUrl`) on every unit of `project` whose `type` is `type`, replacing what they had. ' +
          `Written as PATCH /units would write them (all or nothing, one \`unit.updated\` per unit changed, at most ${MAX_BULK_UNITS} units); the answer is the ` +
          'units of the type, changed or already so, in floor order. A type no unit has → an empty list.',
        body: UnitsOfTypePatch,
        response: { 200: UnitArray, ...problems(400, 401, 404, 413, 415) },
      },
    },
    (request) => units.patchType(principalOf(request), request.body, ctx.clock.now()),
  );
};
