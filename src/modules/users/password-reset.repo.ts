import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

/** Links mailed to this address since `since` (the per-address hourly cap). */
export async function countResetsSince(db: Q, username: string, since: Date): Promise<number> {
  const r = await db
    .selectFrom('password_resets')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('username', '=', username)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return r.n;
}

export async function insertPasswordReset(db: Q, r: { tokenHash: string; userId: string | null; username: string; createdAt: Date; expiresAt: Date }) {
  await db
    .insertInto('password_resets')
    .values({ token_hash: r.tokenHash, user_id: r.userId, username: r.username, created_at: r.createdAt, expires_at: r.expiresAt })
    .execute();
}

/**
 * Claims a live token in one conditional UPDATE: of two concurrent confirmations exactly one gets the user id;
 * undefined when the token is used, expired, unknown or was mailed to no account.
 */
export async function claimPasswordReset(db: Q, tokenHash: string, now: Date): Promise<string | undefined> {
  const claimed = await db
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('user_id', 'is not', null)
    .returning('user_id')
    .executeTakeFirst();
  return claimed?.user_id ?? undefined;
}

/** Every other link mailed to this user stops working. */
export async function spendUserResets(db: Q, userId: string, now: Date) {
  await db.updateTable('password_resets').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
}
