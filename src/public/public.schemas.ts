import { Type, type Static } from '@sinclair/typebox';
import { ObjectId } from '../http/schemas.ts';
import { LeadFields } from '../modules/shared/fields.ts';

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

/** Who a visitor is: asked once by every public form (enquiry, hold, waitlist). */
export const Visitor = {
  firstName: Type.String({ minLength: 1, maxLength: 200 }),
  lastName: Type.String({ minLength: 1, maxLength: 200 }),
  email: LeadFields.email,
  phone: Type.String({ minLength: 3, maxLength: 50 }),
};

/** Registered by $id (src/app-modules.ts), so the document names it as the input of POST /public/leads. */
export const PublicLeadInputSchema = Type.Object(
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
    $id: 'PublicLeadInput',
    additionalProperties: false,
    description:
      'An enquiry as a visitor sends it. The project is named by `project` (its id) or `namespace`: one of the two is required; when both are sent, `project` decides.',
  },
);

/** The named schemas ($id) of this module: src/app-modules.ts adds them at the root, where every scope and /openapi.json see them. */
export const PUBLIC_SCHEMAS = [BundleSchema, PublicLeadInputSchema];

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Bundle = Static<typeof BundleSchema>;
export type PublicLeadInput = Static<typeof PublicLeadInputSchema>;
