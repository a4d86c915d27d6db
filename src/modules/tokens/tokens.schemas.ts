import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../../http/schemas.ts';

export const API_TOKEN_SCOPES = ['read', 'write'] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** How many tokens one user may hold at once (expired ones count until deleted). */
export const MAX_API_TOKENS = 50;
/** The longest lifetime a token may be given; without `expiresInDays` it never expires. */
export const MAX_TOKEN_DAYS = 366;

const Scope = Type.Union(
  API_TOKEN_SCOPES.map((s) => Type.Literal(s)),
  { description: '`read`: GET and HEAD only (anything else → 403); `write`: everything the user may do' },
);

export const ApiTokenSchema = Type.Object(
  {
    _id: ObjectId,
    name: Type.String({ description: 'What the token is for, as its creator named it' }),
    scope: Scope,
    createdAt: DateTime,
    expiresAt: Type.Union([DateTime, Type.Null()], { description: 'When it stops working; null: never' }),
    lastUsedAt: Type.Union([DateTime, Type.Null()], { description: 'The last request it authenticated, to the minute; null: never used' }),
  },
  { $id: 'ApiToken', additionalProperties: false, description: 'An API token, without its secret' },
);

export const CreatedApiTokenSchema = Type.Object(
  {
    ...ApiTokenSchema.properties,
    token: Type.String({
      pattern: '^sst_',
      description:
        'The secret (`sst_` and 43 base64url characters): shown only in this answer (only its SHA-256 is kept). Send it as `Authorization: Bearer <token>`.',
    }),
  },
  { additionalProperties: false },
);

export const CreateApiTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'What the token is for (shown in the list)' }),
    scope: Scope,
    expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOKEN_DAYS, description: 'Lifetime in days; omitted → never expires' })),
  },
  { additionalProperties: false },
);

export const TokenParams = Type.Object({ id: ObjectId }, { additionalProperties: false });

/** The caller's API tokens, without their secrets. */
export const ApiTokenArray = Type.Array(Type.Ref('ApiToken'));

export type ApiToken = Static<typeof ApiTokenSchema>;
export type CreatedApiToken = Static<typeof CreatedApiTokenSchema>;
export type CreateApiTokenBody = Static<typeof CreateApiTokenBody>;
