import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../../http/errors.ts';

/** Fields a client may send back from a fetched record; they are ignored (CONTRACT §4). */
export const SERVER_KEPT = new Set(['_id', '__v', 'createdAt', 'updatedAt', 'configuredSecrets']);

export const etagOf = (version: number) => `"${version}"`;

/** Sets the ETag of a single-record response. */
export function withEtag(reply: FastifyReply, version: number) {
  reply.header('ETag', etagOf(version));
}

/** The version an If-Match header demands, or undefined without one. A stale one → 412 before anything is written. */
export function ifMatchVersion(request: FastifyRequest, currentVersion: number): number | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  if (header.trim() === '*') return currentVersion;
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (!tags.includes(etagOf(currentVersion))) {
    throw new AppError(412, 'precondition_failed', `If-Match ${header} does not match the current ETag ${etagOf(currentVersion)}`);
  }
  return currentVersion;
}

export const staleWrite = () => new AppError(412, 'precondition_failed', 'The record changed since the If-Match version; fetch it again');

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The sent fields whose values differ from the current record: only these are changes. */
export function changedFields(sent: Record<string, unknown>, current: Record<string, unknown>, ignore: Set<string> = SERVER_KEPT) {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(sent)) {
    if (ignore.has(key) || value === undefined) continue;
    if (!deepEqual(value, current[key])) changes[key] = value;
  }
  return changes;
}

export function invalid(errors: FieldError[]): never {
  throw new AppError(400, 'invalid_body', errors.map((e) => `${e.path.slice(1)}: ${e.message}`).join('; '), errors);
}

/** `id` in a body must equal the path id (CONTRACT §4). */
export function checkBodyId(body: { _id?: unknown }, id: string) {
  if (body._id !== undefined && body._id !== id) invalid([{ path: '/_id', message: 'must equal the id in the path' }]);
}
