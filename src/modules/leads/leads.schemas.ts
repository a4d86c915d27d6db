import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { described, describedRecord } from '../shared/described.ts';
import { optional } from '../shared/fields.ts';
import { ListOptions, UpdatedSince } from '../shared/list.ts';

const Short = (max: number) => Type.String({ maxLength: max });

/** How a sales team files a lead. */
export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'lost'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** A lead's notes: room for a long sales history, bounded. */
export const LeadNotes = Type.String({ maxLength: 20_000 });

/** The campaign that brought the visitor: the `utm_*` parameters of the page's address, as the page read them. */
export const LeadUtm = Type.Object(
  {
    source: Type.Optional(Short(200)),
    medium: Type.Optional(Short(200)),
    campaign: Type.Optional(Short(200)),
    term: Type.Optional(Short(200)),
    content: Type.Optional(Short(200)),
  },
  {
    additionalProperties: false,
    description: "The campaign that brought the visitor (`utm_source`, `utm_medium`, … of the page's address); sent on to the project's CRMs",
  },
);

/** Where a lead was sent: one entry per CRM, the latest push (docs/integrations.md). */
export const LeadSentTo = Type.Array(
  Type.Object(
    {
      integration: Type.String({ description: 'spark, salesforce or zoho', examples: ['salesforce'] }),
      at: Type.String({ format: 'date-time', description: 'When the CRM last accepted the lead (created, then each update)' }),
      externalId: Type.String({ description: "The lead's id in that CRM", examples: ['00Q5g00000AbCdEEAZ'] }),
    },
    { additionalProperties: false },
  ),
  {
    description:
      'Where the lead was sent and when: one entry per CRM of the project (Spark, Salesforce, Zoho CRM), the latest push. Absent until a CRM accepts it; a push waits and retries while the CRM is down, so a lead is never lost or sent twice',
  },
);

/** A lead as clients see it (GET /leads) and as visitors send it (bounded; see docs/public-api.md). */
export const LeadFields = {
  firstName: Short(200),
  lastName: Short(200),
  email: Type.String({ format: 'email', maxLength: 320 }),
  phone: Short(50),
  unit: Short(200),
  message: Short(5000),
  source: Short(200),
  questions: Type.Array(Type.Object({ question: Short(1000), answer: Short(5000) }, { additionalProperties: false }), { maxItems: 50 }),
  customFields: Type.Array(Type.Object({ key: Short(200), value: Short(5000) }, { additionalProperties: false }), { maxItems: 50 }),
  utm: LeadUtm,
};

/** What a lead's fields mean, as a stored lead and as an input alike. */
export const LEAD_TEXT = {
  email: 'E-mail address',
  phone: 'Phone number',
  unit: 'Unit associated with the lead (as the visitor sent it; a hold names the unit by id)',
  source: 'Where the lead came from (`presentation`, `hold`, `waitlist`, `booking`, …)',
  questions: 'Answers to the lock-screen questions',
  customFields: "Answers to the project's custom form fields",
};
/** A stored lead's times, and a lead's sent back. */
const LEAD_TIMES_TEXT = { createdAt: 'When the lead was left', updatedAt: 'Equal to createdAt: a lead never changes' };

/**
 * A stored lead as GET /leads answers it. The server's fields are always there, and so are the visitor's name,
 * e-mail and `source`: every way a lead is made (POST /public/leads, a hold, the waitlist) requires the first
 * three and sets the fourth. Property order is the CSV export's column order.
 */
