export interface User {
  _id: string;
  username: string;
  role: string;
  name?: string;
  lastName?: string;
}

export interface Invite {
  _id?: string;
  email: string;
  firstName?: string;
  lastName?: string;
  level: string;
}

export type Project = Record<string, unknown> & {
  _id: string;
  __v: number;
  name: string;
  namespace?: string;
  hostName?: string;
  user: string;
  floors: string[];
  administrators: string[];
  editors: string[];
  invites?: Invite[];
  configuredSecrets?: string[];
  createdAt: string;
  updatedAt: string;
};

export interface Floor {
  _id: string;
  __v: number;
  project: string;
  name: string;
  position: number;
  floorplanUrl?: string;
  units: string[];
  viewBox?: string;
}

export interface Unit {
  _id: string;
  __v: number;
  project: string;
  floor?: string;
  name: string;
  position: number;
  availability: string;
  price?: number;
  squareFeet?: number;
  bedrooms?: string;
  bathrooms?: number;
  type?: string;
  path?: string;
  onHoldExpiresAt?: string;
  [k: string]: unknown;
}

export interface Lead {
  _id: string;
  project?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string;
  unit?: string;
  message?: string;
  source?: string;
  createdAt: string;
}

export interface Group {
  _id: string;
  __v: number;
  name: string;
  namespace?: string;
  user: string;
  projects: string[];
  administrators: string[];
  editors: string[];
  invites?: Invite[];
}

export const AVAILABILITY = ['available', 'on_hold', 'reserved', 'sold', 'leased', 'unavailable'] as const;
export const availabilityLabel = (a: string) => a.replace('_', ' ').replace(/^./, (c) => c.toUpperCase());
