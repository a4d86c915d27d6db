import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../../http/schemas.ts';

/** The actions the log records; `filters[action]` takes one of them. */
export const AUDIT_ACTIONS = [
  'sign_in',
  'sign_in_failed',
  'impersonate',
  'password_changed',
  'password_reset',
  'password_reset_sent',
  'api_token_created',
  'api_token_revoked',
  'account_deactivated',
  'account_reactivated',
  'members_changed',
  'member_invited',
  'member_joined',
  'invite_revoked',
  'settings_changed',
  'leads_exported',
  'buyer_data_exported',
  'buyer_data_erased',
  'lead_deleted',
  'leads_expired',
  'owner_changed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AuditEntrySchema = Type.Object(
  {
    _id: Type.String({ description: 'The entry, in the order entries were written' }),
    at: DateTime,
    action: Type.Union(
      AUDIT_ACTIONS.map((a) => Type.Literal(a)),
      { description: 'What happened' },
    ),
    actor: Type.Union([Type.Object({ _id: ObjectId, username: Type.Optional(Type.String()) }, { additionalProperties: false }), Type.Null()], {
      description: 'Who did it; null for a failed sign-in',
    }),
    address: Type.Union([Type.String(), Type.Null()], { description: 'The client address it came from' }),
    subject: Type.Union([Type.String(), Type.Null()], { description: 'The id of the account, token, invitation or project it was about' }),
    project: Type.Union([ObjectId, Type.Null()], { description: 'The project it concerned, when one did' }),
    detail: Type.Record(Type.String(), Type.Unknown(), { description: 'Field names, roles, counts; never a value of a secret' }),
  },
  { $id: 'AuditEntry', additionalProperties: false },
);

export const AuditArray = Type.Array(Type.Ref('AuditEntry'));

export const AuditListQuery = Type.Object(
  {
    filters: Type.Optional(
      Type.Object(
        {
          actor: Type.Optional(ObjectId),
          action: Type.Optional(Type.Union(AUDIT_ACTIONS.map((a) => Type.Literal(a)))),
          project: Type.Optional(ObjectId),
          from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this time' })),
          to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this time' })),
        },
        { additionalProperties: false },
      ),
    ),
    options: Type.Optional(
      Type.Object(
        {
          skip: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type AuditEntryRecord = Static<typeof AuditEntrySchema>;
export type AuditListQuery = Static<typeof AuditListQuery>;
