/** The public bundle as the page reads it (docs/public-api.md). */
export type Dict = Record<string, unknown>;
export interface Unit extends Dict {
  _id: string;
  name: string;
  availability: string;
  floor?: string;
  price?: number;
  squareFeet?: number;
  bedrooms?: string;
  bathrooms?: number;
  parking?: number;
  onHoldExpiresAt?: string;
  path?: string;
  /** A sold unit of a project that hides sold units: name and shape only. */
  stub?: boolean;
}
export interface Floor extends Dict {
  _id: string;
  name: string;
  position: number;
  floorplanUrl?: string;
  units: Unit[];
  soldUnits?: { _id: string; name: string; path?: string }[];
}
export interface Project extends Dict {
  _id: string;
  name: string;
}
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
