/** What the page's main script hands the map chunks (web/map/map-view.ts, web/map/site-plan.ts): types only. */

export type { GroupMapData, GroupPoint, MapData } from '../../src/modules/shared/map-look.ts';

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
