import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fastifyRateLimit from '@fastify/rate-limit';
import type { Config } from './config.ts';
import type { Ctx } from './context.ts';
import type { Db } from './db/db.ts';
import { Auth } from './http/auth.ts';
import { findApiTokenPrincipal, touchApiToken } from './modules/tokens/tokens.repo.ts';
import { findSessionPrincipal } from './modules/users/sessions.repo.ts';
import { jsonWithEmptyAsNone, notModifiedOnMatch } from './http/conditional.ts';
import { connectRedis, MemoryCounters, RedisCounters, type Counters } from './http/counters.ts';
import { clientErrorHandler, frameworkErrors } from './http/client-errors.ts';
import { csrfGuard, noStore } from './http/csrf.ts';
import { parseQuery } from './http/input-guard.ts';
import { lazySerializers } from './http/lazy-compilers.ts';
import { BatchedStdout } from './http/log-stream.ts';
import { OneLinePerRequest, requestLogger } from './http/request-log.ts';
import { AppError, errorHandler, problem, sendProblem } from './http/errors.ts';
import { registerOpenApi } from './http/openapi.ts';
import { apiSecurityHeaders, registerSecurityHeaders, requestIdOf } from './http/security-headers.ts';
import { optionsRoute, registerCors } from './http/cors.ts';
import { pagesHostGuard } from './http/pages-host.ts';
import { buildValidatorCompiler, SHARED_SCHEMAS } from './http/validation.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { Passwords } from './lib/passwords.ts';
import { SecretBox } from './lib/secret-box.ts';
import { MailQueue } from './mail/mail.ts';
import { Mailer } from './mail/mailer.ts';
import { Outbox } from './outbox/outbox.ts';
import { AuthService } from './modules/users/auth.service.ts';
import { FeedScheduler } from './modules/inventory/feed.scheduler.ts';
import { InventoryService } from './modules/inventory/inventory.service.ts';
import { MODULES, type ModuleDeps } from './app-modules.ts';
import { sweepOnce } from './public/hold-sweeper.ts';
import { EventLog } from './modules/events/event-log.ts';
import { WebhookDispatcher } from './modules/webhooks/webhooks.dispatcher.ts';
import { webhooksSection } from './modules/webhooks/webhooks.openapi.ts';
import { LiveFeed } from './public/live-feed.ts';
import { BundleMemo } from './public/bundle-memo.ts';
import { openMediaStore } from './modules/media/media.store.ts';
import { OrphanSweeper } from './modules/media/orphan.sweeper.ts';
import { registerMetrics } from './http/metrics.ts';
import { registerTracing } from './http/tracing.ts';
import { InsightsSchedule } from './modules/insights/insights.schedule.ts';
import { registerReports } from './modules/insights/report.ts';

