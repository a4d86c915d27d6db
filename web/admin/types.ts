import type { components } from '../api-schema.d.ts';

/** The records as the API gives them: taken from the OpenAPI document, so they follow the service. */
type Schemas = components['schemas'];
export type User = Schemas['User'];
export type Invite = Schemas['Invite'];
export type Project = Schemas['Project'];
export type Floor = Schemas['Floor'];
export type Unit = Schemas['Unit'];
export type Lead = Schemas['Lead'];
export type TeamMember = Schemas['TeamMember'];
export type Group = Schemas['Group'];

export const AVAILABILITY = ['available', 'on_hold', 'reserved', 'sold', 'leased', 'unavailable'] as const;
export const availabilityLabel = (a: string) => a.replace('_', ' ').replace(/^./, (c) => c.toUpperCase());
