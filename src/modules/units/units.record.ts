import type { Selectable } from 'kysely';
import { withFields } from '../../db/json-text.ts';
import type { UnitsTable } from '../../db/schema.ts';
import { holdExpired, shownAvailability } from '../holds/hold-rules.ts';

/**
 * A unit record, rendered two ways: `toUnit` (an object, for lists, writes and the public bundle) and `unitJson`
 * (text completing PostgreSQL's own JSON of the stored document, for `GET /units/{id}`). Both write the stored
 * document's keys first, less `UNIT_RECORD_KEYS`, then the record's fields in one order; test/records.test.ts holds
 * the two equal, key order included. A unit's availability as shown follows the rules of a hold (holds/hold-rules.ts).
 */

/** A unit row as the renderings read it; the hold's holder stays in the database. */
export type UnitRow = Omit<Selectable<UnitsTable>, 'held_by'>;

/** A unit row whose stored document comes as PostgreSQL's JSON text, already less `UNIT_RECORD_KEYS` (`documentText`). */
export type UnitDocument = Omit<UnitRow, 'data'> & { document: string };

/** The record's own keys: kept in columns, so a stored document never carries them (both renderings drop them, to be sure). */
export const UNIT_RECORD_KEYS = ['_id', '__v', 'project', 'name', 'position', 'availability', 'createdAt', 'updatedAt', 'floor', 'onHoldExpiresAt'];
const OWN_KEYS = new Set(UNIT_RECORD_KEYS);

/** A sold unit of a project that hides sold units: no public answer names it (bundle, unit page, holds, live feed). */
export const hiddenSold = (settings: Record<string, unknown>, availability: unknown) => settings.hideSold === true && availability === 'sold';

/** The response record, a new object: the row (and its `data`) is left as it was. */
export function toUnit(row: UnitRow, now: number): Record<string, unknown> {
  const expired = holdExpired(row, now);
  // A plain for-in copy: as fast as any copy measured (a spread of a parsed document was several times slower).
  const out: Record<string, unknown> = {};
  for (const key in row.data) if (!OWN_KEYS.has(key)) out[key] = row.data[key];
  out._id = row.id;
  out.__v = row.version;
  out.project = row.project_id;
  out.name = row.name;
  out.position = row.position;
  out.availability = shownAvailability(row, now);
  out.createdAt = row.created_at.toISOString();
  out.updatedAt = row.updated_at.toISOString();
  if (row.floor_id) out.floor = row.floor_id;
  if (!expired && row.on_hold_expires_at) out.onHoldExpiresAt = new Date(row.on_hold_expires_at).toISOString();
  return out;
}

/**
 * `toUnit`'s record as text: the stored document's JSON as PostgreSQL wrote it (so with a space after `:` and `,`),
 * then the record's own fields in `toUnit`'s order. The same JSON value as `JSON.stringify(toUnit(…))`.
 */
export function unitJson(row: UnitDocument, now: number): string {
  const expired = holdExpired(row, now);
  let tail =
    `"_id":"${row.id}","__v":${row.version},"project":"${row.project_id}","name":${JSON.stringify(row.name)},"position":${JSON.stringify(row.position)}` +
    `,"availability":${JSON.stringify(shownAvailability(row, now))},"createdAt":"${row.created_at.toISOString()}","updatedAt":"${row.updated_at.toISOString()}"`;
  if (row.floor_id) tail += `,"floor":"${row.floor_id}"`;
  if (!expired && row.on_hold_expires_at) tail += `,"onHoldExpiresAt":"${new Date(row.on_hold_expires_at).toISOString()}"`;
  return withFields(row.document, tail);
}
