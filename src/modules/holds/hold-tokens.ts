import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { hashToken } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import type { EventLog } from '../events/event-log.ts';
import { PUBLIC } from '../events/event-model.ts';
import { extendHeldUnit, findHoldByToken, insertHold, markHoldExtended, markHoldReleased, releaseHeldUnit, type TokenHold } from './holds.repo.ts';
import { stillHeld } from './hold-rules.ts';
import type { UnitRow } from '../units/units.record.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/** How the unit of a hold is shown to its holder: as the public page shows it (given by the public side). */
export type RenderUnit = (row: UnitRow, settings: Record<string, unknown>, now: number) => Record<string, unknown>;

/** What a hold's holder (whoever has its token) sees of it. */
export interface HoldView {
  unit: Record<string, unknown>;
  project: { _id: string; name: string; namespace?: string };
  expiresAt: string;
  extended: boolean;
}

/**
 * Records a hold whose unit was just put on hold with `held_by` = `holdId`, and returns its token. The token is
 * returned once, here; only its SHA-256 is stored. Anything that places a hold (a visitor's request, a priority
 * hold) records it through this.
 */
export async function recordHold(
  trx: Transaction<Database>,
  hold: { id: string; unitId: string; projectId: string; client: string; leadId: string | null; now: number },
): Promise<string> {
  // 256 random bits, base64url (43 characters): it travels in a path and a query unescaped.
  const token = randomBytes(32).toString('base64url');
  await insertHold(trx, {
    id: hold.id,
    unitId: hold.unitId,
    projectId: hold.projectId,
    tokenHash: hashToken(token),
    client: hold.client,
    leadId: hold.leadId,
    createdAt: new Date(hold.now),
  });
  return token;
}

/** The page's address that opens the held unit for its holder (the page keeps the token, then drops it from the address). */
export const holdLink = (pagesUrl: string, namespace: string, unitId: string, token: string) =>
  `${pagesUrl}/p/${encodeURIComponent(namespace)}/units/${unitId}?hold=${token}`;

/** The minutes a project's holds last (and one extension adds). */
export const holdMinutes = (settings: Record<string, unknown>) =>
  typeof settings.onHoldMinsDuration === 'number' && settings.onHoldMinsDuration > 0 ? settings.onHoldMinsDuration : 5;

const ended = () => ERRORS.gone('This hold has ended: it was released or it lapsed');

/**
 * The hold a token names, as long as it still holds its unit: unknown → 404; released, lapsed, or its unit
 * changed by the sales team since (made available, sold, held by someone else) → 410.
 */
async function liveHold(trx: Transaction<Database>, token: string, now: number, lock: boolean): Promise<LiveHold> {
  const hold = await findHoldByToken(trx, hashToken(token), lock);
  if (!hold) throw notFound('Hold');
  if (!stillHeld(hold, hold.hold_id, now)) throw ended();
  return hold as LiveHold;
}

type LiveHold = TokenHold & { on_hold_expires_at: Date | string };

function view(hold: LiveHold, extended: boolean, now: number, render: RenderUnit): HoldView {
  const project: HoldView['project'] = { _id: hold.project_id, name: hold.project_name };
  if (hold.namespace !== null) project.namespace = hold.namespace;
  return { unit: render(hold, hold.settings, now), project, expiresAt: new Date(hold.on_hold_expires_at).toISOString(), extended };
}

/** GET /public/holds/{holdToken}. */
export async function readHold(trx: Transaction<Database>, token: string, now: number, render: RenderUnit): Promise<HoldView> {
  const hold = await liveHold(trx, token, now, false);
  return view(hold, hold.extended_at !== null, now, render);
}

/** DELETE /public/holds/{holdToken}: the unit is available again (event unit.hold_released). */
export async function releaseHold(
  trx: Transaction<Database>,
  token: string,
  input: { now: number; events: EventLog; afterRelease?: (trx: Transaction<Database>, unitId: string) => Promise<unknown> },
): Promise<void> {
  const hold = await liveHold(trx, token, input.now, true);
  // Under the unit's lock the hold is still live; the condition repeats the check in the statement that writes.
  const released = await releaseHeldUnit(trx, hold.id, hold.hold_id, input.now);
  if (!released) throw ended();
  await markHoldReleased(trx, hold.hold_id, input.now);
  await input.events.append(trx, {
    projectId: hold.project_id,
    type: 'unit.hold_released',
    actor: PUBLIC,
    subjectId: hold.id,
    changes: { availability: ['on_hold', 'available'], onHoldExpiresAt: [new Date(hold.on_hold_expires_at).toISOString(), null] },
    now: input.now,
  });
  // What follows a unit coming free (the priority list's next offer), in this same transaction.
  if (input.afterRelease) await input.afterRelease(trx, hold.id);
}

/**
 * POST /public/holds/{holdToken}/extend: the expiry moves by the project's onHoldMinsDuration, once per hold
 * (a second time → 409). Event unit.hold_extended.
 */
export async function extendHold(
  trx: Transaction<Database>,
  token: string,
  input: { now: number; events: EventLog; render: RenderUnit },
): Promise<HoldView & { onHoldExpiresAt: string; version: number }> {
  const hold = await liveHold(trx, token, input.now, true);
  if (!(await markHoldExtended(trx, hold.hold_id, input.now))) throw ERRORS.conflict('This hold has already been extended once');
  const before = new Date(hold.on_hold_expires_at);
  const until = new Date(before.getTime() + holdMinutes(hold.settings) * 60_000);
  const extended = await extendHeldUnit(trx, hold.id, hold.hold_id, until, input.now);
  if (!extended) throw ended();
  await input.events.append(trx, {
    projectId: hold.project_id,
    type: 'unit.hold_extended',
    actor: PUBLIC,
    subjectId: hold.id,
    changes: { onHoldExpiresAt: [before.toISOString(), until.toISOString()] },
    now: input.now,
  });
  const answer = view({ ...hold, ...extended, on_hold_expires_at: until }, true, input.now, input.render);
  return { ...answer, onHoldExpiresAt: answer.expiresAt, version: extended.version };
}
