import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { ListOptions, UpdatedSince } from '../shared/list.ts';
import { describedRecord } from '../shared/described.ts';
import { optional, Str } from '../shared/fields.ts';

/**
 * SVG path data (`M 10 20 L 30 20 … Z`): a moveto first, then only path commands, numbers, spaces and commas; or ''
 * (no shape). Drawn over the project's `projectImageUrl` in that picture's own pixels (docs/building.md).
 */
const SvgPath = Type.String({
  maxLength: 100_000,
  pattern: '^(\\s*[Mm][\\sMmLlHhVvCcSsQqTtAaZz0-9.,eE+-]*)?$',
  description: "SVG path data in the pixels of the project's `projectImageUrl` (a moveto first, then path commands and numbers), or ''",
});

export const floorDataFields = {
  floorplanUrl: Str,
  path: SvgPath,
  alternativePaths: Type.Array(SvgPath, { maxItems: 1000 }),
};

const Name = Type.String({ minLength: 1, maxLength: 300 });
const Position = Type.Number({ description: 'Position or order; floors are listed by it' });

/** What a Floor's fields mean where the common words (shared/described.ts) say too little. */
const FLOOR_TEXT = {
  project: 'Associated project: the project the floor belongs to',
  name: 'Name of the floor',
  floorplanUrl: 'Floorplan image URL',
  path: "Floor drawing path: the floor's shape on the project's picture (`projectImageUrl`), SVG path data in that picture's pixels",
  alternativePaths: 'Alternative paths: more shapes of the same floor on the picture (a floor seen in two places), each SVG path data like `path`',
};

export const FloorSchema = Type.Object(
  describedRecord(
    {
      _id: ObjectId,
      __v: Version,
      project: ObjectId,
      units: Type.Array(ObjectId, { description: "Associated units: the floor's units in position order (kept by the server; a PATCH may reorder them)" }),
      name: Name,
      position: Position,
      ...optional(floorDataFields),
      createdAt: DateTime,
      updatedAt: DateTime,
    },
    FLOOR_TEXT,
  ),
  { $id: 'Floor', additionalProperties: false },
);

export const FloorPatchSchema = Type.Object(
  {
    name: Type.Optional(Name),
    position: Type.Optional(Position),
    ...optional(floorDataFields),
    units: Type.Optional(Type.Array(ObjectId, { maxItems: 10_000 })),
    project: Type.Optional(ObjectId),
    _id: Type.Optional(Type.String()),
    __v: Type.Optional(Type.Unknown()),
    createdAt: Type.Optional(Type.String()),
    updatedAt: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export type FloorDuplicate = Static<typeof FloorDuplicateBody>;
export type FloorPatch = Static<typeof FloorPatchSchema>;

/** A create's JSON body: any Floor field but those the server keeps. */
export const FloorCreateBody = Type.Omit(FloorPatchSchema, ['units', '_id', '__v', 'createdAt', 'updatedAt']);

export const FloorCreateQuery = Type.Object(
  { project: Type.Optional(ObjectId), name: Type.Optional(Name), position: Type.Optional(Position) },
  { additionalProperties: false },
);

/** A create's input: the body's fields and the query's (the query's are some of the body's, and win). */
export type FloorCreate = Static<typeof FloorCreateBody>;

export const FloorListQuery = Type.Object(
  {
    project: ObjectId,
    filters: Type.Optional(Type.Object({ updatedSince: Type.Optional(UpdatedSince) }, { additionalProperties: false })),
    options: Type.Optional(ListOptions),
  },
  { additionalProperties: false },
);

/** The named schemas ($id) of this module: src/app-modules.ts adds them at the root, where every scope and /openapi.json see them. */
/** POST /floors/{id}/duplicate. */
export const FloorDuplicateBody = Type.Object(
  {
    name: Type.Optional({ ...Name, description: 'The new floor\'s name (default: the floor\'s name and " (copy)")' }),
    position: Type.Optional({ ...Position, description: 'Where the new floor goes (default: after the last floor)' }),
    unitNames: Type.Optional(
      Type.Record(ObjectId, Name, {
        maxProperties: 10_000,
        description: 'New names of the copies, by the id of the unit copied; a unit not named here is copied as its name and " (copy)"',
      }),
    ),
    renumber: Type.Optional(
      Type.Boolean({
        description:
          'true: name the copy and its units by number instead of " (copy)": the floor\'s last number goes to the next one no floor of the project has ' +
          '("Level 1" → "Level 2"), and each unit whose number starts with the floor\'s number has it replaced (101 → 201, A-1204 → A-1304). ' +
          '`name` and `unitNames` still win; a name without such a number keeps " (copy)".',
      }),
    ),
  },
  { additionalProperties: false },
);

/** POST /floors/{id}/copy-outlines. */
export const CopyOutlinesBody = Type.Object(
  {
    from: { ...ObjectId, description: "The floor of the same project whose units' outlines are copied" },
    overwrite: Type.Optional(Type.Boolean({ description: 'true: replace outlines drawn already (default: only units without one get one)' })),
  },
  { additionalProperties: false },
);
export type CopyOutlines = Static<typeof CopyOutlinesBody>;

export const CopyOutlinesResult = Type.Object(
  {
    units: Type.Array(Type.Ref('Unit'), { description: 'The units of this floor that got an outline, updated' }),
    unmatched: Type.Array(Type.String(), { description: "Names of this floor's units left without an outline: no counterpart, or the counterpart has none" }),
  },
  { additionalProperties: false },
);

const Box = Type.Object(
  { x: Type.Number(), y: Type.Number(), width: Type.Number(), height: Type.Number() },
  { additionalProperties: false, description: "The area's bounding box in the drawing space" },
);

export const OutlineSuggestions = Type.Object(
  {
    suggestions: Type.Array(
      Type.Object(
        {
          path: Type.String({
            description: "The outline, `M x y L x y … Z` in the drawing space (600 × 300, the plan drawn whole and centred), as a unit's `path`",
          }),
          box: Box,
          fill: Type.Number({ description: 'How much of its box the area fills, 0–1 (1: a rectangle)' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Enclosed light areas of the plan picture, in reading order (rows top to bottom, each left to right)' },
    ),
  },
  { additionalProperties: false },
);

export const FLOOR_SCHEMAS = [FloorSchema];
export type FloorList = Static<typeof FloorListQuery>;

/** Floors, as GET /floors lists them. */
export const FloorArray = Type.Array(Type.Ref('Floor'));

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Floor = Static<typeof FloorSchema>;
export type FloorCreateQuery = Static<typeof FloorCreateQuery>;
