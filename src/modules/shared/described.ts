import type { TProperties, TSchema } from '@sinclair/typebox';
import { ObjectId } from '../../http/schemas.ts';
import { SERVER_KEPT } from './records.ts';

/**
 * What a field means, for the fields that mean the same in every record (the interface's record tables agree on them).
 * A record's own text for a field (see `describedRecord`) comes first.
 */
const COMMON: Record<string, string> = {
  _id: 'Unique identifier (24 lower-case hex characters), set by the server',
  createdAt: 'When the record was created (ISO 8601, set by the server)',
  updatedAt: 'When the record last changed (ISO 8601, set by the server)',
  user: 'The owning user',
  name: 'Name',
  administrators: 'User ids of administrators',
  editors: 'User ids of editors',
  invites: 'Pending invitations',
  address: 'Physical address',
  lon: 'Longitude',
  lat: 'Latitude',
  perimeter:
    'Perimeter of the area, drawn on the map: "lat,lon lat,lon …" pairs (at least three) or a GeoJSON Polygon, MultiPolygon or Feature holding one; anything else → 400',
  path: 'Drawing path',
  alternativePaths: 'Alternative paths (drawing)',
  images: 'Image URLs',
  finishes: 'Finishes',
  websiteURL: 'Website URL',
  internalURL: 'Internal management URL',
  accentColor: 'Accent colour',
  zoomLevel: 'Default map zoom level',
  markerImageUrl: 'Map marker image URL',
  targetMarker: 'Target marker identifier',
  mapStyle: 'Map style (default `Light`)',
  mapPointColor: 'Colour of map points',
  initialView: 'Initial view (default `List`)',
  unitImageOnGrid: 'Image type on the grid (default `Unit Plan`)',
  alternativeCovers: 'Alternative cover images',
  theme: 'Theme',
  svgGroupId: 'SVG group identifier',
  project: 'The project this record belongs to',
  position: 'Position or order',
  description: 'Description',
};

/** A camelCase field name as words (`mapLayoutWidth` → `map layout width`). */
export const keyWords = (key: string) =>
  key
    .replace(/^_/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/URL|Url/g, 'URL')
    .toLowerCase();

const capital = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** The meaning of a field no record says more about: the common text, else what its group of fields is. */
function commonText(key: string, schema: TSchema): string {
  const known = COMMON[key];
  if (known) return known;
  if (key.startsWith('color')) return `Colours: ${keyWords(key.slice(5))}`;
  if (key.startsWith('style')) return `Style: ${keyWords(key.slice(5))}`;
  if (schema.type === 'boolean') return `One of the display switches: ${keyWords(key)} (absent reads as false)`;
  return capital(keyWords(key));
}

/**
 * `fields` as the document describes them: each field with the record's own text for it (`text`), else the
 * description its schema already has, else the common text. New schema objects: the create and PATCH bodies
 * that share the field schemas keep their own words. Descriptions and readOnly are annotations; Ajv and the
 * serializer do nothing with them.
 */
export function described<T extends TProperties>(fields: T, text: Readonly<Partial<Record<keyof T, string>>>): T {
  const words: Partial<Record<string, string>> = text;
  // Words for a field the record does not have (a misspelt name) would say nothing: refused when the module loads.
  const stray = Object.keys(words).filter((key) => !Object.hasOwn(fields, key));
  if (stray.length) throw new Error(`Descriptions of fields the schema does not have: ${stray.join(', ')}`);
  return Object.fromEntries(
    Object.entries(fields).map(([key, schema]) => {
      const own = words[key];
      // A reference names a schema described in its own place.
      if (own === undefined && schema.$ref !== undefined) return [key, schema];
      // The id pattern's generic text says what an id looks like, not what this one names.
      const given = typeof schema.description === 'string' && schema.description !== ObjectId.description ? schema.description : undefined;
      const description = own ?? given ?? commonText(key, schema);
      return [key, { ...schema, description }];
    }),
  ) as T;
}

/** A record's fields (`described`), the server-kept ones marked readOnly: sent back in a body, they are ignored. */
export function describedRecord<T extends TProperties>(fields: T, text: Readonly<Partial<Record<keyof T, string>>>): T {
  const out: TProperties = described(fields, text);
  for (const key of SERVER_KEPT) {
    const schema = out[key];
    if (schema) out[key] = { ...schema, readOnly: true };
  }
  return out as T;
}
