import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DateTime, IdempotencyKeyHeader, ObjectId } from '../http/schemas.ts';
import { described } from '../modules/shared/described.ts';
import { LEAD_TEXT, LeadFields } from '../modules/leads/leads.schemas.ts';
import { AllocationTokenHeader } from '../modules/allocations/token-header.ts';
import { PREVIEW_PARAM } from '../modules/projects/drafts.ts';

/** The presentation bundle: GET /public/projects/{namespace} and /public/hosts/{hostName}. */
export const BundleSchema = Type.Object(
  {
    project: Type.Object(
      {
        _id: ObjectId,
        name: Type.String(),
        deposits: Type.Boolean({
          description:
            "Whether a hold on this project may ask for a deposit: payments are configured on the server and the owner's Stripe account is onboarded. False: the page says nothing of a deposit",
        }),
        bookingUrl: Type.Optional(
          Type.String({
            format: 'uri',
            description:
              'The Cal.com booking page of the project\'s `calUsername` (at the server\'s CAL_URL), where "Book a visit" sends a visitor; absent without one. The username itself is not in the bundle',
          }),
        ),
      },
      { additionalProperties: true, description: 'Public Project fields (see docs/public-api.md for what is left out)' },
    ),
    floors: Type.Array(
      Type.Object(
        {
          _id: ObjectId,
          name: Type.String(),
          position: Type.Number(),
          units: Type.Array(Type.Ref('Unit')),
          soldShapes: Type.Optional(
            Type.Array(Type.String(), {
              description: 'When the project hides sold units: the plan shapes (SVG path data) of its sold units, to draw as sold; nothing names those units',
            }),
          ),
          soldPositions: Type.Optional(
            Type.Array(Type.Number(), {
              description: "With soldShapes: each hidden sold unit's position on its floor (the same order), so a page draws it in its place among the units",
            }),
          ),
        },
        { additionalProperties: true },
      ),
      { description: 'Floors in position order, each with its units in position order' },
    ),
    unassignedUnits: Type.Array(Type.Ref('Unit'), { description: 'Units not placed on a floor' }),
  },
  { $id: 'Bundle', additionalProperties: false },
);

/** The hold token in a path: 43 base64url characters (256 random bits). */
export const HoldTokenParams = Type.Object({
  holdToken: Type.String({
    pattern: '^[A-Za-z0-9_-]{43}$',
    example: 'pX2o9Vq4Zr8yTnK1cW6dLmB3sHj7uQe0aFgYiRtUv5w',
    description: 'The hold token from the hold answer or the holder’s e-mail',
  }),
});

/** The answer to a hold: the unit as the bundle shows it, and the hold's token (returned only here and in the holder's e-mail). */
export const HeldUnitSchema = Type.Intersect(
  [
    Type.Ref('Unit'),
    Type.Object({
      holdToken: Type.String({
        description:
          'A secret for this hold alone (256 random bits, base64url): GET, DELETE /public/holds/{holdToken} and POST …/extend. The server keeps only its hash',
      }),
      payment: Type.Optional(
        Type.Ref('PaymentOffer', {
          description:
            "Only on a project taking deposits (its owner's Stripe account onboarded, a deposit above zero for this unit): the deposit asked for. The unit is held for the payment window (DEPOSIT_WINDOW_MINUTES) instead of onHoldMinsDuration",
        }),
      ),
    }),
  ],
  { $id: 'HeldUnit', description: 'The unit now on hold, with the hold token' },
);

/** What the holder of a hold token sees: GET /public/holds/{holdToken} (and, with onHoldExpiresAt, POST …/extend). */
export const PublicHoldSchema = Type.Object(
  {
    unit: Type.Ref('Unit', { description: 'The held unit as the bundle shows it (availability on_hold, its onHoldExpiresAt)' }),
    project: Type.Object(
      { _id: ObjectId, name: Type.String(), namespace: Type.Optional(Type.String({ description: 'The page is at /p/{namespace}' })) },
      { additionalProperties: false, description: 'The project of the unit' },
    ),
    expiresAt: DateTime,
    extended: Type.Boolean({ description: 'Whether the one extension has been used' }),
    onHoldExpiresAt: Type.Optional({ ...DateTime, description: 'In the answer to an extension: the new expiry (the same as expiresAt)' }),
  },
  { $id: 'PublicHold', additionalProperties: false },
);

