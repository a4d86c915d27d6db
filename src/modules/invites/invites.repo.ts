import type { Kysely, Selectable } from 'kysely';
import type { Database, InvitesTable } from '../../db/schema.ts';

type Q = Kysely<Database>;
export type InviteRow = Selectable<InvitesTable>;
export type TargetKind = 'project' | 'group';
const TABLE = { project: 'projects', group: 'groups' } as const;

const COLUMNS = [
  'id',
  'token_hash',
  'target_kind',
  'target_id',
  'email',
  'first_name',
  'last_name',
  'level',
  'invited_by',
  'created_at',
  'expires_at',
  'accepted_at',
  'accepted_by',
  'revoked_at',
] as const;

/** The Invite as it is listed in a record's `invites` and answered by the create call. */
export function toInvite(
  row: Pick<InviteRow, 'id' | 'email' | 'first_name' | 'last_name' | 'level'> & { created_at: Date | string; expires_at: Date | string },
) {
  return {
    _id: row.id,
    email: row.email,
    ...(row.first_name !== null ? { firstName: row.first_name } : {}),
    ...(row.last_name !== null ? { lastName: row.last_name } : {}),
    level: row.level,
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
  };
}

export function insertInvite(
  db: Q,
  i: {
    id: string;
    tokenHash: string;
    kind: TargetKind;
    targetId: string;
    email: string;
    firstName?: string | undefined;
    lastName?: string | undefined;
    level: 'administrator' | 'editor' | 'owner';
    invitedBy: string;
    createdAt: Date;
    expiresAt: Date;
  },
) {
  return db
    .insertInto('invites')
    .values({
      id: i.id,
      token_hash: i.tokenHash,
      target_kind: i.kind,
      target_id: i.targetId,
      email: i.email,
      first_name: i.firstName ?? null,
      last_name: i.lastName ?? null,
      level: i.level,
      invited_by: i.invitedBy,
      created_at: i.createdAt,
      expires_at: i.expiresAt,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export function findInviteByToken(db: Q, tokenHash: string, opts: { lock?: boolean } = {}) {
  const q = db.selectFrom('invites').select(COLUMNS).where('token_hash', '=', tokenHash);
  return (opts.lock ? q.forUpdate() : q).executeTakeFirst();
}

/** Name and id of the invite's project or group. */
export function findTarget(db: Q, kind: TargetKind, id: string) {
  return db.selectFrom(TABLE[kind]).select(['id', 'name', 'user_id', 'administrators', 'editors', 'data']).where('id', '=', id).executeTakeFirst();
}

export async function markAccepted(db: Q, id: string, userId: string, at: Date) {
  await db.updateTable('invites').set({ accepted_at: at, accepted_by: userId }).where('id', '=', id).execute();
}

/** Revokes a pending invite of this record; false when there is none by that id. */
export async function revokeInvite(db: Q, kind: TargetKind, targetId: string, inviteId: string, at: Date): Promise<boolean> {
  const r = await db
    .updateTable('invites')
    .set({ revoked_at: at })
    .where('id', '=', inviteId)
    .where('target_kind', '=', kind)
    .where('target_id', '=', targetId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Whether an invitation to this address is still open (neither accepted, revoked nor expired at `now`). */
export async function hasOpenInvite(db: Q, email: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('invites')
    .select('id')
    .where('email', '=', email.toLowerCase())
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}
