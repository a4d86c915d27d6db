import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { ListOptions, UpdatedSince } from '../shared/list.ts';
import { describedRecord } from '../shared/described.ts';
import { CustomFinishesType, optional, Str, strings } from '../shared/fields.ts';

export const AVAILABILITY = ['available', 'on_hold', 'reserved', 'sold', 'leased', 'unavailable'] as const;
export type Availability = (typeof AVAILABILITY)[number];

const AVAILABILITY_TEXT = `One of ${AVAILABILITY.join(', ')}. Any case is accepted (\`SOLD\`, \`Sold\`) and stored in lower case.`;
/** Input: the lower-case names; a request's value is lower-cased before validation (`availabilityInAnyCase`). */
const AvailabilityIn = Type.Unsafe<Availability>({ type: 'string', enum: [...AVAILABILITY], description: AVAILABILITY_TEXT });
const AvailabilityOut = Type.Unsafe<Availability>({
  type: 'string',
  enum: [...AVAILABILITY],
  description: `Availability status: one of ${AVAILABILITY.join(', ')}`,
});

/** ASCII letters only, as the case-insensitive match always was: no other character turns into an allowed one. */
const lowerAscii = (value: unknown): unknown =>
  typeof value === 'string' ? value.replace(/[A-Z]+/g, (c) => c.toLowerCase()) : Array.isArray(value) ? value.map(lowerAscii) : value;

function lowerField(target: unknown, key: string) {
  if (target !== null && typeof target === 'object' && !Array.isArray(target) && Object.hasOwn(target, key)) {
    const record = target as Record<string, unknown>;
    record[key] = lowerAscii(record[key]);
  }
}

/**
 * preValidation of the routes that take `availability` (body, bulk body items, `?availability=`, `filters[availability]`):
 * any case is accepted and stored in lower case, so the schemas can declare the lower-case enum.
 * Runs after `objectQuery`, which makes `filters` an object.
 */
export async function availabilityInAnyCase(request: FastifyRequest) {
  const body: unknown = request.body;
  for (const item of Array.isArray(body) ? body : [body]) lowerField(item, 'availability');
  lowerField(request.query, 'availability');
  lowerField((request.query as { filters?: unknown } | undefined)?.filters, 'availability');
}

const Tabs = Type.Object(
  {
    tabs: Type.Optional(
      Type.Array(Type.Object({ label: Type.Optional(Str), cover: Type.Optional(Str), thumbnail: Type.Optional(Str) }, { additionalProperties: false })),
    ),
  },
  { additionalProperties: false },
);

export const unitDataFields = {
  bedrooms: Str,
  squareFeet: Type.Number(),
  isFeatured: Type.Boolean(),
  price: Type.Number(),
  unitPriceTBD: Type.Boolean(),
  ...strings([
    'type',
    'specificType',
    'path',
    'lotPath',
    'unitImageUrl',
    'layoutUrl',
    'downloadableAsset',
    'brochurePDF',
    'embedCode',
    'customButtonUrl',
    'customButtonSnippet',
    'orientation',
    'inclusions',
    'deliveryDate',
    'description',
    'perimeter',
    'svgLotId',
  ] as const),
  layoutGallery: Type.Array(Str, { maxItems: 1000 }),
  additionalInfo: Type.Array(Type.Object({ label: Type.Optional(Str), value: Type.Optional(Str) }, { additionalProperties: false }), { maxItems: 500 }),
  payableAmount: Type.Number(),
  images: Type.Array(Str, { maxItems: 1000 }),
  clonedImages: Type.Array(Str, { maxItems: 1000 }),
  customFinishes: Type.Object(
    { type: Type.Optional(CustomFinishesType(Tabs)), default: Type.Optional(Type.Object({}, { additionalProperties: true })) },
    { additionalProperties: false },
  ),
  finishes: Type.Array(Str, { maxItems: 1000 }),
  clonedFinishes: Type.Array(Str, { maxItems: 1000 }),
  parking: Type.Number(),
  bathrooms: Type.Number(),
  unitmodels: Type.Array(Str, { maxItems: 1000 }),
  lon: Type.Number(),
  lat: Type.Number(),
};

export const UNIT_DEFAULTS = { specificType: 'unit', customButtonUrl: '', customButtonSnippet: '' };

const Name = Type.String({ minLength: 1, maxLength: 300 });
const Position = Type.Number({ description: 'Position or order within the floor' });

/** What a Unit's fields mean where the common words (shared/described.ts) say too little: the interface's Unit table. */
const UNIT_TEXT = {
  floor: 'Associated floor: the floor the unit is on',
  name: 'Name of the unit',
  onHoldExpiresAt: 'Expiry of the hold status: when the current hold ends (only while on_hold)',
  bedrooms: 'Number of bedrooms (text, e.g. `2` or `Studio`)',
  squareFeet: 'Area',
  isFeatured: 'Featured flag',
  price: 'Price (left out of public answers when the project hides prices)',
  unitPriceTBD: 'Price is to be determined',
  type: 'Type of the unit',
  specificType: 'Specific type, for example amenities or parkings; the value `unit` applies when not specified',
  path: 'Detail path (drawing)',
  lotPath: "Lot path: an SVG path in the pixels of the project's site plan picture (layoutImageUrl)",
  unitImageUrl: 'Image URL',
  layoutUrl: 'Layout URL',
  downloadableAsset: 'URL of a downloadable asset',
  brochurePDF: 'URL of the brochure PDF',
  customButtonUrl: 'Custom button URL and snippet: the URL (empty unless set)',
  customButtonSnippet: 'Custom button URL and snippet: the snippet (empty unless set)',
  orientation: "Orientation (one of the unit's texts)",
  inclusions: "Inclusions (one of the unit's texts)",
  deliveryDate: "Delivery date (one of the unit's texts: free text, not a date-time)",
  description: "Description (one of the unit's texts)",
  svgLotId: "SVG id of the lot: an element's id in the project's projectSVGUrl",
  layoutGallery: 'Layout images',
  additionalInfo: 'Extra information as label/value pairs',
  payableAmount: 'Payable amount (a deposit; shown even when prices are hidden)',
  clonedImages: 'Cloned image URLs',
  customFinishes:
    'Finish options per room and the default choice: `type` {`name` string, `options` {`kitchen`, `bathroom`, `general`, each {`tabs` array of {`label`, `cover`, `thumbnail` strings}}}} and `default` object',
  parking: 'Counts: the number of parking spaces',
  bathrooms: 'Counts: the number of bathrooms',
  unitmodels: 'References to unit models',
  lon: 'Longitude (location)',
  lat: 'Latitude (location)',
};

