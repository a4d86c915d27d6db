import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { describedRecord } from '../shared/described.ts';

export const ROLES = ['user', 'admin', 'integration'] as const;
export type Role = (typeof ROLES)[number];

const InviteTarget = (description: string) => Type.Object({ _id: ObjectId, name: Type.String() }, { additionalProperties: false, description });

export const InviteSchema = Type.Object(
  describedRecord(
    {
      _id: Type.Optional(ObjectId),
      firstName: Type.Optional(Type.String({ maxLength: 200, description: 'First name of the invitee' })),
      lastName: Type.Optional(Type.String({ maxLength: 200, description: 'Last name of the invitee' })),
      email: Type.Optional(Type.String({ format: 'email', maxLength: 320, description: 'E-mail address the invitation goes to' })),
      level: Type.Optional(Type.String({ maxLength: 50, description: 'Level the invitee gets: administrator or editor' })),
      createdAt: Type.Optional(DateTime),
      expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the invitation link stops working' })),
      project: Type.Optional(InviteTarget('The project the invitation is to (in the invitee’s own `invites` on GET /users/me)')),
      group: Type.Optional(InviteTarget('The group the invitation is to (in the invitee’s own `invites` on GET /users/me)')),
    },
    {},
  ),
  {
    $id: 'Invite',
    additionalProperties: false,
    description:
      'A pending invitation; those made by POST …/invites carry _id, createdAt and expiresAt, and those listed on GET /users/me (addressed to the caller) also name their project or group',
  },
);

const Email = Type.String({ format: 'email', maxLength: 320 });
const Text = Type.String({ maxLength: 1000 });

/** Fields a user may change on their own record through PATCH /users/me. */
export const SelfEditable = {
  experimentalFeatures: Type.Boolean({ description: 'Shows the console’s features marked experimental (absent reads as false)' }),
  name: Text,
  lastName: Text,
  fullName: Text,
  phone: Type.String({ maxLength: 50 }),
  companyName: Type.String({ maxLength: 1000, description: 'The user’s company: it signs the mail sent for the projects they own' }),
  country: Text,
  address1: Text,
  address2: Text,
  city: Text,
  region: Text,
  zip: Type.String({ maxLength: 30 }),
  preferences: Type.Object(
    { hideBrandingIcon: Type.Optional(Type.Boolean()), hideLoadingLogo: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
};

/** Profile fields that exist on the record but are kept by the platform (payments, subscription, membership). */
export const PlatformKept = {
  projectNameURL: Type.String({
    maxLength: 63,
    description: 'The public address (namespace) proposed for the user’s next project: their company’s or name’s slug, free at the time of asking',
  }),
  paymentsAccountId: Type.String(),
  paymentsOnboardingDone: Type.Boolean(),
  paymentsDetailsSubmitted: Type.Boolean(),
  paymentsCustomer: Type.Object(
    { id: Type.Optional(Type.String({ description: 'The Stripe customer id (cus_…)' })) },
    { additionalProperties: true, description: 'With plans on: the user’s Stripe customer, made once at their first checkout or portal visit' },
  ),
  subscription: Type.Object(
    {
      status: Type.Optional(Type.String({ description: "Stripe's status: trialing, active, past_due, unpaid, canceled, …" })),
      plan: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'starter or pro (null: another price)' })),
      trialEnd: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
      currentPeriodEnd: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
      cancelAtPeriodEnd: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: true, description: 'With plans on: the user’s subscription as last read back from Stripe (docs/billing.md)' },
  ),
  appliedTrial: Type.Boolean({ description: 'With plans on: the user took their trial (it is offered once)' }),
  administrators: Type.Array(ObjectId, { description: 'The other people who are administrators of projects the user belongs to (user ids)' }),
  editors: Type.Array(ObjectId, { description: 'The other people who are editors of projects the user belongs to (user ids)' }),
  invites: Type.Array(Type.Ref('Invite'), {
    description: 'The invitations to the user’s e-mail address still pending (neither accepted, revoked nor expired)',
  }),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeBox's Optional overloads accept no narrower constraint here
