import type { FieldError } from '../../http/errors.ts';
import { updatedChanges, type Changes } from '../events/event-model.ts';
import { changedFields, SERVER_KEPT } from '../shared/records.ts';
import { perimeterErrors } from '../shared/perimeter-check.ts';
import type { UnitChange } from './unit-writes.repo.ts';
import { toUnit, type UnitRow } from './units.record.ts';
import { leavesHold } from '../holds/hold-rules.ts';
import type { UnitPatch } from './units.schemas.ts';

const IGNORED = new Set([...SERVER_KEPT, 'project', 'ifMatch']);

export interface PlannedUnitChange {
  change: UnitChange;
  /** The floor the unit moves to (undefined: it stays). */
  floorTo: string | null | undefined;
  positionChanged: boolean;
  /** What its `unit.updated` event records. */
  logged: Changes;
}

/**
 * The `changes` of a unit's `unit.updated` event: each changed field before and after (`before` is the unit as the
 * API showed it), and the hold's expiry cleared when availability leaves on_hold (the write clears it too).
 */
export function unitUpdateChanges(before: Record<string, unknown>, changed: Record<string, unknown>): Changes {
  const logged = updatedChanges(before, changed);
  if (leavesHold(changed.availability) && before.onHoldExpiresAt !== undefined) logged.onHoldExpiresAt = [before.onHoldExpiresAt, null];
  return logged;
}

export { perimeterErrors };

/**
 * A unit on hold always has an expiry: the error when a unit would be `availability` (any case) with `expiresAt` as
 * its expiry, for a create and a PATCH alike.
 */
export function holdExpiryErrors(availability: unknown, expiresAt: unknown): FieldError[] {
  const held = typeof availability === 'string' && availability.toLowerCase() === 'on_hold';
  return held && !expiresAt ? [{ path: '/onHoldExpiresAt', message: 'is required to put a unit on hold' }] : [];
}

/**
 * What a unit PATCH body changes, by the rules of a single-unit PATCH: only sent fields that differ,
 * availability in any case, clearing an absent field is no change, on_hold needs an expiry. Undefined: no change.
 * Errors are paths inside the body (`/onHoldExpiresAt`); the caller prefixes them.
 */
export function planUnitChange(unit: UnitRow, body: UnitPatch, now: number, errors: FieldError[]): PlannedUnitChange | undefined {
  const current = toUnit(unit, now);
  const sent = typeof body.availability === 'string' ? { ...body, availability: body.availability.toLowerCase() } : body;
  // Validated by UnitPatchSchema: the changed fields are a part of the body.
  const changes = changedFields(sent, current, IGNORED) as Partial<UnitPatch>;
  for (const k of ['floor', 'onHoldExpiresAt'] as const) if (changes[k] === null && current[k] === undefined) delete changes[k];
  if (!Object.keys(changes).length) return undefined;
  // The column fields; the rest is the unit's document.
  const { name, position, floor, availability, onHoldExpiresAt, ...data } = changes;
  // One on hold cannot lose its own expiry, and putting it on hold needs one.
  errors.push(...holdExpiryErrors(availability ?? current.availability, onHoldExpiresAt !== undefined ? onHoldExpiresAt : current.onHoldExpiresAt));
  errors.push(...perimeterErrors(data.perimeter));
  return {
    change: {
      columns: {
        ...(name !== undefined ? { name } : {}),
        ...(position !== undefined ? { position } : {}),
        ...(floor !== undefined ? { floor_id: floor } : {}),
        ...(availability !== undefined ? { availability } : {}),
        ...(onHoldExpiresAt !== undefined ? { on_hold_expires_at: onHoldExpiresAt } : {}),
      },
      data,
    },
    floorTo: floor,
    positionChanged: position !== undefined,
    logged: unitUpdateChanges(current, changes),
  };
}

/** The floors whose `units` list a planned change alters: both ends of a move, or the unit's floor when its position changes. */
export function touchedFloors(unit: Pick<UnitRow, 'floor_id'>, plan: PlannedUnitChange): (string | null)[] {
  if (plan.floorTo !== undefined) return [unit.floor_id, plan.floorTo];
  return plan.positionChanged ? [unit.floor_id] : [];
}
