import { randomUUID } from 'node:crypto';
import helmet, { type HelmetOptions } from 'helmet';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Helmet's headers, computed once. @fastify/helmet builds a new helmet middleware (and re-parses the CSP)
 * for every request; the headers never vary here, so one object set per response does the same work for less.
 */
export function computeSecurityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  // helmet only calls setHeader/removeHeader on the response: a minimal stand-in for Node's objects.
  helmet(options)({} as unknown as IncomingMessage, res as unknown as ServerResponse, () => {});
  return headers;
}

/**
 * The security headers of every API response. The API answers JSON; the docs page and the presentation page relax
 * the policy on their own routes. HSTS only when cookies are `Secure` (the service is then behind HTTPS).
 */
export function apiSecurityHeaders(cookieSecure: boolean): Record<string, string> {
  return computeSecurityHeaders({
    contentSecurityPolicy: {
      directives: { defaultSrc: ["'self'"], imgSrc: ["'self'", 'data:', 'https:'], styleSrc: ["'self'", "'unsafe-inline'"], upgradeInsecureRequests: null },
    },
    strictTransportSecurity: cookieSecure ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: a well-formed incoming `X-Request-Id` is echoed, otherwise a new UUID. */
export function requestIdOf(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** The security headers and the request's id, set in one hook (each hook is a step of every request). */
export function registerSecurityHeaders(app: FastifyInstance, headers: Record<string, string>) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).headers(headers);
    done();
  });
}
