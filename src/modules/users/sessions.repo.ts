import type { SessionPrincipal } from '../../http/auth.ts';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

export type { SessionPrincipal };

export async function createSession(db: Q, s: { id: string; userId: string; impersonatorId: string | null; expiresAt: Date }) {
  await db.insertInto('sessions').values({ id: s.id, user_id: s.userId, impersonator_id: s.impersonatorId, expires_at: s.expiresAt }).execute();
}

/** The user behind a live session at `now` (the injected clock), or undefined when the session ended (logout, password change, reuse, expiry). */
export function findSessionPrincipal(db: Q, sid: string, now: Date): Promise<SessionPrincipal | undefined> {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['u.id', 'u.username', 'u.role'])
    .where('s.id', '=', sid)
    .where('s.revoked_at', 'is', null)
    .where('u.deactivated_at', 'is', null)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
}

export async function revokeSession(db: Q, sid: string, now: Date) {
  await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', sid).where('revoked_at', 'is', null).execute();
}

export async function revokeUserSessions(db: Q, userId: string, now: Date) {
  await db.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
}

export async function insertRefreshToken(db: Q, t: { tokenHash: string; sessionId: string; expiresAt: Date }) {
  await db.insertInto('refresh_tokens').values({ token_hash: t.tokenHash, session_id: t.sessionId, expires_at: t.expiresAt }).execute();
}

/**
 * Marks a refresh token used, in one conditional statement: of two concurrent uses only one succeeds.
 * Returns its live session and user, or undefined when it was unknown, used, expired at `now` or its session ended.
 */
export function consumeRefreshToken(db: Q, tokenHash: string, now: Date) {
  return db
    .updateTable('refresh_tokens as r')
    .set({ used_at: now })
    .from('sessions as s')
    .whereRef('s.id', '=', 'r.session_id')
    .where('r.token_hash', '=', tokenHash)
    .where('r.used_at', 'is', null)
    .where('r.expires_at', '>', now)
    .where('s.revoked_at', 'is', null)
    .returning(['r.session_id', 's.user_id', 's.expires_at'])
    .executeTakeFirst();
}

/** A rotated refresh token keeps its session alive as long as the new token lives. */
export async function extendSession(db: Q, sid: string, expiresAt: Date) {
  await db.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', sid).execute();
}

export function findRefreshToken(db: Q, tokenHash: string) {
  return db.selectFrom('refresh_tokens').select(['session_id', 'used_at']).where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** The channel on which a node says "forget the sessions you trust for this user" to every node (payload: the user id). */
export const SESSIONS_CHANNEL = 'showsuite_sessions';

/** Tells every node, once the transaction commits, to stop trusting its cached sessions of this user. */
export async function notifySessionsEnded(db: Q, userId: string) {
  await sql`select pg_notify(${SESSIONS_CHANNEL}, ${userId})`.execute(db);
}
