import type { Transaction } from 'kysely';
import type { Limits } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import { notFound } from '../../http/errors.ts';
import { newObjectId } from '../../lib/object-id.ts';
import type { EventLog } from '../events/event-log.ts';
import { createdChanges, PUBLIC } from '../events/event-model.ts';
import { insertLead, LEAD_KEPT, toLead } from '../leads/leads.repo.ts';
import { findUnitAllocation } from '../allocations/allocations.repo.ts';
import { hasAllocations } from '../allocations/allocated.ts';
import { hiddenSold } from '../units/units.record.ts';
import { holdMinutes, recordHold, type RenderUnit } from './hold-tokens.ts';
import { reservedForWaitingList } from '../priority/priority.service.ts';
import { countLiveHolds, findHoldTarget, holdUnit, lockClientHolds, lockUnitHold } from './holds.repo.ts';
import { projectTime } from '../../lib/project-time.ts';
import { langOf } from '../../mail/templates.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

export interface Visitor {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  /** The campaign that brought the visitor, kept on the hold's lead. */
  utm?: { source?: string; medium?: string; campaign?: string; term?: string; content?: string };
}

/** The allocation token a hold request carried: `verify` answers the allocation it opens (401 when it is not valid). */
export interface AllocationCheck {
  verify(trx: Transaction<Database>, projectId: string): Promise<string | undefined>;
}

/**
 * Holds a unit for a visitor. One conditional UPDATE decides the race: of any number of concurrent requests for
 * an available unit exactly one changes the row; the others find it taken (409). The hold's lead is written in
 * the same transaction.
 */
export async function placeHold(
  trx: Transaction<Database>,
  input: {
    unitId: string;
    client: string;
    visitor: Visitor;
    now: number;
    limits: Limits;
    events: EventLog;
    /** How the held unit is shown to the visitor (the public side's rendering). */
    render: RenderUnit;
    allocation?: AllocationCheck;
    /** The hold's length when it waits for a deposit (the payment window); else the project's onHoldMinsDuration. */
    minutes?: number | undefined;
  },
) {
  const unit = await findHoldTarget(trx, input.unitId);
  // A sold unit the project hides answers as an unknown one (not 409 or 403), so a hold tells nothing of it.
  if (!unit || hiddenSold(unit.settings, unit.availability)) throw notFound('Unit');
  const settings = unit.settings;
  if (settings.onHoldExperienceEnabled !== true) throw ERRORS.forbidden('This presentation does not take holds');
  // An allocated unit is held only by its realtor, through the allocation's token.
  const viewer = await input.allocation?.verify(trx, unit.project_id);
  const owner = hasAllocations(settings) ? await findUnitAllocation(trx, unit.project_id, unit.id) : undefined;
  if (owner !== undefined && owner !== viewer) throw ERRORS.conflict('This unit is not available');
  // A unit whose priority hold lapsed and awaits the sweep goes to the next person waiting, in rank, not to a visitor.
  // A unit stored as available is anyone's: a waiting list holds only units that were not free when joined.
  if (unit.availability !== 'available' && (await reservedForWaitingList(trx, settings, unit.project_id, unit.id))) {
    throw ERRORS.conflict('This unit goes to its waiting list first');
  }

  // One client's holds are counted and placed one at a time, so the cap holds under concurrency too.
  await lockClientHolds(trx, input.client);
  const live = await countLiveHolds(trx, input.client, input.now);
  if (live.n >= input.limits.holdsPerClient) {
    // The address may hold again once its first hold lapses (or sooner, if staff release one).
    const wait = live.first_lapse ? Math.max(1, Math.ceil((new Date(live.first_lapse).getTime() - input.now) / 1000)) : 60;
    throw ERRORS.rateLimited(`At most ${input.limits.holdsPerClient} units may be held at once from one address`, {
      headers: {
        'Retry-After': String(wait),
      },
    });
  }

  const expiresAt = new Date(input.now + (input.minutes ?? holdMinutes(settings)) * 60_000);
  const holdId = newObjectId(input.now);
  // A hold that lapsed and was not yet swept ends here rather than in the sweep: its holder is told here (the caller).
  const before = await lockUnitHold(trx, input.unitId);
  const held = await holdUnit(trx, input.unitId, holdId, expiresAt, input.now);
  if (!held) throw ERRORS.conflict('This unit is no longer available');
  const lapsed =
    before?.availability === 'on_hold' && before.held_by && before.on_hold_expires_at
      ? { holdId: before.held_by, endedAt: new Date(before.on_hold_expires_at) }
      : undefined;
  // The expiry as stored: the row's on_hold_expires_at is this instant (milliseconds survive the round trip).
  const until = expiresAt.toISOString();

  const lead = await insertLead(trx, {
    id: newObjectId(input.now),
    projectId: unit.project_id,
    createdAt: new Date(input.now),
    data: {
      ...input.visitor,
      unit: unit.id,
      source: owner !== undefined ? `allocation:${owner}` : 'hold',
      // In the project's time zone, as its team reads it (the exact instant is the unit's onHoldExpiresAt).
      message: `Hold on unit ${unit.name} until ${projectTime(expiresAt, settings, langOf(settings.projectLang))}`,
    },
  });
  const token = await recordHold(trx, { id: holdId, unitId: unit.id, projectId: unit.project_id, client: input.client, leadId: lead.id, now: input.now });
  await input.events.append(trx, {
    projectId: unit.project_id,
    type: 'unit.held',
    actor: PUBLIC,
    subjectId: unit.id,
    changes: { availability: ['available', 'on_hold'], onHoldExpiresAt: [null, until] },
    now: input.now,
  });
  await input.events.append(trx, {
    projectId: unit.project_id,
    type: 'lead.created',
    actor: PUBLIC,
    subjectId: lead.id,
    changes: createdChanges(toLead(lead), LEAD_KEPT),
    now: input.now,
  });
  return { unit: input.render(held, settings, input.now), version: held.version, lead, token, target: unit, expiresAt, lapsed, holdId };
}
