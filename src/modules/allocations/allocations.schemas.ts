import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../../http/schemas.ts';

/** What a realtor sends to open their allocation: the launch and the password the developer gave them. */
export const OpenAllocationBody = Type.Object(
  {
    namespace: Type.String({ minLength: 1, maxLength: 63, description: "The project's namespace" }),
    password: Type.String({ minLength: 1, maxLength: 200, description: "The allocation's password, as the developer gave it to the realtor" }),
  },
  { additionalProperties: false },
);

/** An opened allocation: its units now and the token that acts for it on the project's public routes. */
export const OpenedAllocation = Type.Object(
  {
    name: Type.String({ description: "The allocation's name" }),
    token: Type.String({
      description:
        "Send as `X-Allocation-Token` on this project's public routes; valid 12 hours, ends early when the password is replaced or the allocation removed",
    }),
    expiresAt: { ...DateTime, description: 'When the token stops working' },
    units: Type.Array(ObjectId, { description: 'The units that belong to this allocation now (listed in it, neither sold nor reserved)' }),
  },
  { additionalProperties: false },
);

export type OpenAllocationBody = Static<typeof OpenAllocationBody>;
export type OpenedAllocation = Static<typeof OpenedAllocation>;
