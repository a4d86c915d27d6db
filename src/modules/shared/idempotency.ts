import { createHash } from 'node:crypto';
import { stringify as stableStringify } from 'safe-stable-stringify';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { claimIdempotencyKey, findIdempotencyRecord, forgetIdempotencyKeys, storeIdempotentOutcome } from './idempotency.repo.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

export interface Outcome<B = unknown> {
  status: number;
  body: B;
  /** The ETag of the record in the body, replayed with it. */
  etag?: string | undefined;
}

/** How a body is kept in the idempotency record and read back (e.g. with a secret in it sealed). */
export interface BodyCodec<B> {
  store(body: B): unknown;
  restore(stored: unknown): B;
}

const KEY = /^[\x21-\x7e]{1,200}$/;

/** The Idempotency-Key header, checked; undefined when absent. */
export function idempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header[0] : header;
  if (!key || !KEY.test(key)) {
    throw ERRORS.invalidBody('Idempotency-Key must be 1–200 visible ASCII characters', {
      errors: [{ path: '/headers/idempotency-key', message: 'is invalid' }],
    });
  }
  return key;
}

/** JSON with object keys sorted at every level: the same body sent with its fields in another order is the same request. */
export const canonicalJson = (value: unknown): string => stableStringify(value) ?? 'null';

/**
 * Runs `work` in a transaction. With a key, the outcome is stored in the same transaction, so a retry with the
 * same key and body gets the first outcome again and writes nothing more; the same key with another body → 422.
 * A concurrent retry waits on the key's row until the first commits. Failures are not stored: nothing was written.
 */
export async function runIdempotent<B>(
  db: Kysely<Database>,
  scope: string,
  key: string | undefined,
  request: unknown,
  work: (trx: Transaction<Database>) => Promise<Outcome<B>>,
  codec?: BodyCodec<B>,
): Promise<Outcome<B> & { replayed: boolean }> {
  if (key === undefined) return { ...(await db.transaction().execute(work)), replayed: false };
  const hash = createHash('sha256')
    .update(canonicalJson(request ?? null))
    .digest('hex');
  return db.transaction().execute(async (trx) => {
    if (await claimIdempotencyKey(trx, scope, key, hash)) {
      const outcome = await work(trx);
      const body = codec ? codec.store(outcome.body) : outcome.body;
      await storeIdempotentOutcome(trx, scope, key, outcome.status, { body, etag: outcome.etag });
      return { ...outcome, replayed: false };
    }
    const first = await findIdempotencyRecord(trx, scope, key);
    if (first.request_hash !== hash) {
      throw ERRORS.idempotencyKeyReused('This Idempotency-Key was used with a different request body');
    }
    // Stored by this function from `work`'s outcome for the same scope: the same shape.
    const stored = first.body as { body: B; etag?: string };
    return { status: first.status, body: codec ? codec.restore(stored.body) : stored.body, etag: stored.etag, replayed: true };
  });
}

/** How long a stored answer is kept for a retry to replay. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Forgets the stored answers older than a day (the hold sweep runs it on its schedule, in its transaction); how many. */
export function forgetOldIdempotencyKeys(db: Kysely<Database>, now: number): Promise<number> {
  return forgetIdempotencyKeys(db, new Date(now - IDEMPOTENCY_TTL_MS));
}
