import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../../http/schemas.ts';
import { INTEGRATION_NAMES } from './connector.ts';

const Name = Type.Union(
  INTEGRATION_NAMES.map((n) => Type.Literal(n)),
  { description: 'spark, salesforce, zoho (CRMs), rentcafe (inventory), cal (scheduling)' },
);

export const ProjectParams = Type.Object({ id: ObjectId }, { additionalProperties: false });
export const IntegrationParams = Type.Object({ id: ObjectId, name: Name }, { additionalProperties: false });

/** One integration of a project as last seen: never a credential, only whether they are complete. */
export const IntegrationStateSchema = Type.Object(
  {
    name: Name,
    label: Type.String({ description: "The vendor's name", examples: ['Salesforce'] }),
    fields: Type.Array(Type.String(), { description: 'Its project fields (the sealed ones are set through the project, never shown)' }),
    complete: Type.Boolean({ description: 'Every field it needs is set: it acts (a CRM is sent every lead)' }),
    crm: Type.Boolean({ description: 'A CRM: every lead is pushed to it and updated there' }),
    testable: Type.Boolean({ description: 'POST …/test calls the vendor (false: its connection test is not available yet)' }),
    connected: Type.Boolean({ description: 'The last call to the vendor (a test or a push) worked' }),
    lastSuccessAt: Type.Optional({ ...DateTime, description: 'When a call to the vendor last worked' }),
    lastError: Type.Optional(Type.String({ description: 'What went wrong at the last failure, in words (never a credential)' })),
    lastErrorAt: Type.Optional({ ...DateTime, description: 'When that failure happened' }),
  },
  { $id: 'IntegrationState', additionalProperties: false },
);

export const IntegrationStateArray = Type.Array(Type.Ref('IntegrationState'));

/** The project a bookings address names. */
export const BookingParams = Type.Object(
  { namespace: Type.String({ maxLength: 63, description: "The project's namespace: the slug of its public page" }) },
  { additionalProperties: false },
);

export const CalSignatureHeaders = Type.Object({
  'x-cal-signature-256': Type.Optional(
    Type.String({ maxLength: 200, description: "Cal.com's signature: the hex HMAC-SHA256 of the raw body with the webhook's secret (the project's calKey)" }),
  ),
});

/** A delivery of Cal.com's webhook (payload version 2021-10-20), as far as a lead reads it; the rest is accepted and ignored. */
export const CalDeliveryBody = Type.Object(
  {
    triggerEvent: Type.Optional(
      Type.String({ description: 'BOOKING_CREATED, BOOKING_RESCHEDULED and BOOKING_CANCELLED are followed; any other trigger is acknowledged and ignored' }),
    ),
    createdAt: Type.Optional(Type.String()),
    payload: Type.Optional(
      Type.Object(
        {
          uid: Type.Optional(
            Type.String({ description: "The booking's uid: one lead per booking (a reschedule's new uid joins the lead of `rescheduleUid`)" }),
          ),
          rescheduleUid: Type.Optional(Type.String({ description: 'BOOKING_RESCHEDULED: the uid of the booking it replaces' })),
          startTime: Type.Optional(Type.String({ description: "The visit, as the lead's `booking.startTime`" })),
          endTime: Type.Optional(Type.String()),
          attendees: Type.Optional(
            Type.Array(Type.Object({}, { additionalProperties: true }), {
              description: 'The first is the lead: `name` (or `firstName`, `lastName`), `email` (required), `phoneNumber`',
            }),
          ),
          responses: Type.Optional(
            Type.Object({}, { additionalProperties: true, description: 'The booking form: `attendeePhoneNumber.value` is the phone when given' }),
          ),
          additionalNotes: Type.Optional(Type.String({ description: "The attendee's notes: the lead's message" })),
          metadata: Type.Optional(
            Type.Object({}, { additionalProperties: true, description: "As the page passed it: `unit` (a unit id of the project) becomes the lead's unit" }),
          ),
          cancellationReason: Type.Optional(Type.String()),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true, description: "Cal.com's webhook body, signed with the project's calKey" },
);

export const BookingAck = Type.Object(
  {
    received: Type.Literal(true),
    outcome: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('duplicate'), Type.Literal('ignored')], {
      description:
        'created: a new lead (also from a cancellation arriving before its booking, already cancelled); updated: the lead of the booking moved or cancelled; duplicate: this delivery had been handled before (nothing changed); ignored: a trigger a lead does not follow, or a booking whose lead is gone',
    }),
    lead: Type.Optional({ ...ObjectId, description: 'The lead the booking made or changed' }),
  },
  { additionalProperties: false },
);

export const INTEGRATION_SCHEMAS = [IntegrationStateSchema];

export type IntegrationState = Static<typeof IntegrationStateSchema>;
