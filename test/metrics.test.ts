import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { ConfigError } from '../src/config.ts';
import { MAIL_KIND } from '../src/mail/mail.ts';
import { buildTestApp, createFloor, createProject, createUnit, ENGINE, openTestDb, slug, testConfig, userWithToken, type TestApp } from './helpers.ts';

/**
 * Operations: GET /metrics (Prometheus text, only with METRICS_TOKEN set and sent as a bearer token), the trace id of
 * a W3C `traceparent` on the request's log line, and spans exported over OTLP/HTTP to a receiver this file runs.
 */

const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
const scrape = (t: TestApp, authorization?: string) =>
  t.app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });

/** The value of one sample line, `name{labels} value`, where every given label matches. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('METRICS_TOKEN and OTEL_EXPORTER_OTLP_ENDPOINT settings', () => {
  test('a short or spaced token and a non-HTTP endpoint stop the start, naming the setting', () => {
    for (const [env, name] of [
      [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
      [{ METRICS_TOKEN: 'has a space in it somewhere' }, 'METRICS_TOKEN'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    ] as const) {
      assert.throws(
        () => testConfig(env),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name),
      );
    }
    const ok = testConfig({ METRICS_TOKEN: TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' });
    assert.deepEqual(ok.observability, { metricsToken: TOKEN, otlpEndpoint: 'http://collector:4318' });
  });
});

describe(`GET /metrics without METRICS_TOKEN (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp()));
  after(() => t.close());

  test('answers 404 problem+json like any unknown path, with or without a token', async () => {
    for (const auth of [undefined, `Bearer ${TOKEN}`]) {
      const res = await scrape(t, auth);
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.equal(res.json().code, 'not_found');
    }
  });
});

describe(`GET /metrics with METRICS_TOKEN (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp({ env: { METRICS_TOKEN: TOKEN, OUTBOX_POLL_MS: '0' } })));
  after(() => t.close());

  test('a missing or wrong token → 401 problem+json', async () => {
    for (const auth of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN, 'Basic Zm9vOmJhcg==']) {
      const res = await scrape(t, auth);
      assert.equal(res.statusCode, 401, String(auth));
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.equal(res.json().code, 'unauthorized');
      assert.doesNotMatch(res.body, /http_request_duration_seconds/);
    }
  });

  test('request durations by method, route pattern and status; unknown paths under one fixed label', async () => {
    const owner = await userWithToken(t);
    const project = await createProject(t.app, owner.auth);
    const floor = await createFloor(t.app, owner.auth, project._id);
    const unit = await createUnit(t.app, owner.auth, project._id, { floor: floor._id });
    for (let i = 0; i < 3; i++) assert.equal((await t.app.inject({ method: 'GET', url: `/units/${unit._id}`, headers: owner.auth })).statusCode, 200);
    const rawPath = `/no-such-${randomBytes(4).toString('hex')}`;
    assert.equal((await t.app.inject({ method: 'GET', url: rawPath })).statusCode, 404);

    const res = await scrape(t, `Bearer ${TOKEN}`);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const text = res.body;
    assert.match(text, /# TYPE http_request_duration_seconds histogram/);
    assert.equal(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/units/:id', status_code: '200' }), 3);
    assert.equal(sample(text, 'http_request_duration_seconds_bucket', { route: '/units/:id', status_code: '200', le: '+Inf' }), 3);
    assert.equal(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status_code: '404' }), 1);
    // Never a raw path: neither the unit's id nor the unknown path appears as a label.
    assert.ok(!text.includes(unit._id), 'a record id in a label');
    assert.ok(!text.includes(rawPath), 'a raw path in a label');
    assert.equal(sample(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/projects', status_code: '201' }), 1);
  });

  test('outbox jobs by kind and state, database connections by state, live-feed streams, process metrics', async () => {
    await t.app.outbox.enqueue(t.db.kysely, MAIL_KIND, { test: true });
    await t.app.outbox.enqueue(t.db.kysely, MAIL_KIND, { test: true });
    const text = (await scrape(t, `Bearer ${TOKEN}`)).body;
    assert.equal(sample(text, 'showsuite_outbox_jobs', { kind: MAIL_KIND, state: 'created' }), 2);
    for (const state of ['active', 'idle', 'waiting']) {
      const n = sample(text, 'showsuite_db_pool_connections', { state });
      assert.ok(n !== undefined && n >= 0, `showsuite_db_pool_connections{state="${state}"}`);
    }
    assert.equal(sample(text, 'showsuite_sse_streams'), 0);
    // An idle node has no waiters: the scrape's own query is not counted as one.
    for (let i = 0; i < 3; i++) {
      assert.equal(sample((await scrape(t, `Bearer ${TOKEN}`)).body, 'showsuite_db_pool_connections', { state: 'waiting' }), 0, `scrape ${i}`);
    }
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      assert.ok(sample(text, name) !== undefined, name);
    }
  });

  test('an open live-feed stream is counted while it is open', async () => {
    const owner = await userWithToken(t);
    const ns = slug();
    await createProject(t.app, owner.auth, { query: { namespace: ns } });
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const abort = new AbortController();
    const res = await fetch(`${base}/public/projects/${ns}/events`, { signal: abort.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read();
    const open = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    assert.equal(sample(open, 'showsuite_sse_streams'), 1);
    abort.abort();
    await reader.cancel().catch(() => undefined);
  });
});

interface LogLine {
  msg: string;
  url?: string;
  traceId?: string;
}

/** A node:http OTLP/HTTP receiver: keeps every span of every JSON export it is sent. */
async function otlpReceiver() {
  const spans: {
    traceId: string;
    spanId: string;
    parentSpanId?: string;
    name: string;
    kind: number;
    attributes: { key: string; value: Record<string, unknown> }[];
  }[] = [];
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: typeof spans }[] }[] };
      for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, paths, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe(`traceparent and trace export (${ENGINE})`, () => {
  const traceId = randomBytes(16).toString('hex');
  const parentSpanId = randomBytes(8).toString('hex');

  test('without an exporter the traceparent trace id is on the log line; a malformed header adds none', async () => {
    const testDb = await openTestDb();
    const lines: LogLine[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const text of chunk.toString().split('\n')) if (text) lines.push(JSON.parse(text) as LogLine);
        done();
      },
    });
    const app = await buildApp({ config: testConfig({ LOG_LEVEL: 'info' }), db: testDb.db, logger: { level: 'info', stream } });
    try {
      await app.ready();
      await app.inject({ method: 'GET', url: '/units/with-trace', headers: { traceparent: `00-${traceId}-${parentSpanId}-01` } });
      await app.inject({ method: 'GET', url: '/units/bad-trace', headers: { traceparent: `00-${'0'.repeat(32)}-${parentSpanId}-01` } });
      await app.inject({ method: 'GET', url: '/units/no-trace' });
      const byUrl = (url: string) => lines.find((l) => l.msg === 'request completed' && l.url === url);
      assert.equal(byUrl('/units/with-trace')?.traceId, traceId);
      assert.ok(byUrl('/units/bad-trace') && byUrl('/units/bad-trace')!.traceId === undefined);
      assert.ok(byUrl('/units/no-trace') && byUrl('/units/no-trace')!.traceId === undefined);
    } finally {
      await app.close();
      await testDb.drop();
    }
  });

  test('OTEL_EXPORTER_OTLP_ENDPOINT set: a server span per request, child of the caller’s span, sent to <endpoint>/v1/traces', async () => {
    const receiver = await otlpReceiver();
    const testDb = await openTestDb();
    const lines: LogLine[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const text of chunk.toString().split('\n')) if (text) lines.push(JSON.parse(text) as LogLine);
        done();
      },
    });
    const config = testConfig({ LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/` });
    const app = await buildApp({ config, db: testDb.db, logger: { level: 'info', stream } });
    try {
      await app.ready();
      const id = 'a'.repeat(24);
      await app.inject({ method: 'GET', url: `/units/${id}`, headers: { traceparent: `00-${traceId}-${parentSpanId}-01` } });
      await app.inject({ method: 'GET', url: '/units/no-parent' });
      // Closing the app sends the spans still in the batch.
      await app.close();
      assert.deepEqual([...new Set(receiver.paths)], ['/v1/traces']);
      const child = receiver.spans.find((s) => s.traceId === traceId);
      assert.ok(child, `no exported span in trace ${traceId}: ${JSON.stringify(receiver.spans.map((s) => s.name))}`);
      assert.equal(child.parentSpanId, parentSpanId);
      assert.equal(child.name, 'GET /units/:id');
      assert.equal(child.kind, 2, 'SPAN_KIND_SERVER');
      const attr = (key: string) => child.attributes.find((a) => a.key === key)?.value;
      assert.deepEqual(attr('http.route'), { stringValue: '/units/:id' });
      assert.deepEqual(attr('http.response.status_code'), { intValue: 401 });
      // A request without traceparent starts its own trace; its log line names that trace.
      const own = lines.find((l) => l.msg === 'request completed' && l.url === '/units/no-parent');
      assert.ok(own?.traceId && own.traceId !== traceId);
      assert.ok(receiver.spans.some((s) => s.traceId === own.traceId && s.parentSpanId === undefined));
      assert.equal(lines.find((l) => l.msg === 'request completed' && l.url === `/units/${id}`)?.traceId, traceId);
    } finally {
      await app.close();
      await testDb.drop();
      await receiver.close();
    }
  });
});
