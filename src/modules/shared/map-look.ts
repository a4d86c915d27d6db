/**
 * How a project's (or a group's) map fields read, in one place for the page the server writes
 * (src/presentation/map-section.ts) and the console's preview of them (web/admin/screens/place.tsx). docs/map.md.
 */
export const MAP_STYLES = ['Light', 'Dark', 'Streets', 'Satellite'] as const;
/** `targetMarker`: the marker's shape. */
export const TARGET_MARKERS = ['pin', 'dot', 'none'] as const;
export type TargetMarker = (typeof TARGET_MARKERS)[number];
/** `lotsLayout`: what the lots are drawn over: the site plan placed on the map, or the site plan flat in its own section. */
export const LOTS_LAYOUTS = ['map', 'plan'] as const;

/** The zoom when `zoomLevel` is unset or 0 (the interface's default, the whole world): a neighbourhood. */
export const DEFAULT_ZOOM = 15;
export const DEFAULT_POINT_COLOR = '#c62828';
const COLOR = /^#[0-9a-fA-F]{3,8}$/;

/** `zoomLevel` as the map reads it: 1–22 (fractions allowed), else `fallback`. */
export const mapZoom = (v: unknown, fallback = DEFAULT_ZOOM) => (typeof v === 'number' && v > 0 && v <= 22 ? v : fallback);
/** `mapPointColor` as the map reads it: a `#rgb` … `#rrggbbaa` colour, else the default red. */
export const pointColor = (v: unknown) => (typeof v === 'string' && COLOR.test(v) ? v : DEFAULT_POINT_COLOR);
/** `targetMarker` on a project: one of the shapes, else a pin. */
export const markerShape = (v: unknown): TargetMarker => TARGET_MARKERS.find((m) => m === v) ?? 'pin';
/** `mapLayoutWidth`: a positive number of metres (at most 50 km), else 200. */
export const layoutWidth = (v: unknown) => (typeof v === 'number' && v > 0 ? Math.min(v, 50_000) : 200);
/** `mapLayoutRotation`: degrees clockwise, a whole turn taken off. */
export const layoutRotation = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v % 360 : 0);
/**
 * Whether the lots (`lotPath`, `svgLotId`) are drawn over the site plan flat, in its own section: always without a
 * location, and with one when `lotsLayout` is `plan`; otherwise over the site plan placed on the map.
 */
export const lotsOnFlatPlan = (lotsLayout: unknown, located: boolean) => !located || lotsLayout === 'plan';

/** A marker's look: a picture, or a shape in a colour. */
export interface MarkerLook {
  image?: string;
  color: string;
  shape: TargetMarker;
}

/** A project's map section's `data-map`: what the server writes and the page's map script reads. */
export interface MapData {
  lat: number;
  lon: number;
  zoom: number;
  style: string;
  worker: string;
  label: string;
  marker: MarkerLook;
  perimeter?: string;
  layout?: { image: string; width: number; rotation: number };
  svg?: string;
}

/** A project on the group page's map. */
export interface GroupPoint {
  name: string;
  lat: number;
  lon: number;
  href: string;
  newTab: boolean;
}

/** The group page's map section's `data-map`. */
export interface GroupMapData {
  style: string;
  worker: string;
  label: string;
  color: string;
  /** The group's `markerImageUrl`: every project's marker is this picture. */
  image?: string;
  center?: [number, number];
  /** The group's own marker at `center` (its `targetMarker`), named by its address. */
  own?: { shape: 'pin' | 'dot'; name: string };
  zoom: number;
  perimeter?: string;
  points: GroupPoint[];
}
