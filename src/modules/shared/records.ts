import { dequal } from 'dequal';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ifMatchAllows } from '../../http/conditional.ts';
import { fieldErrorText, type FieldError } from '../../http/errors.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/** Fields a client may send back from a fetched record; they are ignored. */
export const SERVER_KEPT = new Set(['_id', '__v', 'createdAt', 'updatedAt', 'configuredSecrets']);

export const etagOf = (version: number) => `"${version}"`;

/** One record as a service answers it: the body a route sends, and its ETag. */
export interface Tagged<R = Record<string, unknown>> {
  record: R;
  etag: string;
}

export const tagged = <R>(record: R, version: number): Tagged<R> => ({ record, etag: etagOf(version) });

/** Sets the ETag of a single-record response. */
export function withEtag(reply: FastifyReply, version: number) {
  reply.header('ETag', etagOf(version));
}

/** The version an If-Match header demands, or undefined without one. A stale one → 412 before anything is written. */
export function ifMatchVersion(request: FastifyRequest, currentVersion: number): number | undefined {
  return parseIfMatch(request.headers['if-match'], currentVersion);
}

/**
 * If-Match (a list of ETags, or `*`) against the current version: the version to write at, or 412. The comparison is
 * strong, so a weak tag (`W/"4"`) never matches; an unquoted one is a 400 naming the header.
 */
export function parseIfMatch(header: string | undefined, currentVersion: number): number | undefined {
  if (header === undefined) return undefined;
  if (!ifMatchAllows(header, etagOf(currentVersion))) {
    const weak = /(^|,)\s*W\//.test(header) ? '; a weak tag (W/…) never matches a write, send the ETag as it was given' : '';
    throw ERRORS.preconditionFailed(`If-Match ${header} does not match the current ETag ${etagOf(currentVersion)}${weak}`);
  }
  return currentVersion;
}

export const staleWrite = () => ERRORS.preconditionFailed('The record changed since the If-Match version; fetch it again');

/**
 * Structural equality of JSON values (dequal). A key whose value is undefined is a key like any other, so callers
 * compare values shaped as they are stored (absent fields left out, not set to undefined).
 */
export const deepEqual: (a: unknown, b: unknown) => boolean = dequal;

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
  throw ERRORS.invalidBody(fieldErrorText(errors), { errors });
}

/** `id` in a body must equal the path id. */
export function checkBodyId(body: { _id?: unknown }, id: string) {
  if (body._id !== undefined && body._id !== id) invalid([{ path: '/_id', message: 'must equal the id in the path' }]);
}

/**
 * The one child-order check (a project's `floors`, a floor's `units`, a group's `projects`): the new order when `sent`
 * differs from `current`, undefined when it is the same; 400 naming each id that is not a child, and a repeated id.
 */
export function childOrder(sent: readonly string[] | undefined, current: readonly string[], field: string, notChild: string): string[] | undefined {
  if (sent === undefined || deepEqual(sent, current)) return undefined;
  const own = new Set(current);
  const errors: FieldError[] = [...sent.flatMap((id, i) => (own.has(id) ? [] : [{ path: `/${field}/${i}`, message: notChild }])), ...repeatedIds(sent, field)];
  if (errors.length) invalid(errors);
  return [...sent];
}

/** A list of references names each record once: the error on the list (`/field`) when an id repeats. */
export function repeatedIds(ids: readonly string[], field: string): FieldError[] {
  return new Set(ids).size !== ids.length ? [{ path: `/${field}`, message: 'must not repeat an id' }] : [];
}
