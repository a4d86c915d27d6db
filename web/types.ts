/**
 * The public bundle as the page reads it (docs/public-api.md), typed by the server's own schemas: `import type`
 * only, so nothing of the server enters the page's bundle. (Type-checking them follows the server's imports; the
 * server's cookie plugin augments Fastify's types, hence `"types": ["@fastify/cookie"]` in web/tsconfig.json.)
 */
import type { Static } from '@sinclair/typebox';
import type { floorDataFields } from '../src/modules/floors/floors.schemas.ts';
import type { UnitSchema } from '../src/modules/units/units.schemas.ts';
import type { BundleSchema } from '../src/public/public.schemas.ts';

export type Dict = Record<string, unknown>;

/** A unit as the bundle gives it. */
export type Unit = Static<typeof UnitSchema>;

type BundleShape = Static<typeof BundleSchema>;
type FloorData = { [K in keyof typeof floorDataFields]?: Static<(typeof floorDataFields)[K]> };

/** The room of a sold unit of a project that hides sold units: its floor gives the shape only; the id is the page's own. */
export interface SoldUnit {
  _id: string;
  name: '';
  path: string;
  /** Its place in the floor's order (the bundle's `soldPositions`), when the bundle says. */
  position?: number | undefined;
}

/** What the plan and the building draw: a unit, or the room of a hidden sold one (`stub`, drawn as sold). */
export type Room =
  | (Unit & { stub?: undefined })
  | (SoldUnit & { availability: 'sold'; floor: string; stub: true } & { [K in Exclude<keyof Unit, keyof SoldUnit | 'availability' | 'floor'>]?: undefined });

/** A floor of the bundle: its public data fields (and any other the project keeps), its units, its hidden sold units. */
export type Floor = Omit<BundleShape['floors'][number], 'units'> & FloorData & Dict & { units: Unit[]; soldShapes?: string[]; soldPositions?: number[] };

/** The project's public fields: its settings by name (the schema lets any through). */
export type Project = BundleShape['project'] & Dict;

export interface Bundle {
  project: Project;
  floors: Floor[];
  unassignedUnits: Unit[];
}

export interface Problem {
  title?: string;
  detail?: string;
  code?: string;
  errors?: { path: string; message: string }[];
}
