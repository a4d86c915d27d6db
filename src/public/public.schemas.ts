import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../http/schemas.ts';
import { described } from '../modules/shared/described.ts';
import { LEAD_TEXT, LeadFields } from '../modules/leads/leads.schemas.ts';

/** The presentation bundle: GET /public/projects/{namespace} and /public/hosts/{hostName}. */
export const BundleSchema = Type.Object(
  {
    project: Type.Object(
      { _id: ObjectId, name: Type.String() },
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

/** The named schemas ($id) of this module: src/app-modules.ts adds them at the root, where every scope and /openapi.json see them. */
export const PUBLIC_SCHEMAS = [BundleSchema, PublicLeadInputSchema, HeldUnitSchema, PublicHoldSchema];

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Bundle = Static<typeof BundleSchema>;
export type PublicLeadInput = Static<typeof PublicLeadInputSchema>;
