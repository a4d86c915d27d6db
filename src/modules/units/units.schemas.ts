import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { ListOptions, UpdatedSince } from '../shared/list.ts';
import { CustomFinishesType, optional, Str, strings } from '../shared/fields.ts';

export const AVAILABILITY = ['available', 'on_hold', 'reserved', 'sold', 'leased', 'unavailable'] as const;
export type Availability = (typeof AVAILABILITY)[number];

/** Matches any capitalisation of the allowed values (input is case-insensitive, stored lower case). */
const anyCase = (word: string) =>
  Array.from(word, (c) => c)
    .map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c))
    .join('');
const AvailabilityIn = Type.String({
  pattern: `^(${AVAILABILITY.map(anyCase).join('|')})$`,
  description: `One of ${AVAILABILITY.join(', ')} (any case)`,
});
const AvailabilityOut = Type.Union(AVAILABILITY.map((a) => Type.Literal(a)));

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

export const UnitSchema = Type.Object(
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
    createdAt: DateTime,
    updatedAt: DateTime,
  },
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
        pattern: `^(${AVAILABILITY.map(anyCase).join('|')})(,(${AVAILABILITY.map(anyCase).join('|')}))*$`,
        description: `Comma-separated availabilities, any of ${AVAILABILITY.join(', ')} (any case)`,
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

export type UnitList = Static<typeof UnitListQuery>;
