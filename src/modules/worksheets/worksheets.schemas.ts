import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { AllocationTokenHeader } from '../allocations/token-header.ts';
import { LeadFields } from '../leads/leads.schemas.ts';

const Buyer = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 200 }),
    lastName: Type.String({ minLength: 1, maxLength: 200 }),
    email: LeadFields.email,
    phone: Type.String({ minLength: 3, maxLength: 50 }),
  },
  { additionalProperties: false, description: 'The buyer the realtor submits the worksheet for' },
);

const Choices = Type.Array(ObjectId, {
  minItems: 1,
  maxItems: 3,
  uniqueItems: true,
  description: "Units of the project, 1 to 3, in the buyer's order of preference",
});

export const WorksheetStatus = Type.Union([Type.Literal('submitted'), Type.Literal('accepted'), Type.Literal('declined')]);

/** A worksheet as the API answers it. */
export const WorksheetSchema = Type.Object(
  {
    _id: ObjectId,
    __v: Version,
    project: ObjectId,
    status: WorksheetStatus,
    allocation: Type.String({ description: 'The name of the allocation (realtor) that submitted it' }),
    buyer: Buyer,
    choices: Choices,
    notes: Type.Optional(Type.String()),
    unit: Type.Optional({ ...ObjectId, description: 'When accepted: the unit reserved for it' }),
    realtorEmail: Type.Optional(Type.String({ description: "The realtor's e-mail, where the sales team's decision is mailed" })),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Worksheet', additionalProperties: false },
);

export const WorksheetSubmitBody = Type.Object(
  {
    buyer: Buyer,
    choices: Choices,
    notes: Type.Optional(Type.String({ maxLength: 5000 })),
    realtorEmail: Type.Optional({
      ...LeadFields.email,
      description: "The realtor's own e-mail: when the sales team accepts or declines the worksheet, the decision is mailed there",
    }),
  },
  { additionalProperties: false },
);

export const WorksheetPatchBody = Type.Union(
  [
    Type.Object(
      { status: Type.Literal('accepted'), unit: { ...ObjectId, description: 'One of its choices, still available or held by its allocation' } },
      { additionalProperties: false },
    ),
    Type.Object({ status: Type.Literal('declined') }, { additionalProperties: false }),
  ],
  { description: 'Accept with a unit (the unit turns reserved), or decline' },
);

/** POST /public/worksheets: the realtor's allocation, by its token. */
export const WorksheetSubmitHeaders = Type.Object({ 'x-allocation-token': Type.Optional(AllocationTokenHeader) });

/** GET /projects/{id}/worksheets: one status or all, and the page. */
export const WorksheetListQuery = Type.Object(
  {
    status: Type.Optional(WorksheetStatus),
    options: Type.Optional(
      Type.Object(
        {
          skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Worksheets to skip (default 0)' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Most worksheets to return, 1–1000 (default 100)' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** A project's worksheets, oldest first. */
export const WorksheetArray = Type.Array(Type.Ref('Worksheet'));

export type Worksheet = Static<typeof WorksheetSchema>;
export type WorksheetSubmit = Static<typeof WorksheetSubmitBody>;
export type WorksheetPatch = Static<typeof WorksheetPatchBody>;
