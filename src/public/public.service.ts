import { createHash } from 'node:crypto';
import { publicUnit } from './bundle.ts';
import type { Kysely, Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { Allocations } from '../modules/allocations/allocations.service.ts';
import { lockUnitForWaitlist, lockWaitingList, nextRank } from '../modules/priority/priority.repo.ts';
import { findUnitAllocation } from '../modules/allocations/allocations.repo.ts';
import {
  extendHold,
  holdLink,
  holdLive,
  type HoldView,
  offerToNext,
  placeHold,
  queueHoldEndedMail,
  readHold,
  releaseHold,
  type Visitor,
} from '../modules/holds/index.ts';
import { hasAllocations } from '../modules/allocations/allocated.ts';
import { notFound } from '../http/errors.ts';
import { newObjectId } from '../lib/object-id.ts';
import { queueLeadMail } from '../mail/lead-mail.ts';
import { holdMail, type LeadForMail } from '../mail/templates.ts';
import { insertLead, toLead } from '../modules/leads/leads.repo.ts';
import { takeLead } from '../modules/leads/lead-intake.ts';
import { etagOf, invalid } from '../modules/shared/records.ts';
import { runIdempotent, type Outcome } from '../modules/shared/idempotency.ts';
import { findFormProject } from './public.repo.ts';
import { ERRORS } from '../http/errors.catalogue.ts';
import { DepositsService } from '../modules/deposits/deposits.service.ts';

/** A public form's project: by `project` (its id) or `namespace`; when both are sent, `project` decides. */
interface FormTarget {
  project?: string | undefined;
  namespace?: string | undefined;
}

type Replayable<B> = Outcome<B> & { replayed: boolean };
/** The hold answer: the unit as a visitor sees it, and the hold's token. */
type HeldUnit = Record<string, unknown> & { holdToken: string };

/**
 * What anonymous visitors write: enquiries, waitlist entries and holds. Each runs in one transaction under its
 * Idempotency-Key (a retry replays the first answer), and the lead, its mail and its event commit together.
 */
export class PublicService {
  readonly #allocations: Allocations;
  readonly #deposits: DepositsService;
  constructor(private readonly ctx: Ctx) {
    this.#allocations = new Allocations(ctx);
    this.#deposits = new DepositsService(ctx);
  }

  /** POST /public/leads: a lead with source "presentation" (unless sent), when the project takes enquiries. */
  async enquire(key: string | undefined, body: FormTarget & Record<string, unknown>): Promise<Replayable<Record<string, unknown>>> {
    const { project, namespace, ...lead } = body;
    const by = formTarget({ project, namespace });
    const outcome = await runIdempotent(this.ctx.db.kysely, 'public-leads', key, body, async (trx) => {
      const target = await findFormProject(trx, by);
      if (!target) throw notFound('Project');
      if (target.data.enableForms !== true) throw ERRORS.forbidden('This presentation does not take enquiries');
      // The CRMs (through the outbox: the 201 never waits for a vendor), the sales team's notice, the visitor's
      // confirmation and the lead.created event commit with the lead, or not at all.
      const row = await takeLead(trx, this.ctx, { projectId: target.id, data: { source: 'presentation', ...lead }, now: this.ctx.clock.now() });
      return { status: 201, body: toLead(row) };
    });
    if (!outcome.replayed) this.ctx.mail.wake();
    return outcome;
  }

  /** POST /public/waitlist: a lead with source "waitlist", when the project keeps a waitlist. */
  async joinWaitlist(key: string | undefined, body: FormTarget & Record<string, unknown>): Promise<Replayable<Record<string, unknown>>> {
    const { project, namespace, ...entry } = body;
    const by = formTarget({ project, namespace });
    const outcome = await runIdempotent(this.ctx.db.kysely, 'public-waitlist', key, body, async (trx) => {
      const target = await findFormProject(trx, by);
      if (!target) throw notFound('Project');
      if (target.data.waitlistEnabled !== true) throw ERRORS.forbidden('This presentation has no waitlist');
      // An entry for a unit is ranked by arrival: the priority list offers a unit that comes free in rank order.
      let rank: number | undefined;
      if (typeof entry.unit === 'string' && entry.unit !== '') {
        // The unit first, then its list: the order a unit coming free takes them in, so the two never deadlock.
        const unit = await lockUnitForWaitlist(trx, target.id, entry.unit);
        if (!unit) invalid([{ path: '/unit', message: 'is not a unit of this project' }]);
        const free = unit.availability === 'available' || (unit.availability === 'on_hold' && !holdLive(unit, this.ctx.clock.now()));
        // A free unit of a realtor's allocation reads unavailable to the public: its waiting list is open.
        const allocated = free && hasAllocations(target.data) && (await findUnitAllocation(trx, target.id, entry.unit)) !== undefined;
        if (free && !allocated) {
          throw ERRORS.conflict('This unit is available: hold it or enquire about it instead of joining its waiting list', {
            errors: [{ path: '/unit', message: 'is available now' }],
          });
        }
        await lockWaitingList(trx, target.id, entry.unit);
        rank = await nextRank(trx, target.id, entry.unit);
      }
      const data = { ...entry, source: 'waitlist', ...(rank !== undefined ? { rank } : {}) };
      const now = this.ctx.clock.now();
      const row = await insertLead(trx, { id: newObjectId(now), projectId: target.id, data, createdAt: new Date(now) });
      await this.ctx.crm.queue(trx, target.id, row.id);
      return { status: 201, body: toLead(row) };
    });
    if (!outcome.replayed) this.ctx.crm.wake();
    return outcome;
  }

  /**
   * POST /public/units/{id}/hold: the unit held for the visitor, with the hold's token; a lead with source "hold",
   * its mail, and the holder's own mail (the expiry and the page's link with the token) commit with it.
   */
  async hold(key: string | undefined, unitId: string, client: string, visitor: Visitor, token?: string): Promise<Replayable<HeldUnit>> {
    const allocation = { verify: async (trx: Kysely<Database>, projectId: string) => (await this.#allocations.verify(trx, token, projectId))?.name };
    const outcome = await runIdempotent(
      this.ctx.db.kysely,
      // Per client as well: the stored answer carries the hold's token, so the same key from another address must not
      // replay it (it is decided afresh there). The address is kept only as a digest.
      `public-hold:${unitId}:${createHash('sha256').update(client).digest('base64url').slice(0, 22)}`,
      key,
      visitor,
      async (trx) => {
        const now = this.ctx.clock.now();
        // A project taking deposits holds for the payment window, and the answer sends the buyer to Stripe Checkout.
        const terms = await this.#deposits.termsFor(trx, unitId);
        const minutes = terms ? this.ctx.config.payments.depositWindowMinutes : undefined;
        const held = await placeHold(trx, {
          unitId,
          client,
          visitor,
          now,
          limits: this.ctx.config.limits,
          events: this.ctx.events,
          render: publicUnit,
          allocation,
          minutes,
        });
        await queueLeadMail(trx, this.ctx.mail, held.lead.project_id, toLead(held.lead) as unknown as LeadForMail, now);
        await this.ctx.crm.queue(trx, held.lead.project_id, held.lead.id);
        const { target } = held;
        if (held.lapsed) await queueHoldEndedMail(trx, this.ctx, held.lapsed.holdId, held.lapsed.endedAt, now);
        await this.ctx.mail.queue(
          trx,
          holdMail({
            project: { name: target.project_name, settings: target.settings },
            projectId: held.lead.project_id,
            unitName: target.name,
            to: visitor.email,
            firstName: visitor.firstName,
            until: held.expiresAt,
            link: target.namespace === null ? undefined : holdLink(this.ctx.config.pagesUrl, target.namespace, target.id, held.token),
            now,
          }),
        );
        const payment = terms
          ? await this.#deposits.offer(trx, terms, {
              depositId: newObjectId(now),
              holdId: held.holdId,
              projectId: held.lead.project_id,
              namespace: target.namespace,
              projectName: target.project_name,
              unitId: target.id,
              unitName: target.name,
              leadId: held.lead.id,
              buyer: visitor,
              expiresAt: held.expiresAt,
              now,
            })
          : undefined;
        return { status: 200, body: { ...held.unit, holdToken: held.token, ...(payment ? { payment } : {}) }, etag: etagOf(held.version) };
      },
      // A retry gets the same token back; the stored answer keeps it sealed with SECRET_KEY, never in clear.
      {
        store: ({ holdToken, ...unit }) => ({ ...unit, sealedHoldToken: this.ctx.secrets.seal(holdToken) }),
        restore: (stored) => {
          const { sealedHoldToken, ...unit } = stored as Record<string, unknown> & { sealedHoldToken: string };
          return { ...unit, holdToken: this.ctx.secrets.open(sealedHoldToken) };
        },
      },
    );
    if (!outcome.replayed) this.ctx.mail.wake();
    return outcome;
  }

  /** GET /public/holds/{holdToken}. */
  readHold(token: string): Promise<HoldView> {
    return this.ctx.db.kysely.transaction().execute((trx) => readHold(trx, token, this.ctx.clock.now(), publicUnit));
  }

  /** DELETE /public/holds/{holdToken}. */
  async releaseHold(token: string): Promise<void> {
    const now = this.ctx.clock.now();
    // The unit goes to the next on its waiting list, if any, in the release's transaction.
    const afterRelease = (trx: Transaction<Database>, unitId: string) => offerToNext(trx, this.ctx, unitId, now);
    await this.ctx.db.kysely.transaction().execute((trx) => releaseHold(trx, token, { now, events: this.ctx.events, afterRelease }));
    // A priority hold offered to the next in rank is mailed once this commits.
    this.ctx.mail.wake();
  }

  /** POST /public/holds/{holdToken}/extend. */
  extendHold(token: string) {
    return this.ctx.db.kysely
      .transaction()
      .execute((trx) => extendHold(trx, token, { now: this.ctx.clock.now(), events: this.ctx.events, render: publicUnit }));
  }
}

function formTarget({ project, namespace }: FormTarget): { project: string } | { namespace: string } {
  if (project) return { project };
  if (namespace) return { namespace };
  throw ERRORS.invalidBody('project or namespace is required', { errors: [{ path: '/project', message: 'is required (or namespace)' }] });
}