export const UnitSchema = Type.Object(
  describedRecord(
    {
      _id: ObjectId,
      __v: Version,
      project: ObjectId,
      floor: Type.Optional(ObjectId),
      name: Name,
      position: Position,
      availability: AvailabilityOut,
      onHoldExpiresAt: Type.Optional(DateTime),
      ...optional(unitDataFields),
      allocated: Type.Optional(
        Type.Boolean({ readOnly: true, description: "Only in a bundle read with X-Allocation-Token: the unit belongs to that realtor's allocation" }),
      ),
      createdAt: DateTime,
      updatedAt: DateTime,
    },
    UNIT_TEXT,
  ),
  { $id: 'Unit', additionalProperties: false },
);

export const UnitPatchSchema = Type.Object(
  {
    name: Type.Optional(Name),
    position: Type.Optional(Position),
    floor: Type.Optional(Type.Union([ObjectId, Type.Null()])),
    availability: Type.Optional(AvailabilityIn),
    onHoldExpiresAt: Type.Optional(Type.Union([DateTime, Type.Null()])),
    ...optional(unitDataFields),
    project: Type.Optional(Type.String()),
    _id: Type.Optional(Type.String()),
    __v: Type.Optional(Type.Unknown()),
    createdAt: Type.Optional(Type.String()),
    updatedAt: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export type UnitPatch = Static<typeof UnitPatchSchema>;

/** A create's JSON body: any Unit field but those the server keeps. */
export const UnitCreateBody = Type.Omit(UnitPatchSchema, ['_id', '__v', 'createdAt', 'updatedAt']);

export const UnitCreateQuery = Type.Object(
  { name: Type.Optional(Name), position: Type.Optional(Position), project: Type.Optional(ObjectId), floor: Type.Optional(ObjectId) },
  { additionalProperties: false },
);

/** A create's input: the body's fields and the query's (the query's are some of the body's, and win). */
export type UnitCreate = Static<typeof UnitCreateBody>;

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
export type BulkUnitItem = Static<typeof BulkItem>;

const Bound = (what: string) => Type.Optional(Type.Number({ description: what }));

export const UnitFilters = Type.Object(
  {
    updatedSince: Type.Optional(UpdatedSince),
    availability: Type.Optional(
      Type.String({
        pattern: `^(${AVAILABILITY.join('|')})(,(${AVAILABILITY.join('|')}))*$`,
        description: `Comma-separated availabilities, each one of ${AVAILABILITY.join(', ')} (any case is accepted)`,
      }),
    ),
    priceMin: Bound('Only units priced at least this'),
    priceMax: Bound('Only units priced at most this'),
    areaMin: Bound('Only units with squareFeet at least this'),
    areaMax: Bound('Only units with squareFeet at most this'),
    bedroomsMin: Bound('Only units with at least this many bedrooms'),
    bedroomsMax: Bound('Only units with at most this many bedrooms'),
  },
  { additionalProperties: false },
);

export const UnitListQuery = Type.Object(
  {
    project: ObjectId,
    floor: Type.Optional(ObjectId),
    availability: Type.Optional(AvailabilityIn),
    filters: Type.Optional(UnitFilters),
    options: Type.Optional(ListOptions),
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: the same list as RFC 4180 CSV (as `Accept: text/csv`)' }),
    ),
  },
  { additionalProperties: false },
);

/** PATCH /units/by-type: pictures given to every unit of a type. */
export const UnitsOfTypePatch = Type.Object(
  {
    project: { ...ObjectId, description: 'The project whose units change' },
    type: Type.String({ minLength: 1, maxLength: 300, description: 'Every unit whose `type` is exactly this changes' }),
    layoutUrl: Type.Optional(Str),
    layoutGallery: Type.Optional(Type.Array(Str, { maxItems: 1000 })),
    images: Type.Optional(Type.Array(Str, { maxItems: 1000 })),
    unitImageUrl: Type.Optional(Str),
  },
  {
    additionalProperties: false,
    minProperties: 3,
    examples: [{ project: '65f0c0ffee00000000000001', type: '2B-A', layoutUrl: '/media/2b-a-layout.png', images: ['/media/2b-a-living.jpg'] }],
  },
);
export type UnitsOfTypePatch = Static<typeof UnitsOfTypePatch>;

/** The named schemas ($id) of this module: src/app-modules.ts adds them at the root, where every scope and /openapi.json see them. */
export const UNIT_SCHEMAS = [UnitSchema];
export type UnitList = Static<typeof UnitListQuery>;

/** Units, as GET /units and a bulk PATCH answer them. */
export const UnitArray = Type.Array(Type.Ref('Unit'));

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Unit = Static<typeof UnitSchema>;
export type UnitCreateQuery = Static<typeof UnitCreateQuery>;
export type BulkUnitPatch = Static<typeof BulkUnitPatch>;
