import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { ACCESS_COOKIE, REFRESH_COOKIE } from './auth.ts';
import { AppError } from './errors.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cookies ride along on cross-site requests, so a state-changing request that only a cookie authenticates
 * must come from an allowed origin. A bearer header cannot be forged cross-site and is not checked.
 */
export function csrfGuard(config: Config) {
  const allowed = new Set(config.corsOrigins);
  // A plain callback hook: it runs on every request and decides without waiting, so no promise per request.
  return (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    done(refusal(request));
  };

  function refusal(request: FastifyRequest): AppError | undefined {
    if (!STATE_CHANGING.has(request.method) || request.headers.authorization || request.url.startsWith('/public/')) return undefined;
    const origin = request.headers.origin;
    if (!origin || allowed.has(origin) || sameHost(origin, request.headers.host)) return undefined;
    const cookie = request.headers.cookie ?? '';
    if (cookie.includes(`${ACCESS_COOKIE}=`) || cookie.includes(`${REFRESH_COOKIE}=`)) {
      return new AppError(403, 'csrf_rejected', `Origin ${origin} may not make cookie-authenticated changes; add it to CORS_ORIGINS or send a bearer token`);
    }
    return undefined;
  }
}

/**
 * The console at /admin calls the API from the service's own origin. Only this service answers for its host, so
 * an Origin naming the host the request was sent to is not another site (the scheme is not compared: behind a
 * TLS-terminating proxy the service sees http while the browser says https).
 */
function sameHost(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}
