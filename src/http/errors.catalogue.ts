/**
 * The closed catalogue of errors a client may see: each `code` with its one status and its one title, and one named
 * factory per code (`ERRORS.notFound(detail)`), so no throw site chooses a status. `AppError` is made here only;
 * `test/unit/errors-catalogue.test.ts` fails on a `new AppError(` anywhere else in `src/`, and docs/errors.md's
 * catalogue table is checked against this one. How to add a code: docs/errors.md ("Adding an error code").
 */
export const ERROR_KINDS = {
  invalid_body: { status: 400, title: 'Invalid request body' },
  invalid_query: { status: 400, title: 'Invalid query parameters' },
  invalid_params: { status: 400, title: 'Invalid path parameters' },
  invalid_json: { status: 400, title: 'Malformed JSON' },
  invalid_request: { status: 400, title: 'Malformed request' },
  uri_too_long: { status: 414, title: 'URI too long' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  request_timeout: { status: 408, title: 'Request timeout' },
  // BILLING=stripe: the owner's plan does not allow it (more published projects, hidden branding); docs/billing.md.
  plan_limit: { status: 402, title: 'Plan limit reached' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Forbidden' },
  csrf_rejected: { status: 403, title: 'Cross-site request rejected' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  precondition_failed: { status: 412, title: 'Precondition failed' },
  gone: { status: 410, title: 'Gone' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  too_many_rows: { status: 413, title: 'Too many rows' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Too many requests' },
  // A server this one called while answering (an inventory feed, the sign-in provider, the media store) failed or
  // did not answer: 502 Bad Gateway, not 503, which says this server itself cannot answer.
  upstream_failed: { status: 502, title: 'Upstream server failed' },
  // Payments are not configured on this server (no STRIPE_SECRET_KEY): a deposit's endpoints cannot answer (docs/deposits.md).
  payments_off: { status: 503, title: 'Payments are not configured' },
  // Plans are off on this server (no BILLING=stripe): the subscription endpoints cannot answer (docs/billing.md).
  billing_off: { status: 404, title: 'Billing is not configured' },
  database_unavailable: { status: 503, title: 'Service unavailable' },
  rate_limit_unavailable: { status: 503, title: 'Service unavailable' },
  too_many_connections: { status: 503, title: 'Service unavailable' },
  starting: { status: 503, title: 'Service starting' },
  internal: { status: 500, title: 'Internal server error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_KINDS;

/** The title of each code (the machine words and their fixed titles, as `/openapi.json`'s `Problem.code` lists them). */
export const ERROR_CODES = Object.fromEntries(Object.entries(ERROR_KINDS).map(([code, kind]) => [code, kind.title])) as {
  readonly [C in ErrorCode]: (typeof ERROR_KINDS)[C]['title'];
};

/** The one status of a code. */
export const statusOf = (code: ErrorCode): number => ERROR_KINDS[code].status;

export interface FieldError {
  path: string;
  message: string;
}

/** What a problem may carry besides its detail. */
export interface ProblemMembers {
  /** One entry per bad field (`path` a JSON pointer into the part validated). */
  errors?: FieldError[];
  /** Response headers sent with it (`Retry-After`). */
  headers?: Record<string, string>;
  /** Extension members of the problem body (RFC 9457's extension members), e.g. an import's answer next to a 400, `maxBytes`. */
  extra?: Record<string, unknown>;
  /** The failure behind it, for the log; never sent. */
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  readonly extra?: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    members: ProblemMembers = {},
  ) {
    super(detail, members.cause === undefined ? undefined : { cause: members.cause });
    this.status = statusOf(code);
    if (members.errors) this.errors = members.errors;
    if (members.headers) this.headers = members.headers;
    if (members.extra) this.extra = members.extra;
  }
}

type Factory = (detail: string, members?: ProblemMembers) => AppError;
const factory =
  (code: ErrorCode): Factory =>
  (detail, members) =>
    new AppError(code, detail, members);

/** One factory per code, named after it: `ERRORS.invalidBody('name is required', { errors: [{ path: '/name', message: 'is required' }] })`. */
export const ERRORS = {
  invalidBody: factory('invalid_body'),
  invalidQuery: factory('invalid_query'),
  invalidParams: factory('invalid_params'),
  invalidJson: factory('invalid_json'),
  invalidRequest: factory('invalid_request'),
  uriTooLong: factory('uri_too_long'),
  headersTooLarge: factory('headers_too_large'),
  requestTimeout: factory('request_timeout'),
  planLimit: factory('plan_limit'),
  invalidCredentials: factory('invalid_credentials'),
  unauthorized: factory('unauthorized'),
  forbidden: factory('forbidden'),
  csrfRejected: factory('csrf_rejected'),
  notFound: factory('not_found'),
  methodNotAllowed: factory('method_not_allowed'),
  conflict: factory('conflict'),
  preconditionFailed: factory('precondition_failed'),
  gone: factory('gone'),
  payloadTooLarge: factory('payload_too_large'),
  tooManyRows: factory('too_many_rows'),
  unsupportedMediaType: factory('unsupported_media_type'),
  idempotencyKeyReused: factory('idempotency_key_reused'),
  rateLimited: factory('rate_limited'),
  upstreamFailed: factory('upstream_failed'),
  paymentsOff: factory('payments_off'),
  billingOff: factory('billing_off'),
  databaseUnavailable: factory('database_unavailable'),
  rateLimitUnavailable: factory('rate_limit_unavailable'),
  tooManyConnections: factory('too_many_connections'),
  starting: factory('starting'),
  internal: factory('internal'),
} as const satisfies { [K in ErrorCode as CamelCase<K>]: Factory };

type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;
