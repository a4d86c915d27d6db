import { createHmac, timingSafeEqual } from 'node:crypto';
import { ERRORS } from '../../http/errors.catalogue.ts';
import type { Connector, Credentials, VendorDeps } from './connector.ts';
import { callVendor, rateLimited, VendorError } from './vendor-http.ts';

const VENDOR = 'Cal.com';

/**
 * A Cal.com link as its booking pages take it: a username, or a username (or team) and an event type's slug
 * (`maple-sales`, `maple-sales/visit`, `team/maple`). Anything else is not sent anywhere.
 */
const LINK = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){0,2}$/;

/** The booking page of `calUsername` at CAL_URL (`https://cal.com/maple-sales`), or undefined when it is not a Cal.com link. */
export function bookingPageUrl(calUrl: string, username: unknown): string | undefined {
  if (typeof username !== 'string' || !LINK.test(username.trim())) return undefined;
  return `${calUrl.replace(/\/+$/, '')}/${username
    .trim()
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/')}`;
}

/**
 * Whether `X-Cal-Signature-256` is Cal.com's signature of these exact bytes with the webhook's secret (`calKey`): the
 * hex HMAC-SHA256 of the raw body. Compared in constant time; a header that is not 64 hex digits never matches.
 */
export function calSignatureValid(raw: Buffer, header: string | undefined, key: string): boolean {
  const got = (header ?? '').trim().replace(/^sha256=/i, '');
  if (!/^[0-9a-f]{64}$/i.test(got) || !key) return false;
  return timingSafeEqual(Buffer.from(got, 'hex'), createHmac('sha256', key).update(raw).digest());
}

/** The triggers a booking's lead follows; Cal.com's other triggers (meetings, payments, forms) are acknowledged and ignored. */
export const BOOKING_TRIGGERS = ['BOOKING_CREATED', 'BOOKING_RESCHEDULED', 'BOOKING_CANCELLED'] as const;
export type BookingTrigger = (typeof BOOKING_TRIGGERS)[number];

/** What a lead takes from one of Cal.com's booking deliveries. */
export interface CalBooking {
  trigger: BookingTrigger;
  /** The booking's uid (for a reschedule, the new booking's). */
  uid: string;
  /** A reschedule: the uid of the booking it replaces. */
  rescheduleUid?: string | undefined;
  startTime?: string | undefined;
  endTime?: string | undefined;
  firstName: string;
  lastName: string;
  email: string;
  phone?: string | undefined;
  /** The attendee's notes on the booking form. */
  notes?: string | undefined;
  /** The unit the booking's metadata names (`metadata.unit`, as the page sent it), unchecked. */
  unit?: string | undefined;
  cancellationReason?: string | undefined;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const text = (v: unknown, max: number): string | undefined => {
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string' || !v.trim()) return undefined;
  return v.trim().slice(0, max);
};
/** A booking form's answer: `responses.<field>.value`. */
const answer = (p: Json, field: string) => obj(obj(p.responses)?.[field])?.value;
const bad = (path: string, message: string) => ERRORS.invalidBody(`${path.slice(1).replace(/\//g, '.')} ${message}`, { errors: [{ path, message }] });
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function instant(p: Json, key: string): string | undefined {
  const v = p[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw bad(`/payload/${key}`, 'is not a date-time');
  return new Date(v).toISOString();
}

/**
 * Reads a verified delivery (Cal.com's webhook body, payload version 2021-10-20): `triggerEvent` and `payload`. Answers
 * undefined for a trigger a lead does not follow; a booking trigger without what a lead needs (its uid, the attendee's
 * e-mail) is a 400 naming the field. The attendee is the first of `attendees`, the booking form's answers filling in.
 */
export function readBooking(body: unknown): CalBooking | undefined {
  const root = obj(body);
  if (!root) throw bad('/triggerEvent', 'is required');
  const trigger = root.triggerEvent;
  if (typeof trigger !== 'string') throw bad('/triggerEvent', 'is required');
  if (!(BOOKING_TRIGGERS as readonly string[]).includes(trigger)) return undefined;
  const p = obj(root.payload);
  if (!p) throw bad('/payload', 'is required');
  const uid = text(p.uid, 200);
  if (!uid) throw bad('/payload/uid', 'is required');
  const attendee = obj(Array.isArray(p.attendees) ? (p.attendees[0] as unknown) : undefined) ?? {};
  const email = text(attendee.email, 320) ?? text(answer(p, 'email'), 320);
  if (!email || !EMAIL.test(email)) throw bad('/payload/attendees/0/email', email ? 'is not an e-mail address' : 'is required');
  // Newer payloads split the name; the form's `name` may be a string or `{ firstName, lastName }`.
  const formName = answer(p, 'name');
  const full = text(attendee.name, 400) ?? text(formName, 400) ?? '';
  const space = full.indexOf(' ');
  const firstName = text(attendee.firstName, 200) ?? text(obj(formName)?.firstName, 200) ?? (space === -1 ? full : full.slice(0, space)).slice(0, 200);
  const lastName = text(attendee.lastName, 200) ?? text(obj(formName)?.lastName, 200) ?? (space === -1 ? '' : full.slice(space + 1).trim()).slice(0, 200);
  const metadata = obj(p.metadata) ?? {};
  return {
    trigger: trigger as BookingTrigger,
    uid,
    rescheduleUid: text(p.rescheduleUid, 200),
    startTime: instant(p, 'startTime'),
    endTime: instant(p, 'endTime'),
    firstName,
    lastName,
    email,
    phone: text(answer(p, 'attendeePhoneNumber'), 50) ?? text(attendee.phoneNumber, 50) ?? text(p.smsReminderNumber, 50),
    notes: text(p.additionalNotes, 5000) ?? text(answer(p, 'notes'), 5000),
    unit: text(metadata.unit, 200),
    cancellationReason: text(p.cancellationReason, 500),
  };
}

/** Calls Cal.com's booking page of `calUsername`: 200 (or a redirect to it) says it exists; nothing changes there. */
async function testPage(creds: Credentials, deps: VendorDeps): Promise<void> {
  const url = bookingPageUrl(deps.config.calUrl, creds.calUsername);
  if (!url) throw new VendorError(`${VENDOR}: calUsername is not a Cal.com link (letters, digits, '.', '_', '-', and '/' between parts)`);
  const page = await callVendor({
    method: 'GET',
    url,
    headers: { accept: 'text/html' },
    timeoutMs: deps.config.timeoutMs,
    allowPrivate: deps.allowPrivate,
    vendor: VENDOR,
  });
  if (page.status === 429) throw rateLimited(VENDOR, page, deps.clock.now());
  if (page.status === 404) throw new VendorError(`${VENDOR} has no booking page for calUsername (404): check the username`, 404);
  if ((page.status < 200 || page.status > 399) && page.status !== 304)
    throw new VendorError(`${VENDOR} did not show the booking page: it answered ${page.status}`, page.status);
}

/**
 * Cal.com: a "Book a visit" on the page and the unit sheet opening `calUsername`'s booking page (CAL_URL), and its
 * bookings as leads with source `booking`, their deliveries signed with `calKey` (the webhook's secret, which never
 * leaves the server: Cal.com is given it by the sales team, not by us). The test asks for the booking page.
 */
export const cal: Connector = {
  name: 'cal',
  label: VENDOR,
  fields: ['calUsername', 'calKey'],
  required: ['calUsername', 'calKey'],
  test: testPage,
};
