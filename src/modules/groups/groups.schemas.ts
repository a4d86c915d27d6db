import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { describedRecord } from '../shared/described.ts';
import { ListOptions, UpdatedSince } from '../shared/list.ts';
import { HostName, Namespace, optional, Str, strings } from '../shared/fields.ts';

/** The group's display switches: they govern its page over each project's own (docs/presentation.md). */
export const GROUP_SWITCHES = [
  'showAvailableFirst',
  'showAllUnits',
  'showPrices',
  'pricesStartingAt',
  'showTaxes',
  'priceBeforeTax',
  'showAvailability',
  'hideSold',
  'deliveryDates',
  'hideArea',
  'showBranding',
  'showPriceFilter',
  'showAreaFilter',
  'showFloorOverview',
] as const;

export const groupDataFields = {
  ...strings([
    'websiteURL',
    'groupLang',
    'linkBehavior',
    'accentColor',
    'groupImageUrl',
    'groupSVGUrl',
    'svgGroupId',
    'address',
    'perimeter',
    'markerImageUrl',
    'targetMarker',
    'mapStyle',
    'mapPointColor',
    'initialView',
    'unitImageOnGrid',
    'internalURL',
    'theme',
    'colorBase',
    'colorAccent',
    'colorHover',
    'colorButton',
    'colorButtonText',
    'colorText',
  ] as const),
  lon: Type.Number(),
  lat: Type.Number(),
  zoomLevel: Type.Number(),
  alternativeCovers: Type.Array(Str, { maxItems: 1000 }),
  invites: Type.Array(Type.Ref('Invite'), { maxItems: 1000 }),
  ...Object.fromEntries(GROUP_SWITCHES.map((k) => [k, Type.Boolean()])),
};

/** Payload-shape values of the interface's Group, applied on create. */
export const GROUP_DEFAULTS: Record<string, unknown> = {
  groupLang: 'en',
  linkBehavior: 'Service',
  mapStyle: 'Light',
  initialView: 'List',
  unitImageOnGrid: 'Unit Plan',
  ...Object.fromEntries(GROUP_SWITCHES.map((k) => [k, !['showAvailableFirst', 'pricesStartingAt', 'hideArea', 'showFloorOverview'].includes(k)])),
};

const columnFields = {
  name: Type.String({ minLength: 1, maxLength: 300 }),
  namespace: Namespace('groups'),
  hostName: HostName('groups'),
  administrators: Type.Array(ObjectId, { maxItems: 500 }),
  editors: Type.Array(ObjectId, { maxItems: 500 }),
  projects: Type.Array(ObjectId, { maxItems: 10_000, description: 'Projects of the group, in order; only projects the caller can see' }),
};

/** What a Group's fields mean where the common words (shared/described.ts) say too little: the interface's Group table. */
const GROUP_TEXT = {
  name: 'Name of the group',
  namespace: 'Namespace: lower-case slug, unique among groups',
  projects: "Associated projects: the group's projects, in order (only projects the caller can see)",
  groupLang: 'Language (default `en`)',
  linkBehavior: 'Default link behaviour (default `Service`)',
  groupImageUrl: 'Image URL',
  groupSVGUrl: 'SVG URL',
  perimeter:
    'Perimeter of the group area, drawn on the group page map: "lat,lon lat,lon …" pairs (at least three) or a GeoJSON Polygon, MultiPolygon or Feature holding one; anything else → 400',
  internalURL: 'Internal URL (for management)',
  invites: 'Invited users: pending invitations to the group',
};

export const GroupSchema = Type.Object(
  describedRecord(
    {
      _id: ObjectId,
      __v: Version,
      user: ObjectId,
      ...columnFields,
      namespace: Type.Optional(columnFields.namespace),
      hostName: Type.Optional(columnFields.hostName),
      ...optional(groupDataFields),
      createdAt: DateTime,
      updatedAt: DateTime,
    },
    GROUP_TEXT,
  ),
  { $id: 'Group', additionalProperties: false },
);

export const GroupPatchSchema = Type.Object(
  {
    ...optional(columnFields),
    ...optional(groupDataFields),
    user: Type.Optional(ObjectId),
    _id: Type.Optional(Type.String()),
    __v: Type.Optional(Type.Unknown()),
    createdAt: Type.Optional(Type.String()),
    updatedAt: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const GroupCreateQuery = Type.Object(
  { name: Type.Optional(columnFields.name), namespace: Type.Optional(columnFields.namespace), hostName: Type.Optional(columnFields.hostName) },
  { additionalProperties: false },
);

/** The named schemas ($id) of this module: src/app-modules.ts adds them at the root, where every scope and /openapi.json see them. */
export const GROUP_SCHEMAS = [GroupSchema];

/** POST /groups: any Group field a client sets (the server keeps the owner, id, version and times). */
export const GroupCreateBody = Type.Omit(GroupPatchSchema, ['user', '_id', '__v', 'createdAt', 'updatedAt']);

/** GET /groups: the filters and the page. */
export const GroupListQuery = Type.Object(
  {
    filters: Type.Optional(Type.Object({ updatedSince: Type.Optional(UpdatedSince) }, { additionalProperties: false })),
    options: Type.Optional(ListOptions),
  },
  { additionalProperties: false },
);

/** Groups, as GET /groups lists them. */
export const GroupArray = Type.Array(Type.Ref('Group'));

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Group = Static<typeof GroupSchema>;
export type GroupCreateQuery = Static<typeof GroupCreateQuery>;
