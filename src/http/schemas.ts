import { Type, type TSchema, type Static } from '@sinclair/typebox';
import { ERROR_CODES } from './errors.ts';

export const ObjectId = Type.String({ pattern: '^[0-9a-f]{24}$', description: '24-character lower-case hex identifier' });
export const IdParams = Type.Object({ id: ObjectId }, { additionalProperties: false });
export const DateTime = Type.String({ format: 'date-time' });

/** An `Idempotency-Key` request header's value, as a route declares it; its form is checked by the handler. */
export const IdempotencyKeyHeader = Type.String({ description: 'Retry-safe key: the same key and request replay the first response' });

/**
 * The request header of a write that honours `Idempotency-Key`, as its route declares it (`schema.headers`): the
 * document names it by the shared parameter (http/openapi-document.ts). Any text passes here, so a malformed key gets
 * the handler's own 400 (`idempotencyKey`), the same problem on every create.
 */
export const IdempotencyHeaders = Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) });

/** The record's version: its ETag is `"<__v>"`, so a client can send If-Match straight from a list. */
export const Version = Type.Integer({
  minimum: 1,
  readOnly: true,
  description: 'Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies.',
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI naming the kind of problem: `urn:showsuite:problem:<code>`' }),
    title: Type.String({ description: 'Short human summary of the kind of problem' }),
    status: Type.Integer({ description: 'The HTTP status code', minimum: 100, maximum: 599 }),
    detail: Type.String({ description: 'What went wrong with this request, for people' }),
    code: Type.Union(
      Object.keys(ERROR_CODES).map((c) => Type.Literal(c)),
      { description: 'Stable machine word from a closed list (see the guide on errors); programs branch on it' },
    ),
    instance: Type.Optional(Type.String({ description: 'The request path' })),
    requestId: Type.Optional(Type.String({ description: 'The X-Request-Id of this request, for a 500' })),
    plan: Type.Optional(Type.String({ description: 'A 402 `plan_limit`: the plan in effect (`starter`, `pro`, or `none`)' })),
    limit: Type.Optional(Type.String({ description: 'A 402 `plan_limit`: what the plan limits (`publishedProjects` or `hideBranding`)' })),
    allowed: Type.Optional(
      Type.Union([Type.Integer(), Type.Boolean()], { description: 'A 402 `plan_limit`: what the plan allows (projects published at once, or false)' }),
    ),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer to the bad field (`/units/3`, `/query/options/limit`)' }),
          message: Type.String({ description: 'What is wrong with it' }),
        }),
        { description: 'One entry per bad field of a 400' },
      ),
    ),
  },
  { $id: 'Problem', title: 'Problem', description: 'RFC 9457 problem details' },
);

export const PROBLEM_TEXT: Record<number, string> = {
  304: 'Not modified',
  400: 'Invalid input; `errors` names each bad field',
  401: 'Missing, invalid or expired credentials',
  402: 'The owner’s plan does not allow this (plans on): `plan`, `limit` and `allowed` name the plan and its limit',
  403: 'Not allowed',
  404: 'Not found, or not visible to the caller',
  405: 'Method not allowed',
  409: 'Conflict with the current state',
  412: 'If-Match does not match the current ETag',
  410: 'The link was used, revoked or has expired',
  413: 'Body larger than 1 MiB',
  414: 'A path segment is longer than 100 characters',
  415: 'Body is not application/json',
  422: 'Idempotency-Key reused with another body',
  429: 'Rate limited; see Retry-After',
  500: 'Unexpected error; the body carries a request id',
  502: 'A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which',
  503: 'Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After',
};

/** Problem responses for the listed statuses, as OpenAPI sees them (the error handler writes the bodies). */
export function problems(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const s of [...statuses, 500, 503]) {
    out[s] = {
      description: PROBLEM_TEXT[s] ?? 'Error',
      content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
    };
  }
  return out;
}

export function json<T extends TSchema>(schema: T, description = 'OK') {
  return { description, content: { 'application/json': { schema } } };
}

export const NoContent = { description: 'No content', type: 'null' } as const;

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Problem = Static<typeof ProblemSchema>;
