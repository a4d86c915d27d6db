/**
 * A `perimeter` (of a project, a unit's lot or a group's area): the outline drawn on the map. Two forms are accepted,
 * and '' means none (docs/map.md):
 *
 * - `lat,lon` pairs separated by spaces (or `;`), at least three: `"45.5017,-73.5673 45.5020,-73.5660 45.5010,-73.5655"`;
 * - GeoJSON: a `Polygon` or `MultiPolygon` geometry, or a `Feature` holding one (positions `[lon, lat]`, as GeoJSON
 *   has them).
 *
 * The page and the service read it with this one parser, so what a save accepts is what the page draws. Pure: no
 * imports, shipped in the page's map chunk too.
 */

/** `[lon, lat]`, as GeoJSON orders them. */
export type Position = [number, number];
/** Polygons, each a list of rings (the first the outline, any further ones holes), each ring closed. */
export type Polygons = Position[][][];

const MAX_POSITIONS = 5000;

const inRange = ([lon, lat]: Position) => Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lon) <= 180 && Math.abs(lat) <= 90;

/** A ring closed (first position repeated at the end), or a reason it cannot be one. */
function ring(value: unknown): Position[] | string {
  if (!Array.isArray(value)) return 'a ring must be an array of [lon, lat] positions';
  const out: Position[] = [];
  for (const p of value as unknown[]) {
    if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'number' || typeof p[1] !== 'number') return 'each position must be [lon, lat] numbers';
    const pos: Position = [p[0], p[1]];
    if (!inRange(pos)) return 'longitudes must be within ±180 and latitudes within ±90';
    out.push(pos);
  }
  const first = out[0];
  const last = out.at(-1);
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) out.push([first[0], first[1]]);
  if (out.length < 4) return 'a ring needs at least three distinct positions';
  return out;
}

function polygon(value: unknown): Position[][] | string {
  if (!Array.isArray(value) || !value.length) return 'a Polygon needs its coordinates: an array of rings';
  const rings: Position[][] = [];
  for (const r of value as unknown[]) {
    const made = ring(r);
    if (typeof made === 'string') return made;
    rings.push(made);
  }
  return rings;
}

function geometry(g: unknown): Polygons | string {
  if (typeof g !== 'object' || g === null) return 'GeoJSON must be a Polygon, a MultiPolygon or a Feature holding one';
  const o = g as { type?: unknown; coordinates?: unknown; geometry?: unknown };
  if (o.type === 'Feature') return geometry(o.geometry);
  if (o.type === 'Polygon') {
    const p = polygon(o.coordinates);
    return typeof p === 'string' ? p : [p];
  }
  if (o.type === 'MultiPolygon') {
    if (!Array.isArray(o.coordinates) || !o.coordinates.length) return 'a MultiPolygon needs its coordinates: an array of polygons';
    const out: Polygons = [];
    for (const c of o.coordinates as unknown[]) {
      const p = polygon(c);
      if (typeof p === 'string') return p;
      out.push(p);
    }
    return out;
  }
  return 'GeoJSON must be a Polygon, a MultiPolygon or a Feature holding one';
}

/** The perimeter's polygons; a string says why it cannot be read. '' (or only spaces) is no perimeter: `[]`. */
export function parsePerimeter(text: string): Polygons | string {
  const trimmed = text.trim();
  if (!trimmed) return [];
  let polygons: Polygons | string;
  if (trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      return 'is neither GeoJSON (it does not parse as JSON) nor "lat,lon lat,lon …" pairs';
    }
    polygons = geometry(json);
  } else {
    const pairs = trimmed.split(/[\s;]+/).filter(Boolean);
    const positions: Position[] = [];
    for (const pair of pairs) {
      const m = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(pair);
      if (!m) return `must be GeoJSON or "lat,lon lat,lon …" pairs (at least three); "${pair.slice(0, 40)}" is not a lat,lon pair`;
      positions.push([Number(m[2]), Number(m[1])]);
    }
    const r = ring(positions);
    polygons = typeof r === 'string' ? r : [[r]];
  }
  if (typeof polygons === 'string') return polygons;
  if (polygons.flat(2).length > MAX_POSITIONS) return `may hold at most ${MAX_POSITIONS} positions`;
  return polygons;
}

/** Why a perimeter sent in a body cannot be kept, or undefined when it can (absent, null and '' included). */
export function perimeterProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = parsePerimeter(value);
  return typeof parsed === 'string' ? parsed : undefined;
}