export interface BuildAppOptions {
  config: Config;
  db: Db;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The whole HTTP service as a Fastify instance. It never listens: main.ts does, tests inject. */
export async function buildApp({ config, db, clock = systemClock, logger }: BuildAppOptions): Promise<FastifyInstance> {
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
    // Slow clients: headers and body within requestTimeoutMs, checked every second; idle
    // keep-alive connections closed after keepAliveTimeoutMs.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: { requestTimeout: config.requestTimeoutMs, headersTimeout: config.requestTimeoutMs, connectionsCheckingInterval: 1000 },
    frameworkErrors,
    routerOptions: { querystringParser: parseQuery },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
    clientErrorHandler: clientErrorHandler(config.requestTimeoutMs),
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Each module names its own schemas (app-modules.ts); Problem and Invite are shared by several.
  const moduleSchemas = MODULES.flatMap((m) => m.schemas ?? []);
  for (const schema of [...SHARED_SCHEMAS, ...moduleSchemas]) app.addSchema(schema);
  app.setValidatorCompiler(buildValidatorCompiler(moduleSchemas));
  app.setErrorHandler(errorHandler);
  // A route that takes a body gets `{}` when none was sent (validation sees the same), so handlers can read fields.
  app.addHook('onRoute', (route) => {
    if (!route.schema?.body) return;
    const emptyBody = async (request: { body: unknown }) => {
      if (request.body === undefined) request.body = {};
    };
    route.preValidation = [emptyBody, ...(route.preValidation ? [route.preValidation].flat() : [])];
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, problem(404, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}`)));
  // Only JSON bodies: without a text/plain parser such bodies get 415 instead of reaching validation as strings.
  app.removeContentTypeParser('text/plain');
  jsonWithEmptyAsNone(app);
  notModifiedOnMatch(app);
  app.decorateRequest('principal', undefined);

  const redis = config.redisUrl ? await connectRedis(config.redisUrl, app.log) : undefined;
  const counters: Counters = redis ? new RedisCounters(redis) : new MemoryCounters(() => clock.now());
  const auth = new Auth(
    config,
    {
      session: (sid) => findSessionPrincipal(db.kysely, sid),
      apiToken: (hash, now) => findApiTokenPrincipal(db.kysely, hash, now),
      touchApiToken: (id, now, staleBefore) => touchApiToken(db.kysely, id, now, staleBefore),
    },
    clock,
  );
  const passwords = new Passwords(config.argon2);
  const secrets = new SecretBox(config.secretKey);
  // Kinds are registered here and by route plugins; the worker starts when the app is ready (after migrations).
  const outbox = new Outbox(db, clock, { ...config.outbox, log: app.log });
  const mailer = new Mailer(config, app.log);
  const ctx: Ctx = {
    config,
    db,
    clock,
    auth,
    passwords,
    counters,
    secrets,
    outbox,
    mail: new MailQueue(outbox, mailer, secrets, app.log),
    events: new EventLog(),
    authService: new AuthService(config, db, auth, passwords, counters, clock),
    media: await openMediaStore(config),
  };

  const inventory = new InventoryService(ctx);
  const feedScheduler = new FeedScheduler(ctx, inventory, app.log);
  app.decorate('feedScheduler', feedScheduler);
  // Webhook deliveries go through the outbox; the event log starts them in each event's transaction.
  const webhooks = new WebhookDispatcher({ db: db.kysely, clock, secrets, config, outbox, log: app.log });
  webhooks.register();
  ctx.events.deliverWith((trx, ids) => webhooks.enqueue(trx, ids));

  // Operations (docs/deploy.md): each is loaded, and hooks into requests, only when its setting is present.
  const { metricsToken, otlpEndpoint } = config.observability;
  if (otlpEndpoint) await registerTracing(app, otlpEndpoint);
  if (metricsToken) {
    await registerMetrics(app, {
      token: metricsToken,
      // The live feed is created below; scrapes come after the app is ready.
      sseStreams: () => feed.streamCount,
      outboxJobs: () => outbox.counts(),
      dbConnections: () => db.connections(),
    });
  }
  // Record every path's methods so other methods on a known path answer 405 with Allow, not 404,
  // and OPTIONS answers with the same list (recorded from here on: the docs routes too).
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const m of methods) set.add(m);
    methodsByUrl.set(route.url, set);
  });

  registerSecurityHeaders(app, apiSecurityHeaders(config.cookieSecure));
  // Before CORS, CSRF and authentication: on the pages host no cookie is read and no session route is reached.
  app.addHook('onRequest', pagesHostGuard(config));
  await registerCors(app, config.corsOrigins);
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
  await registerOpenApi(app, { webhooks: webhooksSection(), publicUrl: config.mail.publicUrl });

  const feed = new LiveFeed(db, app.log, config.sseKeepAliveSec * 1000);
  app.addHook('onReady', () => feed.start());
  // Open streams would keep the server from closing.
  app.addHook('preClose', () => feed.stop());
  // Any write this node answers makes the public bundles be checked again at their next request.
  const bundleMemo = new BundleMemo();
  app.addHook('onSend', bundleMemo.afterWrite);
  const deps: ModuleDeps = { ctx, service: inventory, dispatcher: webhooks, feed, bundleMemo };
  for (const mod of MODULES) for (const routes of mod.public ?? []) await app.register(routes, deps);
  await app.register(async (authenticated) => {
    // Before authenticating, so a 401 carries it too: nothing a session reads is kept by a browser or a proxy.
    authenticated.addHook('onRequest', noStore);
    authenticated.addHook('onRequest', auth.authenticate);
    for (const mod of MODULES) for (const routes of mod.authenticated ?? []) await authenticated.register(routes, deps);
  });

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
        return sendProblem(reply, problem(405, 'method_not_allowed', `${request.method} is not allowed on ${url}; use ${allow.join(', ')}`));
      },
    });
  }

  // Lapsed holds already read as available; the sweeper makes the stored rows agree (one node per interval).
  let sweeper: NodeJS.Timeout | undefined;
  if (config.limits.holdSweepSec > 0) {
    app.addHook('onReady', async () => {
      sweeper = setInterval(() => {
        // Priority holds the sweep offers (§18) are mailed through the outbox once it commits.
        sweepOnce(db.kysely, clock.now(), ctx.events, ctx)
          .then(() => {
            ctx.mail.wake();
          })
          .catch((err: unknown) => {
            app.log.warn({ err }, 'hold sweep failed');
          });
      }, config.limits.holdSweepSec * 1000);
      sweeper.unref();
    });
  }
  app.decorate('sweepHolds', async () => {
    const result = await sweepOnce(db.kysely, clock.now(), ctx.events, ctx);
    ctx.mail.wake();
    return result;
  });
  // Operations and tests reach the queue here (drain, jobs); routes use ctx.outbox.
  app.decorate('outbox', outbox);
  // A database that is down when the app starts must not stop it (503 meanwhile, recovery by itself):
  // the queue is started again every few seconds until it answers.
  let outboxRetry: NodeJS.Timeout | undefined;
  const startOutbox = async (): Promise<void> => {
    try {
      await outbox.start();
    } catch (err) {
      app.log.warn({ err }, 'outbox not started (database unavailable?); retrying in 5 s');
      outboxRetry = setTimeout(() => {
        startOutbox().catch(() => undefined);
      }, 5000);
      outboxRetry.unref();
    }
  };
  app.addHook('onReady', startOutbox);
  // Shutting down: no attempt starts from now on; those in flight get until 80% of SHUTDOWN_TIMEOUT_SEC (while
  // requests drain), then go back to the queue (onClose below), leaving the rest for closing the pool.
  let closingAt = 0;
  app.addHook('preClose', async () => {
    closingAt = Date.now();
    outbox.quiesce();
  });
  // Inventory feeds: every node ticks; one pull per project per interval across nodes (docs/inventory.md).
  app.addHook('onReady', async () => {
    feedScheduler.start();
  });
  // Unreferenced uploads: every node ticks; one sweep per interval across nodes (docs/media.md).
  const mediaSweeper = new OrphanSweeper(ctx, ctx.media, app.log);
  app.decorate('mediaSweeper', mediaSweeper);
  app.addHook('onReady', async () => {
    mediaSweeper.start();
  });
  // Insights: weekly reports (once per project and week across nodes) and retention; every node ticks (docs/insights.md).
  registerReports(ctx, app.log);
  const insightsSchedule = new InsightsSchedule(ctx, app.log);
  app.decorate('insightsSchedule', insightsSchedule);
  app.addHook('onReady', async () => {
    insightsSchedule.start();
  });
  app.addHook('onClose', async () => {
    insightsSchedule.stop();
    mediaSweeper.stop();
    feedScheduler.stop();
    clearTimeout(outboxRetry);
    await outbox.stop(Math.max(0, closingAt + config.shutdownTimeoutSec * 800 - Date.now()));
    mailer.close();
    clearInterval(sweeper);
    redis?.disconnect();
  });
  return app;
}