/** Who a visitor is: asked once by every public form (enquiry, hold, waitlist). */
export const Visitor = {
  firstName: Type.String({ minLength: 1, maxLength: 200 }),
  lastName: Type.String({ minLength: 1, maxLength: 200 }),
  email: LeadFields.email,
  phone: Type.String({ minLength: 3, maxLength: 50 }),
};

/** Registered by $id (src/app-modules.ts), so the document names it as the input of POST /public/leads. */
export const PublicLeadInputSchema = Type.Object(
  described(
    {
      project: Type.Optional(ObjectId),
      namespace: Type.Optional(Type.String({ maxLength: 63 })),
      ...Visitor,
      unit: Type.Optional(LeadFields.unit),
      message: Type.Optional(LeadFields.message),
      source: Type.Optional(LeadFields.source),
      questions: Type.Optional(LeadFields.questions),
      customFields: Type.Optional(LeadFields.customFields),
      utm: Type.Optional(LeadFields.utm),
    },
    {
      ...LEAD_TEXT,
      project: 'The project the enquiry is for, by id (or name it by `namespace`)',
      namespace: 'The project the enquiry is for, by namespace: the slug of its public page (or name it by `project`)',
      source: 'Where the lead came from (default `presentation`)',
    },
  ),
  {
    $id: 'PublicLeadInput',
    additionalProperties: false,
    description:
      'An enquiry as a visitor sends it. The project is named by `project` (its id) or `namespace`: one of the two is required; when both are sent, `project` decides.',
  },
);

/** A field's schema with the words that say what it holds. */
const saying = <T extends TSchema>(schema: T, description: string): T => ({ ...schema, description });

/** The visitor's fields with their words, for the answers that echo them. */
const VisitorDescribed = {
  firstName: saying(Visitor.firstName, 'First name'),
  lastName: saying(Visitor.lastName, 'Last name'),
  email: saying(Visitor.email, LEAD_TEXT.email),
  phone: saying(Visitor.phone, LEAD_TEXT.phone),
};

/** A project's namespace in a public path: the slug of its page. */
export const NamespaceParams = Type.Object({ namespace: Type.String({ maxLength: 63, description: "The project's namespace: the slug of its public page" }) });

/** A project's own host name in a public path. */
export const HostNameParams = Type.Object({ hostName: Type.String({ maxLength: 253, description: 'A host name the project is served on (its `hostName`)' }) });

/** The `preview` query of a public route keyed by a project: opens a draft. */
export const PreviewQuery = Type.Object({ preview: Type.Optional(Type.Unsafe<string>(PREVIEW_PARAM)) });

/** What a page sends when it asks for the bundle again: the ETag it has, and the realtor's allocation if any. */
export const BundleHeaders = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'The ETag of the bundle the page has: unchanged → 304 with no body' })),
  'x-allocation-token': Type.Optional(AllocationTokenHeader),
});

/** A hold's headers: its `Idempotency-Key`, and the realtor's allocation if any. */
export const HoldHeaders = Type.Object({
  'idempotency-key': Type.Optional(IdempotencyKeyHeader),
  'x-allocation-token': Type.Optional(AllocationTokenHeader),
});

/** POST /public/units/{id}/hold: who holds the unit. */
export const HoldBody = Type.Object({ ...Visitor, utm: Type.Optional(LeadFields.utm) }, { additionalProperties: false });

