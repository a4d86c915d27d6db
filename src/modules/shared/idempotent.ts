import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { principalOf } from '../../http/auth.ts';
import { idempotencyKey, runIdempotent } from './idempotency.ts';
import { etagOf } from './records.ts';

/** What a create made: the record as the response shows it, and its version for the ETag. */
export interface Created {
  record: Record<string, unknown> & { _id: unknown };
  version: number;
}

/** A create as its idempotency sees it: whose, under which key (if any), and what was asked. */
export interface CreateRequest {
  principalId: string;
  key: string | undefined;
  asked: { query: unknown; body: unknown };
}

/** The create request of an HTTP request: the caller, its `Idempotency-Key` (400 when malformed), query and body. */
export function createRequestOf(request: FastifyRequest): CreateRequest {
  return {
    principalId: principalOf(request).id,
    key: idempotencyKey(request.headers['idempotency-key']),
    asked: { query: request.query ?? null, body: request.body ?? null },
  };
}

/** The answer to a create: the record (with what `reveal` adds), its ETag, and whether it is a replay. */
export interface CreateOutcome {
  record: Created['record'] & { _id: string };
  etag: string | undefined;
  replayed: boolean;
}

/**
 * An authenticated create that honours `Idempotency-Key` as the public ones do: the key is the caller's own, the write
 * and the stored answer commit together, a retry with the same key, query and body gets the first answer again
 * (`replayed`) and writes nothing; another request under the key → 422.
 */
export async function createOnce(
  db: Kysely<Database>,
  resource: string,
  req: CreateRequest,
  work: (trx: Transaction<Database>) => Promise<Created>,
  /** Adds to the first answer and to every replay what the stored answer must not hold (a secret shown at creation). */
  reveal?: (body: Created['record']) => Promise<Created['record']>,
): Promise<CreateOutcome> {
  const outcome = await runIdempotent(db, `create:${resource}:${req.principalId}`, req.key, req.asked, async (trx) => {
    const { record, version } = await work(trx);
    return { status: 201, body: record, etag: etagOf(version) };
  });
  const stored = outcome.body as Created['record'] & { _id: string };
  const record = (reveal ? await reveal(stored) : stored) as CreateOutcome['record'];
  return { record, etag: outcome.etag, replayed: outcome.replayed };
}

/** 201 with `Location`, the ETag, and `Idempotent-Replayed: true` on a replay. */
export function sendCreated(reply: FastifyReply, outcome: CreateOutcome, location: string) {
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  if (outcome.etag) reply.header('ETag', outcome.etag);
  return reply.code(201).header('Location', location).send(outcome.record);
}
