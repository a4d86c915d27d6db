import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENGINE, freePort, openTestDb, tempDir, TEST_JWT_SECRET, waitReady, type TestDb } from './helpers.ts';

/**
 * The built server (`node scripts/start.mjs`, what `npm start` runs: builds dist/ when stale, then plain node) with its
 * lazily loaded operations code: prom-client behind METRICS_TOKEN, the OpenTelemetry SDK exporting to a node:http
 * receiver this file runs, and the SECRET_KEY check refusing a second start with another key.
 */

interface Span {
  traceId: string;
  parentSpanId?: string;
  name: string;
}

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe(`the built server: metrics, traces, the key checks (${ENGINE})`, () => {
  let testDb: TestDb | undefined;
  let receiver: Server;
  const spans: Span[] = [];
  let env: Record<string, string>;
  let run: Run;
  let base: string;
  const token = randomBytes(20).toString('hex');
  const traceId = randomBytes(16).toString('hex');
  const parentSpanId = randomBytes(8).toString('hex');

  before(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
        for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      // The API at 127.0.0.1, the buyer's pages on the other loopback name (as test/built.ts does).
      PUBLIC_URL: base,
      PAGES_URL: `http://localhost:${port}`,
      JWT_SECRET: TEST_JWT_SECRET,
      SECRET_KEY: randomBytes(32).toString('hex'),
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      DATA_DIR: tempDir(),
      METRICS_TOKEN: token,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    };
    if (ENGINE === 'postgres') {
      testDb = await openTestDb({ migrate: false });
      env.DATABASE_URL = testDb.url!;
    }
    run = start(env);
    await Promise.race([
      waitReady(port),
      run.exited.then((code) => {
        throw new Error(`the server exited (${code}) before it was ready:\n${run.output()}`);
      }),
    ]);
  });
  after(async () => {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await testDb?.drop();
  });

  test('GET /metrics: 401 without the token, Prometheus text with it', async () => {
    const denied = await fetch(`${base}/metrics`);
    assert.equal(denied.status, 401);
    assert.match(denied.headers.get('content-type') ?? '', /application\/problem\+json/);
    await fetch(`${base}/units/${'a'.repeat(24)}`);
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /^http_request_duration_seconds_count\{method="GET",route="\/units\/:id",status_code="401"\} 1$/m);
    for (const name of ['showsuite_outbox_jobs', 'showsuite_sse_streams', 'showsuite_db_pool_connections', 'process_cpu_user_seconds_total']) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
  });

  test('traceparent: its trace id on the log line and on the exported span; SIGTERM sends what is left and exits 0', async () => {
    const res = await fetch(`${base}/units/${'b'.repeat(24)}`, { headers: { traceparent: `00-${traceId}-${parentSpanId}-01` } });
    assert.equal(res.status, 401);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0, run.output());
    const line = run
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; url?: string; traceId?: string })
      .find((l) => l.msg === 'request completed' && l.url === `/units/${'b'.repeat(24)}`);
    assert.equal(line?.traceId, traceId);
    const span = spans.find((s) => s.traceId === traceId);
    assert.ok(span, `no span of trace ${traceId} among ${spans.length} received`);
    assert.equal(span.parentSpanId, parentSpanId);
    assert.equal(span.name, 'GET /units/:id');
  });

  test('a start with another SECRET_KEY on the same database refuses, naming SECRET_KEY', async () => {
    const wrong = start({ ...env, SECRET_KEY: randomBytes(32).toString('hex'), METRICS_TOKEN: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    assert.equal(await wrong.exited, 2, wrong.output());
    assert.match(wrong.output(), /SECRET_KEY is not the key this database was first started with/);
  });

  test('a start with another JWT_SECRET on the same database refuses, naming JWT_SECRET', async () => {
    const wrong = start({ ...env, JWT_SECRET: randomBytes(32).toString('hex'), METRICS_TOKEN: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    assert.equal(await wrong.exited, 2, wrong.output());
    assert.match(wrong.output(), /JWT_SECRET is not the key this database was first started with/);
  });
});
