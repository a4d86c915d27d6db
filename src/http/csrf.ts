import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { ACCESS_COOKIE, REFRESH_COOKIE } from './auth.ts';
import { AppError } from './errors.ts';
import { ERRORS } from './errors.catalogue.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cookies ride along on cross-site requests, so a state-changing request that only a cookie authenticates
 * must come from an allowed origin. A bearer header cannot be forged cross-site and is not checked. Browsers send
 * `Origin` on such requests; one without it is judged by what else the browser says: `Sec-Fetch-Site: cross-site`
 * is refused, then a `Referer` from another origin is refused (a request with neither, as a program sends it, passes).
 */
export function csrfGuard(config: Config) {
  const allowed = new Set(config.corsOrigins);
  // A plain callback hook: it runs on every request and decides without waiting, so no promise per request.
  return (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    done(refusal(request));
  };

  function refusal(request: FastifyRequest): AppError | undefined {
    if (!STATE_CHANGING.has(request.method) || request.headers.authorization || request.url.startsWith('/public/')) return undefined;
    const cookie = request.headers.cookie ?? '';
    if (!cookie.includes(`${ACCESS_COOKIE}=`) && !cookie.includes(`${REFRESH_COOKIE}=`)) return undefined;
    const host = request.headers.host;
    const origin = request.headers.origin;
    if (origin) {
      if (allowed.has(origin) || sameHost(origin, host)) return undefined;
      return ERRORS.csrfRejected(`Origin ${origin} may not make cookie-authenticated changes; add it to CORS_ORIGINS or send a bearer token`);
    }
    if (request.headers['sec-fetch-site'] === 'cross-site') {
      return ERRORS.csrfRejected('A cross-site request may not make cookie-authenticated changes; send a bearer token');
    }
    const referer = request.headers.referer;
    if (referer !== undefined) {
      const from = originOf(referer);
      if (from === undefined || !(allowed.has(from) || sameHost(from, host))) {
        return ERRORS.csrfRejected('A request referred by another site may not make cookie-authenticated changes; send a bearer token');
      }
    }
    return undefined;
  }
}

const originOf = (url: string): string | undefined => {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
};

/**
 * The console at /admin calls the API from the service's own origin. Only this service answers for its host, so
 * an Origin naming the host the request was sent to is not another site (the scheme is not compared: behind a
 * TLS-terminating proxy the service sees http while the browser says https).
 */
function sameHost(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    // A Host header may name the scheme's default port, which a URL leaves out.
    return new URL(origin).host.toLowerCase() === host.toLowerCase().replace(/:(80|443)$/, '');
  } catch {
    return false;
  }
}

/**
 * `Cache-Control: no-store` on an answer to an authenticated request (the whole authenticated scope, the leads CSV
 * included): what a session reads is never kept by the browser's cache or a shared one.
 */
export function noStore(_request: FastifyRequest, reply: FastifyReply, done: () => void) {
  reply.header('Cache-Control', 'no-store');
  done();
}
