import { sql, type Kysely, type Selectable } from 'kysely';
import type { ApiTokensTable, Database } from '../../db/schema.ts';
import type { ApiToken, ApiTokenScope } from './tokens.schemas.ts';

type Q = Kysely<Database>;
export type ApiTokenRow = Omit<Selectable<ApiTokensTable>, 'token_hash' | 'user_id'>;

const COLUMNS = ['id', 'name', 'scope', 'created_at', 'expires_at', 'last_used_at'] as const;

export function toApiToken(row: ApiTokenRow): ApiToken {
  return {
    _id: row.id,
    name: row.name,
    scope: row.scope as ApiTokenScope,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at ? row.expires_at.toISOString() : null,
    lastUsedAt: row.last_used_at ? row.last_used_at.toISOString() : null,
  };
}

/** The user's tokens, oldest first (never the hash). */
export function listApiTokens(db: Q, userId: string): Promise<ApiTokenRow[]> {
  return db.selectFrom('api_tokens').select(COLUMNS).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

/** Locks the user's row for the rest of the transaction, so two creates cannot both pass the count. */
export async function lockUser(db: Q, userId: string): Promise<boolean> {
  return (await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().executeTakeFirst()) !== undefined;
}

export async function countApiTokens(db: Q, userId: string): Promise<number> {
  const row = await db
    .selectFrom('api_tokens')
    .select(sql<string>`count(*)`.as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertApiToken(
  db: Q,
  t: { id: string; userId: string; name: string; scope: ApiTokenScope; tokenHash: string; createdAt: Date; expiresAt: Date | null },
): Promise<ApiTokenRow> {
  return db
    .insertInto('api_tokens')
    .values({ id: t.id, user_id: t.userId, name: t.name, scope: t.scope, token_hash: t.tokenHash, created_at: t.createdAt, expires_at: t.expiresAt })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Deletes one of the user's tokens; the row (for the audit log), or undefined when the user has no such token. */
export function deleteApiToken(db: Q, userId: string, id: string): Promise<ApiTokenRow | undefined> {
  return db.deleteFrom('api_tokens').where('id', '=', id).where('user_id', '=', userId).returning(COLUMNS).executeTakeFirst();
}

export interface ApiTokenPrincipal {
  tokenId: string;
  scope: string;
  lastUsedAt: Date | null;
  id: string;
  username: string;
  role: string;
}

/** The user behind a live (unexpired) token hash, with the token's scope; one indexed look-up per request. */
export function findApiTokenPrincipal(db: Q, tokenHash: string, now: Date): Promise<ApiTokenPrincipal | undefined> {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id as tokenId', 't.scope', 't.last_used_at as lastUsedAt', 'u.id', 'u.username', 'u.role'])
    .where('t.token_hash', '=', tokenHash)
    .where('u.deactivated_at', 'is', null)
    .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', now)]))
    .executeTakeFirst();
}

/** Records a use, only when the last recorded one is older than `staleBefore` (so at most one write per interval). */
export async function touchApiToken(db: Q, id: string, now: Date, staleBefore: Date): Promise<void> {
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .execute();
}

/** Every API token of a user deleted (a password reset): they stop working at once on every node. Answers how many. */
export async function deleteUserApiTokens(db: Q, userId: string): Promise<number> {
  const r = await db.deleteFrom('api_tokens').where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows);
}
