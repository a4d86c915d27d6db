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
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name];
    },
  };
  // helmet only calls setHeader/removeHeader on the response: a minimal stand-in for Node's objects.
  helmet(options)({} as unknown as IncomingMessage, res as unknown as ServerResponse, () => {});
  return headers;
}

/** The security headers and the request's id, set in one hook (each hook is a step of every request). */
export function registerSecurityHeaders(app: FastifyInstance, options: HelmetOptions) {
  const headers = computeSecurityHeaders(options);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id).headers(headers);
    done();
  });
}
