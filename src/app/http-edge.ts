import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fastifyRateLimit from '@fastify/rate-limit';
import type { TSchema } from '@sinclair/typebox';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { clientErrorHandler, frameworkErrors } from '../http/client-errors.ts';
import { jsonWithEmptyAsNone, notModifiedOnMatch } from '../http/conditional.ts';
import { optionsRoute, registerCors } from '../http/cors.ts';
import { csrfGuard } from '../http/csrf.ts';
import { redisKeyDigest } from '../http/counters.ts';
import { errorHandler, problem, sendProblem } from '../http/errors.ts';
import { parseQuery } from '../http/input-guard.ts';
import { lazySerializers } from '../http/lazy-compilers.ts';
import { BatchedStdout } from '../http/log-stream.ts';
import { pagesHostGuard } from '../http/pages-host.ts';
import { OneLinePerRequest, requestLogger } from '../http/request-log.ts';
import { apiSecurityHeaders, registerSecurityHeaders, requestIdOf } from '../http/security-headers.ts';
import { buildValidatorCompiler, SHARED_SCHEMAS } from '../http/validation.ts';
import { ERRORS } from '../http/errors.catalogue.ts';

/** The Fastify instance with the service's logging, timeouts, query parser, schemas, validation and error handling. */
export function createServer(config: Config, moduleSchemas: readonly TSchema[], logger?: FastifyServerOptions['logger']) {
  const app = Fastify({
    logger: logger ?? {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
      stream: new BatchedStdout(),
    },
    logController: new OneLinePerRequest(),
    childLoggerFactory: requestLogger,
    bodyLimit: 1024 * 1024,
    trustProxy: config.trustProxy,
    // Slow clients: headers within headersTimeoutMs, headers and body within requestTimeoutMs, checked every
    // second; idle keep-alive connections closed after keepAliveTimeoutMs.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: { requestTimeout: config.requestTimeoutMs, headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    frameworkErrors,
    routerOptions: { querystringParser: parseQuery },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
    clientErrorHandler: clientErrorHandler(config.headersTimeoutMs, config.requestTimeoutMs),
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Each module names its own schemas (app-modules.ts); Problem is shared by all.
  for (const schema of [...SHARED_SCHEMAS, ...moduleSchemas]) app.addSchema(schema);
  app.setValidatorCompiler(buildValidatorCompiler([...moduleSchemas]));
  app.setErrorHandler(errorHandler);
  // A route that takes a body gets `{}` when none was sent (validation sees the same), so handlers can read fields.
  app.addHook('onRoute', (route) => {
    if (!route.schema?.body) return;
    const emptyBody = async (request: { body: unknown }) => {
      if (request.body === undefined) request.body = {};
    };
    route.preValidation = [emptyBody, ...(route.preValidation ? [route.preValidation].flat() : [])];
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, problem('not_found', `No route ${request.method} ${request.url.split('?')[0]}`)));
  // Only JSON bodies: without a text/plain parser such bodies get 415 instead of reaching validation as strings.
  app.removeContentTypeParser('text/plain');
  jsonWithEmptyAsNone(app);
  notModifiedOnMatch(app);
  app.decorateRequest('principal', undefined);
  return app;
}

/** The rate-limit key of a request in Redis: the client address's digest, never the address. */
function clientDigest(config: Config) {
  const digest = redisKeyDigest(config.secretKey);
  return (request: FastifyRequest) => digest(`ip:${request.ip}`);
}

/** Every request's guards, before any route: security headers, the pages host, CORS, rate limits, the CSRF check. */
export async function registerGuards(app: FastifyInstance, config: Config, redis: Redis | undefined): Promise<void> {
  registerSecurityHeaders(app, apiSecurityHeaders(config.cookieSecure));
  // Before CORS, CSRF and authentication: on the pages host no cookie is read and no session route is reached.
  app.addHook('onRequest', pagesHostGuard(config));
  await registerCors(app, config.corsOrigins);
  await app.register(fastifyRateLimit, {
    global: false,
    // Redis down: the per-minute limit lets requests through; the login-failure counters answer 503 instead.
    skipOnError: true,
    // In Redis a client's address is kept only as its digest (redisKeyDigest), under REDIS_PREFIX.
    ...(redis ? { redis, nameSpace: `${config.redisPrefix}rl:route:`, keyGenerator: clientDigest(config) } : {}),
    errorResponseBuilder: (_request, context) => {
      const err = ERRORS.rateLimited(`Rate limit exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`);
      return Object.assign(err, { statusCode: 429 });
    },
  });
  app.addHook('onRequest', csrfGuard(config));
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Records every path's methods from here on, so that, once the routes are in, `answerOtherMethods` can make other
 * methods on a known path answer 405 with Allow (not 404), and OPTIONS answer with the same list.
 */
export function recordMethods(app: FastifyInstance): { answerOtherMethods(): void } {
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const m of methods) set.add(m);
    methodsByUrl.set(route.url, set);
  });
  return {
    answerOtherMethods() {
      for (const [url, methods] of [...methodsByUrl]) {
        // OPTIONS on a known path that is not a CORS preflight: 204 with the path's methods in Allow (a wildcard
        // route cannot tell a path it serves from one it does not, so OPTIONS there stays 404).
        if (!url.includes('*') && !methods.has('OPTIONS')) app.route(optionsRoute(url, new Set(methods)));
        if (url.includes('*') || url.startsWith('/docs')) continue;
        const allow = METHODS.filter((m) => methods.has(m));
        // HEAD comes with GET; on a path without GET it is one more method not allowed.
        const missing = [...METHODS.filter((m) => !methods.has(m)), ...(methods.has('GET') || methods.has('HEAD') ? [] : ['HEAD' as const])];
        if (!allow.length || !missing.length) continue;
        app.route({
          method: [...missing],
          url,
          schema: { hide: true },
          handler: async (request, reply) => {
            reply.header('Allow', [...allow, ...(allow.includes('GET') ? ['HEAD'] : [])].join(', '));
            return sendProblem(reply, problem('method_not_allowed', `${request.method} is not allowed on ${url}; use ${allow.join(', ')}`));
          },
        });
      }
    },
  };
}
