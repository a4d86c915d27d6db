import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ConnectionCounts } from '../db/db.ts';
import type { ConnectionLimits } from './connection-limits.ts';
import { commonJs } from '../lib/cjs.ts';
import { DurationHistogram } from './duration-histogram.ts';
import { ERRORS } from './errors.catalogue.ts';

/** What GET /metrics reads at each scrape; nothing here is computed per request. */
export interface MetricsSources {
  /** The bearer token a scrape must send (METRICS_TOKEN). */
  token: string;
  /** Live-feed streams open on this node now. */
  sseStreams: () => number;
  /** Resumed streams catching up on this node now, and `refetch` events sent since the start. */
  sseReplays: () => { running: number; refetches: number; cacheBytes: number };
  /** Outbox jobs by kind and state (one grouped count statement per scrape). */
  outboxJobs: () => Promise<{ kind: string; state: string; count: number }[]>;
  dbConnections: () => ConnectionCounts;
  /** Open and refused client connections of this node. */
  connections: Pick<ConnectionLimits, 'open' | 'refused'>;
}

/** The `route` label of a request no route matched: a fixed word, never the raw path (unbounded label values). */
export const UNMATCHED_ROUTE = 'unmatched';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics in Prometheus' text format, behind `Authorization: Bearer <METRICS_TOKEN>` (else 401). Called only
 * when METRICS_TOKEN is set: without it there is no route (404 like any unknown path) and no per-request hook.
 * prom-client is loaded here, not at every start.
 */
export async function registerMetrics(app: FastifyInstance, sources: MetricsSources): Promise<void> {
  const { Registry, Gauge, Counter, collectDefaultMetrics } = commonJs(await import('prom-client'));

  const registry = new Registry();
  // The pool as it stood when the scrape arrived: read while the scrape's own outbox count waits for its connection,
  // it would count that query as a waiter on every scrape of an idle node.
  let poolAtScrape: ConnectionCounts | undefined;
  collectDefaultMetrics({ register: registry });
  const duration = new DurationHistogram();
  new Gauge({
    name: 'showsuite_sse_streams',
    help: 'Live-feed (server-sent events) streams open on this node',
    registers: [registry],
    collect() {
      this.set(sources.sseStreams());
    },
  });
  new Gauge({
    name: 'showsuite_sse_replays',
    help: 'Resumed live-feed streams replaying what they missed on this node now',
    registers: [registry],
    collect() {
      this.set(sources.sseReplays().running);
    },
  });
  new Counter({
    name: 'showsuite_sse_refetches_total',
    help: 'Live-feed refetch events sent since the start (a stream too far behind, or a replay past its budget)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.sseReplays().refetches);
    },
  });
  new Gauge({
    name: 'showsuite_sse_replay_cache_bytes',
    help: 'Bytes of ready live-feed frames this node keeps for replays (SSE_REPLAY_CACHE_MB)',
    registers: [registry],
    collect() {
      this.set(sources.sseReplays().cacheBytes);
    },
  });
  new Gauge({
    name: 'showsuite_outbox_jobs',
    help: 'Outbox jobs (mail, webhooks, …) in the queue by kind and state, across all nodes',
    labelNames: ['kind', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const r of await sources.outboxJobs()) this.set({ kind: r.kind, state: r.state }, r.count);
      } catch (err) {
        // The database is away: the scrape still answers, with the other metrics.
        app.log.warn({ err }, 'metrics: outbox job counts unavailable');
      }
    },
  });
  new Gauge({
    name: 'showsuite_db_pool_connections',
    help: 'Database connections of this node: active (in use), idle, and waiting (callers queued for one)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const c = poolAtScrape ?? sources.dbConnections();
      this.set({ state: 'active' }, c.total - c.idle);
      this.set({ state: 'idle' }, c.idle);
      this.set({ state: 'waiting' }, c.waiting);
    },
  });

  new Gauge({
    name: 'showsuite_connections',
    help: 'Client connections open on this node (refused ones not counted)',
    registers: [registry],
    collect() {
      this.set(sources.connections.open);
    },
  });
  new Counter({
    name: 'showsuite_connections_refused_total',
    help: 'Client connections refused since the start: over CONNECTIONS_PER_CLIENT (client) or MAX_CONNECTIONS (node)',
    labelNames: ['bound'],
    registers: [registry],
    collect() {
      this.reset();
      const { client, node } = sources.connections.refused;
      this.inc({ bound: 'client' }, client);
      this.inc({ bound: 'node' }, node);
    },
  });

  app.addHook('onResponse', (request, reply, done) => {
    duration.observe(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const expected = digest(`Bearer ${sources.token}`);
  app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
    const given = request.headers.authorization;
    // Compared as digests: same length, constant time.
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      throw ERRORS.unauthorized('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    poolAtScrape = sources.dbConnections();
    const body = duration.text() + (await registry.metrics().finally(() => (poolAtScrape = undefined)));
    return reply.header('cache-control', 'no-store').type(registry.contentType).send(body);
  });
}
