import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import { noStore } from './http/csrf.ts';
import { ConnectionLimits } from './http/connection-limits.ts';
import { registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerTracing } from './http/tracing.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { MODULES, type ModuleDeps } from './app-modules.ts';
import { webhooksSection } from './modules/webhooks/webhooks.openapi.ts';
import { BundleMemo } from './public/bundle-memo.ts';
import { LiveFeed } from './public/live-feed.ts';
import { createServer, recordMethods, registerGuards } from './app/http-edge.ts';
import { registerJobs } from './app/jobs.ts';
import { buildServices } from './app/services.ts';

export interface BuildAppOptions {
  config: Config;
  db: Db;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
}

/**
 * The whole HTTP service as a Fastify instance: the services it builds (app/services.ts), the HTTP edge
 * (app/http-edge.ts), every module's routes (app-modules.ts) and the background jobs (app/jobs.ts). It never
 * listens: main.ts does, tests inject.
 */
export async function buildApp({ config, db, clock = systemClock, logger }: BuildAppOptions): Promise<FastifyInstance> {
  const app = createServer(
    config,
    MODULES.flatMap((m) => m.schemas ?? []),
    logger,
  );
  // Before the HTTP parser: an address holding idle connections cannot use up the node's file descriptors.
  const connections = new ConnectionLimits(config.connections);
  connections.install(app.server);
  const services = await buildServices(config, db, clock, app.log);
  const { replayMaxEvents, replayBudgetMs, replays, replayCacheMb } = config.sse;
  const feed = new LiveFeed(db, app.log, config.sseKeepAliveSec * 1000, {
    maxEvents: replayMaxEvents,
    budgetMs: replayBudgetMs,
    concurrent: replays,
    cacheBytes: replayCacheMb * 1024 * 1024,
  });

  // Operations (docs/deploy.md): each is loaded, and hooks into requests, only when its setting is present.
  const { metricsToken, otlpEndpoint } = config.observability;
  if (otlpEndpoint) await registerTracing(app, otlpEndpoint);
  if (metricsToken) {
    await registerMetrics(app, {
      token: metricsToken,
      sseStreams: () => feed.streamCount,
      sseReplays: () => feed.replays,
      outboxJobs: () => services.ctx.outbox.counts(),
      dbConnections: () => db.connections(),
      connections,
    });
  }
  const methods = recordMethods(app);
  await registerGuards(app, config, services.redis);
  await registerOpenApi(app, { webhooks: webhooksSection(), publicUrl: config.mail.publicUrl });

  // Any write this node answers makes the public bundles be checked again at their next request.
  const bundleMemo = new BundleMemo();
  app.addHook('onSend', bundleMemo.afterWrite);
  const deps: ModuleDeps = { ctx: services.ctx, inventory: services.inventory, webhookDispatcher: services.webhookDispatcher, feed, bundleMemo };
  for (const mod of MODULES) for (const routes of mod.public ?? []) await app.register(routes, deps);
  await app.register(async (authenticated) => {
    // Before authenticating, so a 401 carries it too: nothing a session reads is kept by a browser or a proxy.
    authenticated.addHook('onRequest', noStore);
    authenticated.addHook('onRequest', services.ctx.auth.authenticate);
    for (const mod of MODULES) for (const routes of mod.authenticated ?? []) await authenticated.register(routes, deps);
  });
  methods.answerOtherMethods();

  registerJobs(app, services, feed);
  return app;
}
