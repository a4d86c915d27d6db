import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { principalOf } from '../../http/auth.ts';
import { idempotencyKey, runIdempotent } from '../../public/idempotency.ts';
import { etagOf } from './records.ts';

/** What a create made: the record as the response shows it, and its version for the ETag. */
export interface Created {
  record: Record<string, unknown> & { _id: unknown };
  version: number;
}

/**
 * An authenticated create that honours `Idempotency-Key` as the public ones do: the key is the
 * caller's own, the write and the stored answer commit together, a retry with the same key, query and body gets
 * the first 201 again (with `Idempotent-Replayed: true`) and writes nothing; another request under the key → 422.
 */
export async function createIdempotently(
  db: Kysely<Database>,
  request: FastifyRequest,
  reply: FastifyReply,
  resource: string,
  locationOf: (id: string) => string,
  work: (trx: Transaction<Database>) => Promise<Created>,
  /** Adds to the first answer and to every replay what the stored answer must not hold (a secret shown at creation). */
  reveal?: (body: Created['record']) => Promise<Created['record']>,
) {
  const key = idempotencyKey(request.headers['idempotency-key']);
  const scope = `create:${resource}:${principalOf(request).id}`;
  const outcome = await runIdempotent(db, scope, key, { query: request.query ?? null, body: request.body ?? null }, async (trx) => {
    const { record, version } = await work(trx);
    return { status: 201, body: record, etag: etagOf(version) };
  });
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  if (outcome.etag) reply.header('ETag', outcome.etag);
  const stored = outcome.body as Created['record'] & { _id: string };
  const body = reveal ? await reveal(stored) : stored;
  return reply.code(201).header('Location', locationOf(stored._id)).send(body);
}