export const LeadSchema = Type.Object(
  describedRecord(
    {
      _id: Type.String(),
      __v: Version,
      project: Type.String(),
      ...LeadFields,
      phone: Type.Optional(LeadFields.phone),
      unit: Type.Optional(LeadFields.unit),
      message: Type.Optional(LeadFields.message),
      questions: Type.Optional(LeadFields.questions),
      customFields: Type.Optional(LeadFields.customFields),
      utm: Type.Optional(LeadFields.utm),
      sentTo: Type.Optional(LeadSentTo),
      status: Type.Union(
        LEAD_STATUSES.map((s) => Type.Literal(s)),
        { description: 'Where the sales team is with this lead: new (when it arrives), contacted, qualified or lost' },
      ),
      assignee: Type.Union([ObjectId, Type.Null()], { description: "The member of the project's team working this lead, or null" }),
      notes: Type.Union([LeadNotes, Type.Null()], { description: "The sales team's notes (never shown to the visitor), or null" }),
      rank: Type.Optional(
        Type.Integer({ minimum: 1, description: "A waitlist entry for a unit: its place in the unit's waiting list (1 is first); see the priority list" }),
      ),
      offeredAt: Type.Optional(
        Type.String({ format: 'date-time', description: 'A waitlist entry the priority list has offered its unit to (a priority hold): when' }),
      ),
      deposit: Type.Optional(
        Type.Object(
          {
            _id: Type.String({ description: 'The deposit (GET /projects/{id}/deposits)' }),
            status: Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('expired'), Type.Literal('refunded')]),
            amount: Type.Integer({ description: "In the currency's minor unit (cents)" }),
            currency: Type.String({ description: 'Lower-case ISO 4217' }),
            paidAt: Type.Optional(
              Type.String({ format: 'date-time', description: 'When Stripe confirmed it paid (a deposit paid, or paid and then refunded)' }),
            ),
          },
          { additionalProperties: false, description: 'A lead made with a hold that took a deposit: where the deposit stands' },
        ),
      ),
      booking: Type.Optional(
        Type.Object(
          {
            uid: Type.String({ description: "Cal.com's uid of the booking (after a reschedule, the new booking's)" }),
            status: Type.Union([Type.Literal('booked'), Type.Literal('rescheduled'), Type.Literal('cancelled')]),
            startTime: Type.Optional(Type.String({ format: 'date-time', description: 'When the visit starts' })),
            endTime: Type.Optional(Type.String({ format: 'date-time', description: 'When it ends' })),
            cancellationReason: Type.Optional(Type.String({ maxLength: 500, description: 'Cancelled: the reason the attendee gave, if any' })),
          },
          {
            additionalProperties: false,
            description: 'A lead with source `booking` (a visit booked through Cal.com): the visit, kept current as Cal.com reports it',
          },
        ),
      ),
      createdAt: DateTime,
      updatedAt: DateTime,
      holdState: Type.Optional(
        Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('converted')], {
          description:
            'A lead made with a hold (GET /leads): `active` while the hold still holds its unit, `converted` when the unit is now reserved or sold and no later hold was placed on it, else `expired` (lapsed, released, or taken by someone else). Absent for a lead without a hold',
        }),
      ),
      holdUntil: Type.Optional(Type.String({ format: 'date-time', description: 'With holdState `active`: when the hold lapses unless extended' })),
      contactCount: Type.Optional(
        Type.Integer({
          minimum: 1,
          description:
            'GET /leads: how many leads the same e-mail (any case) has left on the same project, this one included; more than 1 is a repeat contact, whose history `filters[email]` lists',
        }),
      ),
    },
    { ...LEAD_TEXT, ...LEAD_TIMES_TEXT },
  ),
  { $id: 'Lead', additionalProperties: false },
);

/** A lead as a Project PATCH may carry it in `leads` (accepted and ignored): every field optional, as sent back. */
export const LeadInputSchema = Type.Object(
  described(
    {
      _id: Type.Optional(Type.String()),
      __v: Type.Optional(Version),
      project: Type.Optional(Type.String()),
      ...optional(LeadFields),
      status: Type.Optional(Type.String()),
      assignee: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      notes: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      rank: Type.Optional(Type.Integer({ minimum: 1 })),
      offeredAt: Type.Optional(DateTime),
      sentTo: Type.Optional(LeadSentTo),
      createdAt: Type.Optional(DateTime),
      updatedAt: Type.Optional(DateTime),
    },
    { ...LEAD_TEXT, ...LEAD_TIMES_TEXT },
  ),
  { $id: 'LeadInput', additionalProperties: false },
);

/** A lead's status, as a filter and in a PATCH. */
const Status = Type.Union(
  LEAD_STATUSES.map((s) => Type.Literal(s)),
  { description: 'new, contacted, qualified or lost' },
);

