import fastifyCors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { problem, sendProblem } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by @fastify/cors on a preflight it answered for. */
    corsPreflightEnabled: boolean;
  }
  interface FastifyContextConfig {
    /** @fastify/cors options that replace the plugin's own for this route. */
    cors?: Record<string, unknown>;
    /** On the OPTIONS route of a path: the path's methods, as `Allow` names them. */
    allow?: string;
  }
}

/** What every limited answer carries (@fastify/rate-limit), so a page can slow down before it is refused. */
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
/** What a page on a listed origin may read of an API answer (bearer token or cookies). */
export const PRIVATE_EXPOSED_HEADERS = ['ETag', 'Location', 'X-Total-Count', 'X-Request-Id', 'Retry-After', 'Idempotent-Replayed', ...RATE_LIMIT_HEADERS];
/** What any site may read of a public answer: the ETag it revalidates with, how long to wait after a 429, whether a POST was a replay. */
export const PUBLIC_EXPOSED_HEADERS = ['ETag', 'Retry-After', 'X-Request-Id', 'Idempotent-Replayed', ...RATE_LIMIT_HEADERS];
/** Every method the API answers; a listed origin may send any of them. */
export const PRIVATE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Request headers a listed origin may send: credentials, bodies, conditional and idempotent writes, stream resumption. */
export const PRIVATE_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Last-Event-ID', 'X-Request-Id'];
const PUBLIC_ALLOWED_HEADERS = ['Content-Type', 'If-None-Match', 'Idempotency-Key', 'Last-Event-ID', 'X-Request-Id'];

/**
 * Public presentation reads are open to every site; everything else only to CORS_ORIGINS, and an origin not listed
 * gets no CORS header at all. Two fixed option sets: the private set is the plugin's own (its origin check answers
 * `false` for an unlisted origin, which skips every header), routes under /public/ carry the public set in their
 * config. Browsers cache a preflight for 10 minutes.
 */
export async function registerCors(app: FastifyInstance, corsOrigins: string[]) {
  const publicCors = {
    origin: '*',
    credentials: false,
    exposedHeaders: PUBLIC_EXPOSED_HEADERS,
    // DELETE: a holder's page on any site releases its hold (DELETE /public/holds/{holdToken}).
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: PUBLIC_ALLOWED_HEADERS,
  };
  const listed = new Set(corsOrigins);
  // Before the plugin's own hook: it would answer such a request 400 (it takes every OPTIONS for a preflight).
  app.addHook('onRequest', answerPlainOptions);
  await app.register(fastifyCors, {
    hook: 'onRequest',
    origin: (origin: string | undefined, done: (err: Error | null, allow: string | false) => void) => {
      done(null, origin && listed.has(origin) ? origin : false);
    },
    credentials: true,
    methods: PRIVATE_METHODS,
    allowedHeaders: PRIVATE_ALLOWED_HEADERS,
    exposedHeaders: PRIVATE_EXPOSED_HEADERS,
    maxAge: 600,
  });
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/public/')) route.config = { ...route.config, cors: publicCors };
  });
  // Preflights of public calls (a page's POST /public/leads with a JSON body) meet the public set too.
  app.options('/public/*', { schema: { hide: true }, config: { cors: publicCors } }, async (request, reply) => {
    if (request.corsPreflightEnabled) return reply.send();
    reply.callNotFound();
    return reply;
  });
}

const isPreflight = (request: FastifyRequest) => request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;

/**
 * `OPTIONS` that is not a CORS preflight asks what a path allows: 204 with `Allow` on a known path (its OPTIONS
 * route carries the list), 404 problem+json on an unknown one.
 */
async function answerPlainOptions(request: FastifyRequest, reply: FastifyReply) {
  if (request.method !== 'OPTIONS' || isPreflight(request)) return;
  const allow = request.routeOptions.config.allow;
  if (allow === undefined) return sendProblem(reply, problem('not_found', `No route OPTIONS ${request.url.split('?')[0]}`));
  return reply.code(204).header('Allow', allow).send();
}

/**
 * The OPTIONS route of one path, given the methods its routes answer. A preflight from a listed origin never
 * reaches it (the CORS hook answers); one from an unlisted origin gets the `Allow` answer without CORS headers.
 */
export function optionsRoute(url: string, methods: Set<string>): RouteOptions {
  const names = PRIVATE_METHODS.filter((m) => methods.has(m) || (m === 'HEAD' && methods.has('GET')));
  const allow = [...names, 'OPTIONS'].join(', ');
  return {
    method: 'OPTIONS',
    url,
    schema: { hide: true },
    config: { allow },
    handler: async (_request, reply) => reply.code(204).header('Allow', allow).send(),
  };
}