const opt = <T extends Record<string, any>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: ReturnType<typeof Type.Optional<T[K]>>;
  };

export const UserSchema = Type.Object(
  {
    _id: ObjectId,
    __v: Version,
    role: Type.Union(ROLES.map((r) => Type.Literal(r))),
    username: Type.String(),
    ...opt(SelfEditable),
    ...opt(PlatformKept),
    projects: Type.Array(ObjectId),
    groups: Type.Array(ObjectId),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'User', additionalProperties: false },
);
export type User = Static<typeof UserSchema>;

export const LoginResponseSchema = Type.Object(
  {
    ...UserSchema.properties,
    token: Type.String({ description: 'The access token (same as access_token)' }),
    access_token: Type.String({ description: 'JWT access token' }),
    message: Type.String(),
  },
  { $id: 'LoginResponse', additionalProperties: false },
);

export const LoginBody = Type.Object(
  {
    username: Type.Optional(Email),
    password: Type.Optional(Type.String({ maxLength: 1024, writeOnly: true })),
  },
  { additionalProperties: false },
);
export const LoginQuery = LoginBody;

export const CreateUserBody = Type.Object(
  {
    username: Email,
    password: Type.String({ minLength: 8, maxLength: 1024, writeOnly: true }),
    name: Type.Optional(Text),
    lastName: Type.Optional(Text),
    role: Type.Optional(Type.Union(ROLES.map((r) => Type.Literal(r)))),
  },
  { additionalProperties: false },
);

/** Everything a client may send back from a fetched record; what it may actually change is checked in the handler. */
export const PatchMeBody = Type.Object(
  {
    ...opt(SelfEditable),
    ...opt(PlatformKept),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 1024, writeOnly: true })),
    currentPassword: Type.Optional(Type.String({ maxLength: 1024, writeOnly: true })),
    role: Type.Optional(Type.String()),
    username: Type.Optional(Type.String()),
    projects: Type.Optional(Type.Array(Type.String())),
    groups: Type.Optional(Type.Array(Type.String())),
    // Server-kept and login-result fields: accepted and ignored so a fetched record can be sent back whole.
    _id: Type.Optional(Type.String()),
    __v: Type.Optional(Type.Unknown()),
    createdAt: Type.Optional(Type.String()),
    updatedAt: Type.Optional(Type.String()),
    configuredSecrets: Type.Optional(Type.Unknown()),
    token: Type.Optional(Type.String()),
    access_token: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const RefreshBody = Type.Object({ refresh_token: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false });

export const RefreshResponse = Type.Object(
  {
    message: Type.String(),
    access_token: Type.String(),
    token: Type.String(),
    refresh_token: Type.String({ description: 'Also set as the serviceRefresh cookie' }),
  },
  { additionalProperties: false },
);

/** POST /users/password-reset: the address of the account whose password was forgotten. */
export const PasswordResetRequestBody = Type.Object(
  { username: Type.String({ format: 'email', maxLength: 320, description: "The account's e-mail address" }) },
  { additionalProperties: false },
);

/** The one answer to a reset request, whether or not the account exists. */
export const PasswordResetAccepted = Type.Object(
  { message: Type.String({ description: 'The same sentence for every address: it tells nothing about the account' }) },
  { additionalProperties: false },
);

/** POST /users/password-reset/confirm: the mailed token and the password chosen. */
export const PasswordResetConfirmBody = Type.Object(
  {
    token: Type.String({ minLength: 20, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$', description: 'The token from the mailed link' }),
    password: Type.String({ minLength: 8, maxLength: 1024, description: 'The new password' }),
  },
  { additionalProperties: false },
);

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Invite = Static<typeof InviteSchema>;
export type LoginResponse = Static<typeof LoginResponseSchema>;
export type LoginBody = Static<typeof LoginBody>;
export type CreateUserBody = Static<typeof CreateUserBody>;
export type PatchMeBody = Static<typeof PatchMeBody>;
export type RefreshBody = Static<typeof RefreshBody>;
