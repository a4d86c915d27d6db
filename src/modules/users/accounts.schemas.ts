import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { ROLES } from './users.schemas.ts';

/** One account as the service's administrators see it: who, whether it may sign in, and what it has access to. */
export const AccountSchema = Type.Object(
  {
    _id: ObjectId,
    __v: Version,
    username: Type.String({ description: "The account's e-mail address" }),
    role: Type.Union(
      ROLES.map((r) => Type.Literal(r)),
      { description: 'Its role in the service: user, admin (a service administrator) or integration' },
    ),
    name: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    active: Type.Boolean({ description: 'false once an administrator deactivated it: it cannot sign in, and its sessions and API tokens are refused' }),
    deactivatedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When it was deactivated' })),
    lastSignInAt: Type.Optional(Type.String({ format: 'date-time', description: 'Its most recent sign-in' })),
    projects: Type.Array(
      Type.Object(
        {
          _id: ObjectId,
          name: Type.String(),
          role: Type.Union([Type.Literal('owner'), Type.Literal('administrator'), Type.Literal('editor')], { description: 'Its role in that project' }),
        },
        { additionalProperties: false },
      ),
      { description: 'The projects it owns or is a member of, oldest first, with its role in each' },
    ),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Account', additionalProperties: false },
);

export const AccountArray = Type.Array(Type.Ref('Account'));

export const AccountListQuery = Type.Object(
  {
    filters: Type.Optional(
      Type.Object(
        {
          q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Part of the e-mail address or the name, any case' })),
          active: Type.Optional(Type.Boolean({ description: 'true: active accounts only; false: deactivated ones only' })),
        },
        { additionalProperties: false },
      ),
    ),
    options: Type.Optional(
      Type.Object(
        {
          skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Accounts to skip (default 0)' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Most accounts to return, 1–500 (default 100)' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const AccountPatchBody = Type.Object(
  { active: Type.Boolean({ description: 'false deactivates the account (at once, on every node); true reactivates it' }) },
  { additionalProperties: false },
);

export const AccountResetAnswer = Type.Object(
  { message: Type.String({ description: 'Says the link was mailed to the account' }) },
  { additionalProperties: false },
);

export type Account = Static<typeof AccountSchema>;
export type AccountListQuery = Static<typeof AccountListQuery>;
export type AccountPatchBody = Static<typeof AccountPatchBody>;
