import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

/** Claims an idempotency key for a request (status 0 until its outcome is stored); false when it was already claimed. */
export async function claimIdempotencyKey(db: Q, scope: string, key: string, requestHash: string): Promise<boolean> {
  const claimed = await sql<{ key: string }>`
      insert into idempotency_keys (scope, key, request_hash, status) values (${scope}, ${key}, ${requestHash}, 0)
      on conflict do nothing returning key`.execute(db);
  return claimed.rows.length > 0;
}

/** Stores the outcome of a claimed key's request. */
export async function storeIdempotentOutcome(db: Q, scope: string, key: string, status: number, body: unknown): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status, body: JSON.stringify(body) })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .execute();
}

/** The stored request hash and outcome of a key. */
export function findIdempotencyRecord(db: Q, scope: string, key: string): Promise<{ request_hash: string; status: number; body: unknown }> {
  return db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status', 'body'])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
}

/** Forgets idempotency records made before `before`; how many. */
export async function forgetIdempotencyKeys(db: Q, before: Date): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Stored answers of public forms (kept for retries) that carry this address. */
export async function forgetPublicAnswers(db: Q, email: string): Promise<number> {
  const result = await sql`
    delete from idempotency_keys where scope like 'public-%' and body is not null and strpos(lower(body::text), ${email}) > 0`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
