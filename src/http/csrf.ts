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
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    if (!STATE_CHANGING.has(request.method) || request.headers.authorization) return;
    if (request.url.startsWith('/public/')) return;
    const origin = request.headers.origin;
    if (!origin || allowed.has(origin)) return;
    const cookie = request.headers.cookie ?? '';
    if (cookie.includes(`${ACCESS_COOKIE}=`) || cookie.includes(`${REFRESH_COOKIE}=`)) {
      throw new AppError(403, 'csrf_rejected', `Origin ${origin} may not make cookie-authenticated changes; add it to CORS_ORIGINS or send a bearer token`);
    }
  };
}
