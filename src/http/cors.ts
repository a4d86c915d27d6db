import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by @fastify/cors on a preflight it answered for. */
    corsPreflightEnabled: boolean;
  }
  interface FastifyContextConfig {
    /** @fastify/cors options that replace the plugin's own for this route. */
    cors?: Record<string, unknown>;
  }
}

/** What a page on another origin may read of an API answer (cookie-carrying calls, from CORS_ORIGINS only). */
export const PRIVATE_EXPOSED_HEADERS = ['ETag', 'X-Total-Count', 'X-Request-Id', 'Location', 'Retry-After', 'Idempotent-Replayed'];
/** What any site may read of a public answer: the ETag it revalidates with, how long to wait after a 429, whether a POST was a replay. */
export const PUBLIC_EXPOSED_HEADERS = ['ETag', 'Retry-After', 'X-Request-Id', 'Idempotent-Replayed'];

/**
 * Public presentation reads are open to every site; cookie-carrying calls only to CORS_ORIGINS. Two fixed option
 * sets, normalised once: the private set is the plugin's own, routes under /public/ carry the public set in their
 * config (a delegator chose per request, and the plugin normalised its answer again for every request).
 */
export async function registerCors(app: FastifyInstance, corsOrigins: string[]) {
  const publicCors = { origin: '*', credentials: false, exposedHeaders: PUBLIC_EXPOSED_HEADERS };
  await app.register(fastifyCors, { hook: 'onRequest', origin: corsOrigins, credentials: true, exposedHeaders: PRIVATE_EXPOSED_HEADERS });
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