/** POST /public/leads: the input schema by reference (the document names it), typed as that schema. */
export const PublicLeadBody = Type.Unsafe<Static<typeof PublicLeadInputSchema>>(Type.Ref('PublicLeadInput'));

/** The enquiry as stored, as POST /public/leads answers it. */
export const PublicLeadSchema = Type.Object(
  {
    _id: ObjectId,
    project: ObjectId,
    ...VisitorDescribed,
    unit: Type.Optional(Type.String({ description: LEAD_TEXT.unit })),
    message: Type.Optional(Type.String({ description: 'Message' })),
    source: Type.Optional(Type.String({ description: LEAD_TEXT.source })),
    questions: Type.Optional(saying(LeadFields.questions, LEAD_TEXT.questions)),
    customFields: Type.Optional(saying(LeadFields.customFields, LEAD_TEXT.customFields)),
    utm: Type.Optional(LeadFields.utm),
    createdAt: saying(DateTime, 'When the lead was left'),
    updatedAt: saying(DateTime, 'When the lead last changed: in this answer, its createdAt'),
  },
  { additionalProperties: false },
);

/** Who joins a waitlist: bounds as for POST /public/leads, except that the phone is optional. */
const Waitlistee = {
  ...VisitorDescribed,
  phone: Type.Optional(VisitorDescribed.phone),
  unit: Type.Optional(saying(LeadFields.unit, 'The unit asked about')),
};

/** POST /public/waitlist: the project (by id or namespace), the visitor and what they ask about. */
export const WaitlistBody = Type.Object(
  {
    project: Type.Optional(ObjectId),
    namespace: Type.Optional(Type.String({ maxLength: 63, description: 'The project, by namespace: the slug of its public page (or name it by `project`)' })),
    ...Waitlistee,
    message: Type.Optional(saying(LeadFields.message, 'Message')),
    customFields: Type.Optional(saying(LeadFields.customFields, LEAD_TEXT.customFields)),
    utm: Type.Optional(LeadFields.utm),
  },
  { additionalProperties: false },
);

/** The waitlist entry as stored (a lead with source "waitlist"), as POST /public/waitlist answers it. */
export const WaitlistLeadSchema = Type.Object(
  {
    _id: ObjectId,
    project: ObjectId,
    ...Waitlistee,
    message: Type.Optional(Type.String({ description: 'Message' })),
    customFields: Type.Optional(saying(LeadFields.customFields, LEAD_TEXT.customFields)),
    utm: Type.Optional(LeadFields.utm),
    source: Type.Literal('waitlist', { description: 'Always `waitlist`' }),
    rank: Type.Optional(Type.Integer({ minimum: 1, description: "For an entry about a unit: its place in that unit's waiting list (1 is first), by arrival" })),
    createdAt: saying(DateTime, 'When the entry was left'),
    updatedAt: saying(DateTime, 'When the entry last changed: in this answer, its createdAt'),
  },
  { additionalProperties: false },
);

/** The last event a live feed's client has seen (query or header): the stream resumes after it. */
const LastEventId = Type.String({ pattern: '^[0-9]{1,15}$', description: 'The last `id:` received: the stream resumes after it' });

/** GET /public/projects/{namespace}/events: where to resume, and a draft's preview token. */
export const StreamQuery = Type.Object(
  { lastEventId: Type.Optional(LastEventId), preview: Type.Optional(Type.Unsafe<string>(PREVIEW_PARAM)) },
  { additionalProperties: false },
);

/** The header browsers send when they reconnect to a live feed. */
export const StreamHeaders = Type.Object({ 'last-event-id': Type.Optional(LastEventId) });

/** The named schemas ($id) of this module: src/app-modules.ts adds them at the root, where every scope and /openapi.json see them. */
export const PUBLIC_SCHEMAS = [BundleSchema, PublicLeadInputSchema, HeldUnitSchema, PublicHoldSchema];

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Bundle = Static<typeof BundleSchema>;
export type PublicLeadInput = Static<typeof PublicLeadInputSchema>;
