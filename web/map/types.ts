/** What the page's main script hands the map chunks (web/map/map-view.ts, web/map/site-plan.ts): types only. */
import type { MarkerLook } from './marker.ts';

/** The map section's `data-map`, written by the server (src/presentation/map-section.ts, `MapData`). */
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

/** The flat site plan's `data-plan`: the layout picture and the SVG whose elements `svgLotId` names. */
export interface PlanData {
  image: string;
  svg?: string;
}

/** A unit drawn as a lot: its colour already chosen as the floor plans choose it (status, or one neutral colour). */
export interface Lot {
  id: string;
  label: string;
  colour: string;
  lotPath?: string;
  svgLotId?: string;
  perimeter?: string;
  /** The unit's own place (`lon`, `lat`): drawn as a point on the map when it has no outline there. */
  point?: [number, number];
}

/** A drawn map or site plan, kept current with the units. */
export interface PlaceHandle {
  update(lots: Lot[]): void;
}

/** A project on the group page's map. */
export interface GroupPoint {
  name: string;
  lat: number;
  lon: number;
  href: string;
  newTab: boolean;
}

/** The group page's map section's `data-map` (src/presentation/map-section.ts, `groupMap`). */
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
}
