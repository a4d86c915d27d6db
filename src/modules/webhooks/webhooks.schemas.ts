import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { EVENT_TYPES } from '../events/events.schemas.ts';

const EventName = Type.Union([...EVENT_TYPES.map((t) => Type.Literal(t)), Type.Literal('*')], { description: 'An event type, or * for all' });
const EventNames = Type.Array(EventName, { minItems: 1, maxItems: 20, uniqueItems: true, examples: [['unit.updated', 'lead.created']] });
const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'http(s) URL; loopback, private and other non-public addresses are refused, in any spelling, unless ALLOW_PRIVATE_TARGETS=true',
  examples: ['https://crm.example.com/hooks/showsuite'],
});
const Description = Type.String({ maxLength: 500 });

export const WebhookSchema = Type.Object(
  {
    _id: ObjectId,
    __v: Version,
    project: ObjectId,
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Type.Optional(Type.String()),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Webhook', additionalProperties: false },
);

export const CreatedWebhook = Type.Object(
  {
    ...WebhookSchema.properties,
    secret: Type.String({ pattern: '^whsec_', description: 'The signing secret: shown only in this answer. Verify deliveries with it (docs/events.md).' }),
  },
  { additionalProperties: false },
);

const Attempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    at: DateTime,
    responseStatus: Type.Optional(Type.Integer({ description: "The receiver's answer code" })),
    error: Type.Optional(Type.String()),
    durationMs: Type.Integer(),
    manual: Type.Optional(Type.Boolean({ description: 'Asked for through POST …/retry' })),
  },
  { additionalProperties: false },
);

export const DeliverySchema = Type.Object(
  {
    _id: ObjectId,
    event: Type.Object({ id: ObjectId, seq: Type.Integer(), type: Type.String() }, { additionalProperties: false }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
      description: 'pending: not yet answered 2xx (retries scheduled); delivered; failed: given up after 24 h',
    }),
    createdAt: DateTime,
    deliveredAt: Type.Optional(DateTime),
    attempts: Type.Array(Attempt),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

export const WEBHOOK_SCHEMAS = [WebhookSchema, DeliverySchema];

export const ProjectParams = Type.Object({ id: ObjectId }, { additionalProperties: false });
export const HookParams = Type.Object({ id: ObjectId, hookId: ObjectId }, { additionalProperties: false });
export const DeliveryParams = Type.Object({ id: ObjectId, hookId: ObjectId, deliveryId: ObjectId }, { additionalProperties: false });

export const WebhookCreateBody = Type.Object({ url: Url, events: EventNames, description: Type.Optional(Description) }, { additionalProperties: false });

export const WebhookPatchBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(EventNames), description: Type.Optional(Type.Union([Description, Type.Null()])) },
  { additionalProperties: false },
);

export const DeliveriesQuery = Type.Object(
  { before: Type.Optional(Type.Integer({ minimum: 1 })), limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }) },
  { additionalProperties: false },
);

/** A project's webhooks. */
export const WebhookArray = Type.Array(Type.Ref('Webhook'));

/** A webhook's deliveries, newest first. */
export const WebhookDeliveryArray = Type.Array(Type.Ref('WebhookDelivery'));

export type WebhookCreate = Static<typeof WebhookCreateBody>;
export type WebhookPatch = Static<typeof WebhookPatchBody>;
export type DeliveriesPage = Static<typeof DeliveriesQuery>;
