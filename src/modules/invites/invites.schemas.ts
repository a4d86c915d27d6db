import { Type } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../../http/schemas.ts';

/** The levels an invitation may give: the lists of the project or group the invitee joins. */
export const INVITE_LEVELS = ['administrator', 'editor', 'owner'] as const;

const Level = (description: string) =>
  Type.Union(
    INVITE_LEVELS.map((l) => Type.Literal(l)),
    { description },
  );

/** POST /projects/{id}/invites and /groups/{id}/invites: whom to invite, and as what. */
export const InviteCreateBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320, description: 'The address the invitation is mailed to; the account it creates or joins' }),
    firstName: Type.Optional(Type.String({ maxLength: 200, description: 'First name of the invitee, for the mail' })),
    lastName: Type.Optional(Type.String({ maxLength: 200, description: 'Last name of the invitee, for the mail' })),
    level: Level(
      'The role the invitee gets: `administrator` (joins the `administrators` list), `editor` (joins `editors`), or `owner` (the record is handed to them when they accept; the current owner becomes an administrator; only the owner may send it)',
    ),
  },
  { additionalProperties: false },
);

/** The invitation just made, without its token (only the mail carries it). */
export const InviteCreatedSchema = Type.Object(
  {
    _id: ObjectId,
    email: Type.String({ description: 'The address the invitation was mailed to' }),
    firstName: Type.Optional(Type.String({ description: 'First name of the invitee' })),
    lastName: Type.Optional(Type.String({ description: 'Last name of the invitee' })),
    level: Level('Where the invitee lands once they accept'),
    createdAt: { ...DateTime, description: 'When the invitation was made' },
    expiresAt: { ...DateTime, description: 'When the invitation link stops working' },
  },
  { additionalProperties: false },
);

const Named = (description: string) =>
  Type.Object({ _id: ObjectId, name: Type.String({ description: 'Its name' }) }, { additionalProperties: false, description });

/** GET /invites/{token}: what the link is for, for the page that asks the invitee to accept. */
export const InviteLookupSchema = Type.Object(
  {
    email: Type.String({ description: 'The invited address' }),
    level: Level('Where the invitee lands once they accept'),
    firstName: Type.Optional(Type.String({ description: 'First name of the invitee' })),
    lastName: Type.Optional(Type.String({ description: 'Last name of the invitee' })),
    expiresAt: { ...DateTime, description: 'When the invitation link stops working' },
    project: Type.Optional(Named('The project the invitation is to')),
    group: Type.Optional(Named('The group the invitation is to')),
  },
  { additionalProperties: false },
);

/** The token of an invitation link, in the path. */
export const InviteTokenParams = Type.Object(
  { token: Type.String({ pattern: '^[A-Za-z0-9_-]{20,200}$', description: 'The token from the invitation link' }) },
  { additionalProperties: false },
);

/** POST /invites/{token}/accept: a new account's details, or the password of the existing one. */
export const InviteAcceptBody = Type.Object(
  {
    password: Type.Optional(
      Type.String({
        minLength: 8,
        maxLength: 1024,
        description: "The new account's password; for an existing account that is not signed in, its current password",
      }),
    ),
    name: Type.Optional(Type.String({ maxLength: 1000, description: "The new account's first name" })),
    lastName: Type.Optional(Type.String({ maxLength: 1000, description: "The new account's last name" })),
  },
  { additionalProperties: false },
);

/** A project's or a group's invitation, in the path. */
export const InviteParams = Type.Object({ id: ObjectId, inviteId: ObjectId }, { additionalProperties: false });
