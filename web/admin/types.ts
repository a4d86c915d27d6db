import type { Static } from '@sinclair/typebox';
import type { FloorSchema } from '../../src/modules/floors/floors.schemas.ts';
import type { UnitSchema } from '../../src/modules/units/units.schemas.ts';

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

/** A floor as the API gives it (the server's schema). */
export type Floor = Static<typeof FloorSchema>;

/** A unit as the API gives it (the server's schema). */
export type Unit = Static<typeof UnitSchema>;

export interface Lead {
  _id: string;
  __v?: number;
  status?: 'new' | 'contacted' | 'qualified' | 'lost';
  notes?: string | null;
  assignee?: string | null;
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
  hostName?: string;
  user: string;
  projects: string[];
  administrators: string[];
  editors: string[];
  invites?: Invite[];
}

export const AVAILABILITY = ['available', 'on_hold', 'reserved', 'sold', 'leased', 'unavailable'] as const;
export const availabilityLabel = (a: string) => a.replace('_', ' ').replace(/^./, (c) => c.toUpperCase());
