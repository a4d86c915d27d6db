import { sql, type RawBuilder } from 'kysely';

/**
 * The rules of a hold, each once, in SQL and in TypeScript side by side (test/records.test.ts holds each twin to its
 * SQL in every case): when a hold has lapsed, when it is live, when it still holds its unit, when a unit is free to
 * hold, and what leaving on_hold clears. A hold lives in its unit's columns (availability on_hold, the expiry, the
 * holder); every module that reads or writes those columns applies these.
 */

/** The columns of a unit a hold's rules read. */
export interface HoldColumns {
  availability: string;
  on_hold_expires_at: Date | null;
}

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
export function holdLive(row: HoldColumns, now: number): boolean {
  return row.availability === 'on_hold' && (row.on_hold_expires_at === null || new Date(row.on_hold_expires_at).getTime() > now);
}

/** A hold that still holds its unit, in SQL (the twin of `stillHeld`): the unit's holder and a live hold, on alias `alias`. */
export function stillHeldSql(holdId: string, now: number | Date, alias = 'u'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.held_by`)} = ${holdId} and ${holdLiveSql(now, alias)})`;
}

/** A hold that still holds its unit, in TypeScript: the unit's holder (`held_by`) is the hold, and the hold is live. */
export function stillHeld(row: HoldColumns & { held_by: string | null }, holdId: string, now: number): boolean {
  return row.held_by === holdId && holdLive(row, now);
}

/** A unit free to hold or reserve, in SQL: available, or on a hold that has lapsed (so it reads as available). */
export function unitFreeSql(now: number | Date, alias = 'u'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.availability`)} = 'available' or ${holdLapsedSql(now, alias)})`;
}

/** A hold whose time has passed reads as available, with no expiry. The rule in TypeScript. */
export function holdExpired<T extends HoldColumns>(row: T, now: number): row is T & { on_hold_expires_at: NonNullable<HoldColumns['on_hold_expires_at']> } {
  return row.availability === 'on_hold' && row.on_hold_expires_at !== null && new Date(row.on_hold_expires_at).getTime() <= now;
}

/** The availability a unit shows: a lapsed hold reads as available. */
export function shownAvailability(row: HoldColumns, now: number): string {
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
