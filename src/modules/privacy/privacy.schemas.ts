import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../../http/schemas.ts';

/** POST /privacy/export and /privacy/erase: whose data, and optionally in which project only. */
export const BuyerRequest = Type.Object(
  {
    email: Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'The buyer’s e-mail address (any case)' }),
    project: Type.Optional({
      ...ObjectId,
      description: 'Only this project (its owner or administrators); without it every project the caller may read leads of',
    }),
  },
  { additionalProperties: false },
);
export type BuyerRequest = Static<typeof BuyerRequest>;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const BuyerDataSchema = Type.Object(
  {
    email: Type.String({ description: 'The address, lower-cased' }),
    exportedAt: DateTime,
    leads: Type.Array(Type.Ref('Lead'), { description: 'Enquiries and hold leads left with the address' }),
    waitlist: Type.Array(Type.Ref('Lead'), { description: 'Waitlist entries (leads with source "waitlist")' }),
    holds: Type.Array(
      Type.Object(
        {
          _id: ObjectId,
          project: ObjectId,
          unit: ObjectId,
          lead: Nullable(ObjectId),
          createdAt: DateTime,
          extendedAt: Nullable(DateTime),
          releasedAt: Nullable(DateTime),
        },
        { additionalProperties: false },
      ),
      { description: 'Holds placed with those leads' },
    ),
    worksheets: Type.Array(Type.Ref('Worksheet'), { description: 'Worksheets realtors submitted for the buyer' }),
    mail: Type.Array(
      Type.Object(
        {
          _id: Type.String({ description: 'The message id (stable across retries)' }),
          state: Type.String({ description: 'Where the message is: created or retry (queued), active, completed (sent or given up), failed…' }),
          to: Type.Array(Type.String()),
          subject: Type.String(),
          date: DateTime,
          text: Type.String({ description: 'The plain-text body' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Mail to or about the buyer the service still keeps (queued, or sent within the last 7 days)' },
    ),
    events: Type.Array(Type.Ref('Event'), { description: "Change-log events naming the buyer's leads and worksheets" }),
    webhookDeliveries: Type.Array(
      Type.Object(
        {
          _id: ObjectId,
          webhook: ObjectId,
          event: ObjectId,
          seq: Type.Integer(),
          status: Type.String(),
          createdAt: DateTime,
          deliveredAt: Nullable(DateTime),
        },
        { additionalProperties: false },
      ),
      { description: 'Webhook deliveries of those events (their payload is the event)' },
    ),
  },
  { $id: 'BuyerData', additionalProperties: false, description: 'Everything the service holds about one e-mail address' },
);

export const ErasureSchema = Type.Object(
  {
    erased: Type.Object(
      {
        leads: Type.Integer({ description: 'Enquiries and hold leads deleted' }),
        waitlist: Type.Integer({ description: 'Waitlist entries deleted' }),
        holds: Type.Integer({ description: 'Holds unlinked from the buyer (ended ones deleted; a running hold keeps its unit until it ends)' }),
        worksheets: Type.Integer({ description: 'Worksheets deleted' }),
        events: Type.Integer({ description: 'Change-log events redacted (only impersonal changes such as status remain)' }),
        webhookDeliveries: Type.Integer({ description: 'Webhook deliveries whose payload is now the redacted event' }),
        mail: Type.Integer({ description: 'Stored messages deleted (queued ones are never sent)' }),
        storedAnswers: Type.Integer({ description: 'Stored answers of public forms (kept for retries) forgotten' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'Erasure', additionalProperties: false, description: 'What an erasure removed, by kind' },
);