/** A date (`2026-03-01`: the whole day, UTC) or a date-time. */
const DateOrTime = (description: string) => Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })], { description });

/** GET /leads `filters[…]`: each narrows the list. */
const LeadFilters = Type.Object(
  {
    updatedSince: Type.Optional(UpdatedSince),
    q: Type.Optional(Type.String({ maxLength: 200, description: 'A substring of the name ("first last"), e-mail or phone, any case' })),
    status: Type.Optional(Status),
    unit: Type.Optional(Type.String({ maxLength: 200, description: 'The `unit` the lead names, exactly' })),
    source: Type.Optional(Type.String({ maxLength: 200, description: 'The `source`, exactly (presentation, hold, waitlist, …)' })),
    assignee: Type.Optional({ ...ObjectId, description: 'Leads assigned to this user' }),
    createdFrom: Type.Optional(DateOrTime('Leads made at or after this time (a date: from its start, UTC)')),
    createdTo: Type.Optional(DateOrTime('Leads made at or before this time (a date: to its end, UTC)')),
    email: Type.Optional(
      Type.String({ maxLength: 320, description: "One person's leads: this e-mail address exactly, any case (a repeat contact's history)" }),
    ),
  },
  { additionalProperties: false },
);

/** GET /leads: one project or all the caller may read, filtered, paged and sorted; as JSON, CSV or XLSX. */
export const LeadsQuery = Type.Object(
  {
    project: Type.Optional({ ...ObjectId, description: "One project's leads; without it, the leads of every project whose leads the caller may read" }),
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('csv'), Type.Literal('xlsx')], {
        description: 'csv: the same list as RFC 4180 CSV (as `Accept: text/csv`); xlsx: as an Excel workbook (as the XLSX `Accept`)',
      }),
    ),
    filters: Type.Optional(LeadFilters),
    options: Type.Optional(ListOptions),
    tz: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'An export (csv, xlsx) for people: with an IANA time zone (`America/Toronto`, `UTC`), `project`, `unit` and `assignee` are written as names (a member by name, else e-mail), times as `YYYY-MM-DD HH:mm` in that zone, and a last column `timeZone` names it. Without it the export holds ids and ISO 8601 UTC times. Ignored for JSON',
      }),
    ),
  },
  { additionalProperties: false },
);

/** PATCH /leads/{id}: what the sales team works on a lead; the visitor's own fields never change. */
export const LeadPatchBody = Type.Object(
  {
    status: Type.Optional(Status),
    notes: Type.Optional(Type.Union([LeadNotes, Type.Null()], { description: 'Text; null clears' })),
    assignee: Type.Optional(
      Type.Union([ObjectId, Type.Null()], { description: "A user of the project's team (owner, administrator, editor); null unassigns" }),
    ),
    rank: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100000,
        description:
          "A waitlist entry's place in its unit's waiting list (1 is first; past the end is last; the others close up), with the project's specialRankEnabled (else 403); a lead that is no waitlist entry for a unit → 400",
      }),
    ),
  },
  { additionalProperties: false },
);

/** A list of stored leads (GET /leads as JSON). */
export const LeadArray = Type.Array(Type.Ref('Lead'));

/** A waitlist sign-up as the interface's project record embeds it (`waitlistees`), with the lead's id to work it by. */
export const WaitlisteeArray = Type.Array(
  Type.Object(
    {
      _id: Type.String({ description: "The sign-up's lead (PATCH /leads/{id}: its status, notes, rank)" }),
      firstName: Type.Optional(Type.String()),
      lastName: Type.Optional(Type.String()),
      email: Type.Optional(Type.String()),
      phone: Type.Optional(Type.String()),
      unit: Type.Optional(Type.String({ description: 'The unit asked about, when the sign-up named one' })),
      createdAt: Type.String({ format: 'date-time', description: 'When the visitor signed up' }),
    },
    { additionalProperties: false },
  ),
  { maxItems: 1000 },
);

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Lead = Static<typeof LeadSchema>;
export type LeadInput = Static<typeof LeadInputSchema>;
