import type { Transaction } from 'kysely';
import type { Ctx } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { notFound } from '../../http/errors.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import { PUBLIC, updatedChanges } from '../events/event-model.ts';
import { takeLead } from '../leads/lead-intake.ts';
import { findLead, mergeLeadData, toLead, type LeadRow } from '../leads/leads.repo.ts';
import { cal, calSignatureValid, readBooking, type CalBooking } from './cal.ts';
import { claimBooking, findBooking, findBookingProject, isProjectUnit, linkBooking } from './bookings.repo.ts';
import { credentialsOf } from './credentials.ts';
import { recordFailure, recordSuccess } from './integrations.repo.ts';

/** What became of one delivery. */
export type BookingOutcome = 'created' | 'updated' | 'duplicate' | 'ignored';

/** Where a lead's visit stands, as the lead shows it (`booking`). */
export interface LeadBooking {
  uid: string;
  status: 'booked' | 'rescheduled' | 'cancelled';
  startTime?: string;
  endTime?: string;
  cancellationReason?: string;
}

const SIGNATURE_WORDS = "A delivery to the bookings address did not verify against calKey: the secret of the Cal.com webhook must be the project's calKey";

/**
 * Cal.com's webhook (`POST /public/projects/{namespace}/bookings`): each verified booking delivery becomes, or moves, a
 * lead with source `booking`. A booking is claimed by its uid in the delivery's transaction, so a delivery sent again
 * (or twice at once, on any node) makes no second lead. A new lead takes the path of every lead from outside
 * (`takeLead`: CRMs, the sales team's mail, `lead.created`); a reschedule or a cancellation changes that lead's
 * `booking` (CRMs updated, `lead.updated`). Every verified delivery is the integration's last success.
 */
export class BookingsService {
  constructor(private readonly ctx: Ctx) {}

  async receive(namespace: string, raw: Buffer, signature: string | undefined, body: unknown): Promise<{ outcome: BookingOutcome; lead?: string }> {
    const db = this.ctx.db.kysely;
    const project = await findBookingProject(db, namespace);
    if (!project) throw notFound('Project');
    const { calKey } = credentialsOf(cal, project, this.ctx.secrets);
    if (!calKey) throw ERRORS.forbidden("This project takes no Cal.com bookings: its calKey (the webhook's secret) is not set");
    const at = () => new Date(this.ctx.clock.now());
    if (!calSignatureValid(raw, signature, calKey)) {
      // Said to the sales team (a wrong secret is the usual cause); the connection itself is not judged by a stranger.
      await recordFailure(db, project.id, cal.name, SIGNATURE_WORDS, at(), true);
      throw ERRORS.invalidCredentials('X-Cal-Signature-256 is not the signature of this body with the project’s calKey');
    }
    const booking = readBooking(body);
    const answer = await db.transaction().execute(async (trx) => {
      await recordSuccess(trx, project.id, cal.name, at());
      if (!booking) return { outcome: 'ignored' as const };
      if (booking.trigger === 'BOOKING_CANCELLED') return this.#cancelled(trx, project.id, booking);
      return this.#booked(trx, project.id, booking);
    });
    if (answer.outcome === 'created' || answer.outcome === 'updated') {
      this.ctx.mail.wake();
      this.ctx.crm.wake();
    }
    return answer;
  }

  /**
   * BOOKING_CREATED, BOOKING_RESCHEDULED: a new lead, or the lead of the booking it replaces moved to the new time. Also
   * a BOOKING_CANCELLED that arrives before its booking's creation (deliveries may come out of order): the lead is made
   * from it, already cancelled, and the creation arriving later finds the uid taken and changes nothing.
   */
  async #booked(trx: Transaction<Database>, projectId: string, b: CalBooking) {
    const now = this.ctx.clock.now();
    const before = b.rescheduleUid ? await findBooking(trx, projectId, b.rescheduleUid) : undefined;
    if (!(await claimBooking(trx, projectId, b.uid, new Date(now)))) return { outcome: 'duplicate' as const, ...(await this.#leadOf(trx, projectId, b.uid)) };
    const visit: LeadBooking = {
      uid: b.uid,
      status: b.trigger === 'BOOKING_RESCHEDULED' ? 'rescheduled' : b.trigger === 'BOOKING_CANCELLED' ? 'cancelled' : 'booked',
      ...(b.startTime ? { startTime: b.startTime } : {}),
      ...(b.endTime ? { endTime: b.endTime } : {}),
      ...(b.trigger === 'BOOKING_CANCELLED' && b.cancellationReason ? { cancellationReason: b.cancellationReason } : {}),
    };
    if (before) {
      // The booking it replaces made a lead: that lead moves (none when it was erased since: nothing comes back).
      const lead = before.lead_id ? await this.#change(trx, before.lead_id, visit) : undefined;
      if (!lead) return { outcome: 'ignored' as const };
      await linkBooking(trx, projectId, b.uid, lead.id);
      return { outcome: 'updated' as const, lead: lead.id };
    }
    const unit = b.unit && (await isProjectUnit(trx, projectId, b.unit)) ? b.unit : undefined;
    const data = {
      firstName: b.firstName,
      lastName: b.lastName,
      email: b.email,
      ...(b.phone ? { phone: b.phone } : {}),
      ...(unit ? { unit } : {}),
      ...(b.notes ? { message: b.notes } : {}),
      source: 'booking',
      booking: visit,
    };
    // Cal.com confirms the booking to the attendee itself: the sales team's notice only.
    const row = await takeLead(trx, this.ctx, { projectId, data, now, confirm: false });
    await linkBooking(trx, projectId, b.uid, row.id);
    return { outcome: 'created' as const, lead: row.id };
  }

  /** BOOKING_CANCELLED: the lead of that booking (its current one) says so, once; a booking not seen yet makes its lead. */
  async #cancelled(trx: Transaction<Database>, projectId: string, b: CalBooking) {
    const known = await findBooking(trx, projectId, b.uid);
    if (!known) return this.#booked(trx, projectId, b);
    if (!known.lead_id) return { outcome: 'ignored' as const };
    const lead = await findLead(trx, known.lead_id);
    const current = lead?.data.booking as LeadBooking | undefined;
    // Already cancelled (a delivery sent again), or the booking was since moved to another uid.
    if (!lead || current?.uid !== b.uid || current.status === 'cancelled') return { outcome: 'duplicate' as const, lead: known.lead_id };
    const visit: LeadBooking = { ...current, status: 'cancelled', ...(b.cancellationReason ? { cancellationReason: b.cancellationReason } : {}) };
    await this.#change(trx, lead.id, visit);
    return { outcome: 'updated' as const, lead: lead.id };
  }

  /** Writes the lead's `booking` (versioned), and sends the change on: the CRMs that have the lead, `lead.updated`. */
  async #change(trx: Transaction<Database>, leadId: string, visit: LeadBooking): Promise<LeadRow | undefined> {
    const now = this.ctx.clock.now();
    const before = await findLead(trx, leadId);
    if (!before) return undefined;
    const row = await mergeLeadData(trx, leadId, { booking: visit }, now);
    if (!row) return undefined;
    await this.ctx.crm.queue(trx, row.project_id, row.id);
    await this.ctx.events.append(trx, {
      projectId: row.project_id,
      type: 'lead.updated',
      actor: PUBLIC,
      subjectId: row.id,
      changes: updatedChanges(toLead(before), { booking: visit }),
      now,
    });
    return row;
  }

  async #leadOf(trx: Transaction<Database>, projectId: string, uid: string) {
    const lead = (await findBooking(trx, projectId, uid))?.lead_id;
    return lead ? { lead } : {};
  }
}
