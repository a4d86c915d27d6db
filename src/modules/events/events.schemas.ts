import { Type, type TSchema, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../../http/schemas.ts';

/**
 * Every event type, in the log's order (the order of the schemas in the OpenAPI document), with whether a visitor
 * sees it happen: `public` types reach the buyer's page through the live feed (with only their public fields), the
 * others stay with the project's team.
 */
const EVENT_VISIBILITY = {
  'project.updated': { public: false },
  'floor.created': { public: true },
  'floor.updated': { public: true },
  'floor.deleted': { public: true },
  'unit.created': { public: true },
  'unit.updated': { public: true },
  'unit.deleted': { public: true },
  'unit.held': { public: true },
  'unit.hold_expired': { public: true },
  'unit.hold_released': { public: true },
  'unit.hold_extended': { public: true },
  'lead.created': { public: false },
  'lead.updated': { public: false },
  'inventory.imported': { public: false },
  'worksheet.submitted': { public: false },
  'worksheet.accepted': { public: false },
  'worksheet.declined': { public: false },
  'deposit.pending': { public: false },
  'deposit.paid': { public: false },
  'deposit.expired': { public: false },
  'deposit.refunded': { public: false },
} as const satisfies Record<string, { public: boolean }>;

export type EventType = keyof typeof EVENT_VISIBILITY;
export const EVENT_TYPES = Object.keys(EVENT_VISIBILITY) as EventType[];
/** The types the buyer's page's live feed passes on. */
export const PUBLIC_EVENT_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES.filter((type) => EVENT_VISIBILITY[type].public));

export const ActorSchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('user'), Type.Literal('public'), Type.Literal('sync'), Type.Literal('system')], {
      description:
        'user: a signed-in account (id), also for an uploaded import; public: an anonymous visitor; sync: an inventory feed pull; system: the service itself (hold expiry)',
    }),
    id: Type.Optional(
      Type.String({ description: 'The user id: for kind user; for kind sync the user who asked for the pull through the API (absent for the schedule)' }),
    ),
  },
  { $id: 'EventActor', additionalProperties: false },
);

export const ChangesSchema = Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2 }), {
  $id: 'EventChanges',
  description:
    'field → [before, after]; null for absent. A secret is named with "***" for a value: [null, "***"] set, ["***", "***"] replaced, ["***", null] cleared.',
});

const DESCRIPTIONS: Record<EventType, string> = {
  'project.updated': 'Project fields changed (secrets by name only)',
  'floor.created': 'A floor was created: changes hold every field from null',
  'floor.updated': 'A floor changed',
  'floor.deleted': 'A floor and its units were deleted',
  'unit.created': 'A unit was created: changes hold every field from null',
  'unit.updated': 'A unit changed',
  'unit.deleted': 'A unit was deleted',
  'unit.held':
    'A visitor put an available unit on hold (actor public), or the priority list offered a unit that came free to the first in its waiting list (actor system)',
  'unit.hold_expired': 'A hold lapsed and was written back as available (actor system)',
  'unit.hold_released': 'The holder released a hold with its hold token: the unit is available again (actor public)',
  'unit.hold_extended': 'The holder extended a hold once with its hold token: changes hold the old and new onHoldExpiresAt (actor public)',
  'lead.created': 'A lead arrived (owner and administrators only): changes hold its fields from null',
  'lead.updated': "The sales team changed a lead's status, notes or assignee (owner and administrators only)",
  'worksheet.submitted':
    'A realtor submitted a worksheet through their allocation (owner and administrators only): changes hold its allocation, buyer, choices and notes from null',
  'worksheet.accepted':
    'The sales team accepted a worksheet (owner and administrators only): changes hold status and unit; the unit turned reserved in the same transaction (its unit.updated just before)',
  'worksheet.declined': 'The sales team declined a worksheet (owner and administrators only): changes hold status',
  'deposit.pending':
    "A hold asked for a deposit: a Stripe Checkout Session was created on the owner's account (actor public); changes hold status, amount (minor units), currency, unit and lead",
  'deposit.paid':
    'Stripe confirmed the deposit paid (actor system): changes hold status; the unit turned reserved in the same transaction (its unit.updated just before)',
  'deposit.expired': 'The payment window lapsed, the buyer left Checkout, or Stripe expired the session (actor system): changes hold status',
  'deposit.refunded': 'The owner or an administrator refunded a paid deposit at Stripe (actor user): changes hold status',
  'inventory.imported':
    'An import or feed pull was applied (actor user for an upload, sync for a feed pull): `_id` is its record in GET /projects/{id}/inventory/syncs; changes hold its source, status, startedAt, finishedAt and summary from null. The floors and units it wrote have their own events (floor.created, unit.created, unit.updated) just before it, in the same transaction',
};

/** `UnitUpdatedEvent` for unit.updated. */
export const eventSchemaName = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('') + 'Event';

const deletes = (type: string) => type.endsWith('.deleted');

/** One schema per event type. */
export const EVENT_SCHEMAS: TSchema[] = EVENT_TYPES.map((type) =>
  Type.Object(
    {
      id: ObjectId,
      seq: Type.Integer({ minimum: 1, description: "Position in the project's log: 1, 2, 3, … in commit order, no gaps" }),
      type: Type.Literal(type),
      projectId: ObjectId,
      createdAt: DateTime,
      actor: Type.Ref('EventActor'),
      data: Type.Object(
        {
          _id: { ...ObjectId, description: 'The record the event is about' },
          ...(deletes(type) ? {} : { changes: Type.Optional(Type.Ref('EventChanges')) }),
          batch: Type.Optional({
            ...ObjectId,
            description:
              'Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one',
          }),
        },
        { additionalProperties: false },
      ),
    },
    { $id: eventSchemaName(type), description: DESCRIPTIONS[type], additionalProperties: false },
  ),
);

export const EventSchema = Type.Union(
  EVENT_TYPES.map((t) => Type.Ref(eventSchemaName(t))),
  { $id: 'Event', description: 'One entry of a project change log; `type` tells which' },
);

export const EventListQuery = Type.Object(
  {
    after: Type.Integer({ minimum: 0, default: 0, description: 'Events after this seq (0: from the start)' }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  },
  { additionalProperties: false },
);

export const HistoryQuery = Type.Object(
  {
    before: Type.Optional(Type.Integer({ minimum: 1, description: 'Changes before this seq (the next page)' })),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  },
  { additionalProperties: false },
);

export const HistoryEntry = Type.Object(
  {
    seq: Type.Integer({ minimum: 1 }),
    type: Type.String({
      description: 'The event type (unit.created, unit.updated, unit.held, unit.hold_expired, unit.hold_released, unit.hold_extended)',
      examples: ['unit.updated'],
    }),
    at: DateTime,
    actor: Type.Ref('EventActor'),
    changes: Type.Optional(Type.Ref('EventChanges')),
  },
  { additionalProperties: false },
);

export const ALL_EVENT_SCHEMAS: TSchema[] = [ActorSchema, ChangesSchema, ...EVENT_SCHEMAS, EventSchema];

/** Events of a project's change log, as GET /projects/{id}/events lists them. */
export const EventArray = Type.Array(Type.Ref('Event'));

/** A record's history, as its history route lists it. */
export const HistoryArray = Type.Array(HistoryEntry);

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Actor = Static<typeof ActorSchema>;
export type Changes = Static<typeof ChangesSchema>;
export type Event = Static<typeof EventSchema>;
export type EventListQuery = Static<typeof EventListQuery>;
export type HistoryQuery = Static<typeof HistoryQuery>;
