import { sql, type RawBuilder, type Selectable } from 'kysely';
import { withFields } from '../../db/json-text.ts';
import type { UnitsTable } from '../../db/schema.ts';

/**
 * A unit record, rendered two ways: `toUnit` (an object, for lists, writes and the public bundle) and `unitJson`
 * (text completing PostgreSQL's own JSON of the stored document, for `GET /units/{id}`). Both write the stored
 * document's keys first, less `UNIT_RECORD_KEYS`, then the record's fields in one order; test/records.test.ts holds
 * the two equal, key order included. The rules of a unit's hold (lapsed, live, free, left) are here too, each once.
 */

/** A unit row as the renderings read it; the hold's holder stays in the database. */
export type UnitRow = Omit<Selectable<UnitsTable>, 'held_by'>;

/** A unit row whose stored document comes as PostgreSQL's JSON text, already less `UNIT_RECORD_KEYS` (`documentText`). */
export type UnitDocument = Omit<UnitRow, 'data'> & { document: string };

/** The record's own keys: kept in columns, so a stored document never carries them (both renderings drop them, to be sure). */
export const UNIT_RECORD_KEYS = ['_id', '__v', 'project', 'name', 'position', 'availability', 'createdAt', 'updatedAt', 'floor', 'onHoldExpiresAt'];
const OWN_KEYS = new Set(UNIT_RECORD_KEYS);

/** The lapsed-hold rule in SQL (the twin of `holdExpired`): an `on_hold` unit whose time has passed, on table alias `alias`. */
export function holdLapsedSql(now: number | Date, alias = 'u'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.availability`)} = 'on_hold' and ${sql.ref(`${alias}.on_hold_expires_at`)} <= ${new Date(now)})`;
}

/**
 * A live hold in SQL (the twin of `holdLive`): `on_hold` and its time not yet passed, or with no time at all (a row
 * written before every hold needed an expiry, `holdExpiryErrors`: held until changed), on table alias `alias`.
 */
export function holdLiveSql(now: number | Date, alias = 'u'): RawBuilder<boolean> {
  const expires = sql.ref(`${alias}.on_hold_expires_at`);
  return sql<boolean>`(${sql.ref(`${alias}.availability`)} = 'on_hold' and (${expires} is null or ${expires} > ${new Date(now)}))`;
}

/**
 * A live hold in TypeScript, with `holdLiveSql`'s truth table: `on_hold` and an expiry still to come or none (never a
 * lapsed one, `holdExpired`); who holds it (`held_by`) does not matter.
 */
export function holdLive(row: Pick<UnitRow, 'availability' | 'on_hold_expires_at'>, now: number): boolean {
  return row.availability === 'on_hold' && (row.on_hold_expires_at === null || new Date(row.on_hold_expires_at).getTime() > now);
}

/** A hold that still holds its unit, in SQL (the twin of `stillHeld`): the unit's holder and a live hold, on alias `alias`. */
export function stillHeldSql(holdId: string, now: number | Date, alias = 'u'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.held_by`)} = ${holdId} and ${holdLiveSql(now, alias)})`;
}

/** A hold that still holds its unit, in TypeScript: the unit's holder (`held_by`) is the hold, and the hold is live. */
export function stillHeld(row: Pick<UnitRow, 'availability' | 'on_hold_expires_at'> & { held_by: string | null }, holdId: string, now: number): boolean {
  return row.held_by === holdId && holdLive(row, now);
}

/** A unit free to hold or reserve, in SQL: available, or on a hold that has lapsed (so it reads as available). */
export function unitFreeSql(now: number | Date, alias = 'u'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.availability`)} = 'available' or ${holdLapsedSql(now, alias)})`;
}

/** A hold whose time has passed reads as available, with no expiry. The rule in TypeScript. */
export function holdExpired<T extends Pick<UnitRow, 'availability' | 'on_hold_expires_at'>>(
  row: T,
  now: number,
): row is T & { on_hold_expires_at: NonNullable<UnitRow['on_hold_expires_at']> } {
  return row.availability === 'on_hold' && row.on_hold_expires_at !== null && new Date(row.on_hold_expires_at).getTime() <= now;
}

/** The availability a unit shows: a lapsed hold reads as available. */
export function shownAvailability(row: Pick<UnitRow, 'availability' | 'on_hold_expires_at'>, now: number): string {
  return holdExpired(row, now) ? 'available' : row.availability;
}

/**
 * Leaving on_hold, for any other availability, releases the hold: the write clears its expiry and its holder
 * (`HOLD_CLEARED`) and the event logs the expiry cleared. A different rule from a hold's lapse (`holdExpired`).
 */
export function leavesHold(availability: unknown): boolean {
  return availability !== undefined && availability !== null && availability !== 'on_hold';
}

/** The columns of a unit no longer held, for every write that ends a hold (left, lapsed, released, reserved). */
export const HOLD_CLEARED = { on_hold_expires_at: null, held_by: null } as const;

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
