import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import fastifyRateLimit from '@fastify/rate-limit';
import type { Config } from './config.ts';
import type { Ctx } from './context.ts';
import type { Db } from './db/db.ts';
import { Auth } from './http/auth.ts';
import { connectRedis, MemoryCounters, RedisCounters, type Counters } from './http/counters.ts';
import { csrfGuard } from './http/csrf.ts';
import { AppError, errorHandler, problem, sendProblem } from './http/errors.ts';
import { healthRoutes } from './http/health.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { buildValidatorCompiler, SHARED_SCHEMAS } from './http/validation.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { Passwords } from './lib/passwords.ts';
import { SecretBox } from './lib/secret-box.ts';
import { AuthService } from './modules/users/auth.service.ts';
import { authRoutes } from './modules/users/auth.routes.ts';
import { userRoutes } from './modules/users/users.routes.ts';
import { floorRoutes } from './modules/floors/floors.routes.ts';
import { FloorSchema } from './modules/floors/floors.schemas.ts';
import { groupRoutes } from './modules/groups/groups.routes.ts';
import { GroupSchema } from './modules/groups/groups.schemas.ts';
import { leadRoutes } from './modules/leads/leads.routes.ts';
import { projectRoutes } from './modules/projects/projects.routes.ts';
import { ProjectSchema } from './modules/projects/projects.schemas.ts';
import { LeadSchema } from './modules/shared/fields.ts';
import { unitRoutes } from './modules/units/units.routes.ts';
import { UnitSchema } from './modules/units/units.schemas.ts';
import { presentationRoutes } from './presentation/presentation.routes.ts';
import { sweepOnce } from './public/hold-sweeper.ts';
import { BundleSchema, publicRoutes } from './public/public.routes.ts';

export interface BuildAppOptions {
  config: Config;
  db: Db;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The whole HTTP service as a Fastify instance. It never listens: main.ts does, tests inject. */
export async function buildApp({ config, db, clock = systemClock, logger }: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ?? {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
    },
    bodyLimit: 1024 * 1024,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const resourceSchemas = [LeadSchema, ProjectSchema, FloorSchema, UnitSchema, GroupSchema, BundleSchema];
  for (const schema of [...SHARED_SCHEMAS, ...resourceSchemas]) app.addSchema(schema);
  app.setValidatorCompiler(buildValidatorCompiler(resourceSchemas));
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, problem(404, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );
  // Only JSON bodies: without a text/plain parser such bodies get 415 instead of reaching validation as strings.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });

  const redis = config.redisUrl ? await connectRedis(config.redisUrl, app.log) : undefined;
  const counters: Counters = redis ? new RedisCounters(redis) : new MemoryCounters(() => clock.now());
  const auth = new Auth(config, db, clock);
  const passwords = new Passwords(config.argon2);
  const ctx: Ctx = {
    config,
    db,
    clock,
    auth,
    passwords,
    counters,
    secrets: new SecretBox(config.secretKey),
    authService: new AuthService(config, db, auth, passwords, counters, clock),
  };

  await app.register(fastifyCookie);
  registerSecurityHeaders(app, {
    // The API answers JSON; the docs page and presentation page relax this on their own routes.
    contentSecurityPolicy: {
      directives: { defaultSrc: ["'self'"], imgSrc: ["'self'", 'data:', 'https:'], styleSrc: ["'self'", "'unsafe-inline'"], upgradeInsecureRequests: null },
    },
    strictTransportSecurity: config.cookieSecure ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
  // Public presentation reads are open to every site; cookie-carrying calls only to CORS_ORIGINS.
  // Two fixed option sets, chosen per request by path.
  const publicCors = { origin: '*', credentials: false };
  const privateCors = { origin: config.corsOrigins, credentials: true, exposedHeaders: ['ETag', 'X-Total-Count', 'X-Request-Id', 'Location', 'Retry-After'] };
  await app.register(fastifyCors, {
    hook: 'onRequest',
    delegator: (request, callback) => callback(null, request.url.startsWith('/public/') ? publicCors : privateCors),
  });
  await app.register(fastifyRateLimit, {
    global: false,
    // Redis down: the per-minute limit lets requests through; the login-failure counters answer 503 instead.
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'showsuite:rl:route:' } : {}),
    errorResponseBuilder: (_request, context) => {
      const err = new AppError(429, 'rate_limited', `Rate limit exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`);
      return Object.assign(err, { statusCode: 429 });
    },
  });
  app.addHook('onRequest', csrfGuard(config));
  await registerOpenApi(app);

  // Record every path's methods so other methods on a known path answer 405 with Allow, not 404.
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const m of methods) set.add(m);
    methodsByUrl.set(route.url, set);
  });

  await app.register(healthRoutes, { ctx });
  await app.register(authRoutes, { ctx });
  await app.register(publicRoutes, { ctx });
  await app.register(presentationRoutes, { ctx });
  await app.register(async (authenticated) => {
    authenticated.addHook('onRequest', auth.authenticate);
    await authenticated.register(userRoutes, { ctx });
    await authenticated.register(projectRoutes, { ctx });
    await authenticated.register(floorRoutes, { ctx });
    await authenticated.register(unitRoutes, { ctx });
    await authenticated.register(groupRoutes, { ctx });
    await authenticated.register(leadRoutes, { ctx });
  });

  for (const [url, methods] of methodsByUrl) {
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
        return sendProblem(reply, problem(405, 'method_not_allowed', `${request.method} is not allowed on ${url}; use ${allow.join(', ')}`));
      },
    });
  }

  // Lapsed holds already read as available; the sweeper makes the stored rows agree (one node per interval).
  let sweeper: NodeJS.Timeout | undefined;
  if (config.limits.holdSweepSec > 0) {
    app.addHook('onReady', async () => {
      sweeper = setInterval(() => {
        sweepOnce(db.kysely, clock.now()).catch((err) => app.log.warn({ err }, 'hold sweep failed'));
      }, config.limits.holdSweepSec * 1000);
      sweeper.unref();
    });
  }
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    redis?.disconnect();
  });
  return app;
}
