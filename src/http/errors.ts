import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problemFromDatabaseError } from '../db/pg-errors.ts';
import { AppError, ERROR_CODES, ERRORS, statusOf, type ErrorCode, type FieldError } from './errors.catalogue.ts';

export { AppError, ERROR_CODES, ERRORS, statusOf, type ErrorCode, type FieldError } from './errors.catalogue.ts';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance?: string;
  requestId?: string;
  errors?: FieldError[];
}

export const notFound = (what = 'Resource') => ERRORS.notFound(`${what} not found`);

/** The one text of field errors in `detail`: `name is required; floors/0 is not a floor of this project`. */
export const fieldErrorText = (errors: FieldError[]) => errors.map((e) => `${e.path.slice(1) || 'request'} ${e.message}`).join('; ');

/** The problem document of a code; its status and title are the catalogue's (errors.catalogue.ts). */
export function problem(code: ErrorCode, detail: string, extra: Partial<Problem> = {}): Problem {
  return { type: `urn:showsuite:problem:${code}`, title: ERROR_CODES[code], status: statusOf(code), detail, code, ...extra };
}

/** The `Retry-After` of a 503 that names none: about how long a restarting database or store takes to answer again. */
export const RETRY_UNAVAILABLE_SEC = 5;

export function sendProblem(reply: FastifyReply, body: Problem, headers?: Record<string, string>) {
  if (headers) reply.headers(headers);
  if (body.status === 401 && !reply.hasHeader('www-authenticate')) reply.header('WWW-Authenticate', 'Bearer realm="showsuite"');
  // Unavailable for a moment (the database, a store, a queue not started): say when to come back.
  if (body.status === 503 && !reply.hasHeader('retry-after')) reply.header('Retry-After', String(RETRY_UNAVAILABLE_SEC));
  return reply.code(body.status).type('application/problem+json').send(JSON.stringify(body));
}

const VALIDATION_CODE: Record<string, ErrorCode> = {
  body: 'invalid_body',
  querystring: 'invalid_query',
  params: 'invalid_params',
  headers: 'invalid_query',
};

/** A framework's 4xx by its status (a plugin's 413, a 415), answered under the code the catalogue gives that status. */
const FRAMEWORK_CODE: Partial<Record<number, ErrorCode>> = {
  404: 'not_found',
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
};

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Ajv errors → one `{ path, message }` per bad field, as JSON pointers from the part that was validated. */
export function fieldErrorsFromAjv(errors: AjvError[]): FieldError[] {
  const out = new Map<string, FieldError>();
  for (const e of errors) {
    let path = e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      path += `/${String(e.params.missingProperty)}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path += `/${String(e.params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) {
      message = `must be one of: ${e.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (e.keyword === 'format') {
      message =
        e.params.format === 'email'
          ? 'must be an e-mail address'
          : e.params.format === 'email-list'
            ? 'must be one or more e-mail addresses separated by commas'
            : e.params.format === 'time-zone'
              ? 'must be an IANA time zone name, such as America/Toronto'
              : `must be a valid ${String(e.params.format)}`;
    }
    if (!out.has(path)) out.set(path, { path: path || '/', message });
  }
  return [...out.values()];
}

export function errorHandler(error: FastifyError & { validationContext?: string }, request: FastifyRequest, reply: FastifyReply) {
  const requestId = request.id;
  // A client that went away mid-request (reset, aborted body) is neither a database outage nor our fault.
  if (request.raw.destroyed && (!request.raw.complete || error.code === 'ECONNRESET')) {
    request.log.info({ code: error.code }, 'client closed the connection before the request was complete');
    return sendProblem(reply, problem('invalid_request', 'The client closed the connection'));
  }
  if (error instanceof AppError) {
    return sendProblem(reply, { ...error.extra, ...problem(error.code, error.detail, error.errors ? { errors: error.errors } : {}) }, error.headers);
  }
  if (error.validation) {
    const code = VALIDATION_CODE[error.validationContext ?? 'body'] ?? 'invalid_body';
    const errors = fieldErrorsFromAjv(error.validation);
    return sendProblem(reply, problem(code, fieldErrorText(errors), { errors }));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendProblem(reply, problem('unsupported_media_type', 'Request bodies must be application/json'));
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      // Each route's own limit (an import takes far more than a JSON record), named in words and as a number.
      const maxBytes = request.routeOptions.bodyLimit;
      const size = maxBytes % 1048576 === 0 ? `${maxBytes / 1048576} MiB` : `${maxBytes} bytes`;
      return sendProblem(reply, {
        ...problem('payload_too_large', `Request body exceeds ${size}, the most this route takes`, {
          errors: [{ path: '/', message: `is larger than ${maxBytes} bytes` }],
        }),
        maxBytes,
      } as Problem);
    }
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      if (/forbidden prototype property/.test(error.message)) {
        // The parser refuses it before anything can be polluted; it does not say where, so the body is named.
        const message = 'has a field named __proto__, which is not an allowed field name';
        return sendProblem(reply, problem('invalid_body', `request ${message}`, { errors: [{ path: '/', message }] }));
      }
    // falls through
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return sendProblem(reply, problem('invalid_json', 'The request body is not valid JSON'));
  }
  if (error.statusCode === 429) {
    return sendProblem(reply, problem('rate_limited', error.message || 'Too many requests'));
  }
  const mapped = problemFromDatabaseError(error);
  if (mapped) {
    if (mapped.status >= 500) request.log.error({ err: error }, 'database unavailable');
    return sendProblem(reply, problem(mapped.code, mapped.detail, mapped.status >= 500 ? { requestId } : {}));
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    // Framework-level client errors (bad headers, aborted bodies): safe to name, never internal details. The code is
    // the catalogue's for that status, so a code keeps its one status; any other 4xx is a bad body.
    return sendProblem(reply, problem(FRAMEWORK_CODE[error.statusCode] ?? 'invalid_body', error.message));
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendProblem(reply, problem('internal', `Unexpected error; quote request id ${requestId}`, { requestId }));
}
