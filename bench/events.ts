/**
 * npx tsx bench/events.ts [--streams 1000] [--changes 20] [--deliveries 500] [--hooks 1,10]
 *
 * 1. Live feed: opens N Server-Sent Events streams on one service node, makes one unit change at a time through
 *    the API and measures, per change, how long until every stream has it (p50/p99 over all streams and changes),
 *    and the node's RSS per open stream. (No bare baseline.)
 * 2. Webhooks: a local receiver answering 200; M unit changes; deliveries per second until the receiver has them
 *    all, for one webhook (deliveries in seq order, one at a time) and for several webhooks on the project.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import argon2 from '@node-rs/argon2';
import {
  BENCH_JWT_SECRET,
  cleanupOnSignals,
  createBenchDb,
  fmt,
  machine,
  onCleanup,
  runCleanups,
  serviceEnv,
  startNode,
  table,
  writeResults,
  type Child,
  quantile,
  readSseBlocks,
} from './harness.ts';
import { signAccess } from './jwt.ts';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    changes: { type: 'string', default: '20' },
    deliveries: { type: 'string', default: '500' },
    hooks: { type: 'string', default: '1,10' },
  },
});
const STREAMS = Number(values.streams);
const CHANGES = Number(values.changes);
const DELIVERIES = Number(values.deliveries);
const HOOKS = values.hooks.split(',').map(Number);

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
const hex24 = () => randomBytes(12).toString('hex');

interface Seed {
  userId: string;
  projectId: string;
  unitId: string;
  namespace: string;
  token: string;
}

async function seed(url: string): Promise<Seed> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const userId = hex24();
    const projectId = hex24();
    const unitId = hex24();
    const sid = hex24();
    const namespace = `bench-live-${randomBytes(3).toString('hex')}`;
    await c.query('insert into users (id, username, password_hash) values ($1, $2, $3)', [
      userId,
      `${userId}@bench.example.com`,
      await argon2.hash('bench password'),
    ]);
    await c.query("insert into sessions (id, user_id, expires_at) values ($1, $2, now() + interval '1 day')", [sid, userId]);
    await c.query('insert into projects (id, user_id, name, namespace) values ($1, $2, $3, $4)', [projectId, userId, 'Live bench', namespace]);
    await c.query("insert into units (id, project_id, name, data) values ($1, $2, 'U1', '{\"price\": 1}')", [unitId, projectId]);
    return { userId, projectId, unitId, namespace, token: signAccess(BENCH_JWT_SECRET, userId, sid, 86_400) };
  } finally {
    await c.end();
  }
}

/** An open stream: resolves `wait(seq)` when a message with that id (or later) arrives. */
function openStream(url: string, localAddress?: string): Promise<{ arrivals: Map<number, number>; close(): void }> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<number, number>();
    const req = request(url, { headers: { accept: 'text/event-stream' }, agent: false, ...(localAddress ? { localAddress } : {}) }, (res: IncomingMessage) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      readSseBlocks(res, (block) => {
        const id = /^id: (\d+)$/m.exec(block)?.[1];
        if (id) arrivals.set(Number(id), performance.now());
        if (block.includes(': open')) resolve({ arrivals, close: () => req.destroy() });
      });
      res.on('error', () => {});
    });
    req.on('error', reject);
    req.end();
  });
}

/** Streams come from many visitors: 20 per loopback address (the default per-client bound), as 127.1.x.y. */
const visitorAddress = (i: number) => {
  const n = Math.floor(i / 20);
  return `127.1.${Math.floor(n / 250)}.${(n % 250) + 1}`;
};

async function liveFeed(node: Child, s: Seed, change: (i: number) => Promise<number>) {
  const before = rssKiB(node.process.pid!);
  const streams = [];
  for (let i = 0; i < STREAMS; i += 100) {
    streams.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(100, STREAMS - i) }, (_, j) => openStream(`${node.base}/public/projects/${s.namespace}/events`, visitorAddress(i + j))),
      )),
    );
  }
  await new Promise((r) => setTimeout(r, 1000));
  const after = rssKiB(node.process.pid!);
  // At the node's bound (SSE_MAX_STREAMS, 5,000 by default): one more stream is refused, /health still answers.
  const past = await fetch(`${node.base}/public/projects/${s.namespace}/events`);
  const refusedStatus = past.status;
  await past.body?.cancel();
  const h0 = performance.now();
  const healthStatus = (await fetch(`${node.base}/health`)).status;
  const healthMs = performance.now() - h0;
  console.log(`  with ${STREAMS} streams open: one more → ${refusedStatus}; /health → ${healthStatus} in ${healthMs.toFixed(1)} ms`);
  const delays: number[] = [];
  const lastDelays: number[] = [];
  for (let i = 1; i <= CHANGES; i++) {
    const t0 = performance.now();
    const seq = await change(i);
    const deadline = t0 + 10_000;
    while (streams.some((st) => !st.arrivals.has(seq)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    const got = streams.map((st) => (st.arrivals.get(seq) ?? Infinity) - t0);
    delays.push(...got);
    lastDelays.push(Math.max(...got));
  }
  for (const st of streams) st.close();
  return {
    rssBeforeKiB: before,
    rssAfterKiB: after,
    kibPerStream: (after - before) / STREAMS,
    p50: quantile(delays, 0.5),
    p99: quantile(delays, 0.99),
    lastMax: quantile(lastDelays, 1),
  };
}

async function main() {
  cleanupOnSignals();
  const db = await createBenchDb();
  onCleanup(() => db.drop());
  // From the sources (tsx).
  const node = await startNode('service', 'src/main.ts', serviceEnv({ DATABASE_URL: db.url, ALLOW_PRIVATE_TARGETS: 'true', HOLD_SWEEP_SEC: '0' }));
  onCleanup(() => node.stop());
  const s = await seed(db.url);
  const auth = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
  let seq = 0;
  const patch = async (body: object) => {
    const res = await fetch(`${node.base}/units/${s.unitId}`, { method: 'PATCH', headers: auth, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`PATCH ${res.status} ${await res.text()}\n${node.stderr()}`);
    return ++seq;
  };

  console.log(`live feed: ${STREAMS} streams, ${CHANGES} changes, service…`);
  const service = await liveFeed(node, s, (i) => patch({ availability: i % 2 ? 'reserved' : 'available' }));

  console.log(
    table(
      ['server', 'streams', 'p50 ms', 'p99 ms', 'slowest change ms', 'RSS before MiB', 'RSS after MiB', 'KiB per stream'],
      [service].map((r) => [
        'service',
        STREAMS,
        fmt(r.p50, 1),
        fmt(r.p99, 1),
        fmt(r.lastMax, 1),
        fmt(r.rssBeforeKiB / 1024, 1),
        fmt(r.rssAfterKiB / 1024, 1),
        fmt(r.kibPerStream, 1),
      ]),
    ),
  );

  // Webhooks: a receiver that answers 200 at once.
  let received = 0;
  let allIn: (() => void) | undefined;
  let expected = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200).end();
      if (++received === expected) allIn?.();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  onCleanup(async () => void receiver.close());
  const port = (receiver.address() as { port: number }).port;
  const rows: (string | number)[][] = [];
  const webhookResults = [];
  let hookIds: string[] = [];
  for (const hooks of DELIVERIES > 0 ? HOOKS : []) {
    for (const id of hookIds) await fetch(`${node.base}/projects/${s.projectId}/webhooks/${id}`, { method: 'DELETE', headers: auth });
    hookIds = [];
    for (let h = 0; h < hooks; h++) {
      const res = await fetch(`${node.base}/projects/${s.projectId}/webhooks`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/h${h}`, events: ['unit.updated'] }),
      });
      hookIds.push(((await res.json()) as { _id: string })._id);
    }
    const changes = Math.ceil(DELIVERIES / hooks);
    received = 0;
    expected = changes * hooks;
    const done = new Promise<void>((r) => (allIn = r));
    const t0 = performance.now();
    for (let i = 0; i < changes; i++) await patch({ price: 1000 + i });
    const writesMs = performance.now() - t0;
    await Promise.race([done, new Promise((r) => setTimeout(r, 300_000))]);
    const ms = performance.now() - t0;
    const result = {
      hooks,
      deliveries: received,
      expected,
      seconds: ms / 1000,
      perSecond: received / (ms / 1000),
      writesPerSecond: changes / (writesMs / 1000),
    };
    webhookResults.push(result);
    rows.push([hooks, changes, received, fmt(ms / 1000, 1), fmt(result.perSecond, 0), fmt(result.writesPerSecond, 0)]);
  }
  console.log(table(['webhooks', 'changes', 'deliveries', 'seconds', 'deliveries/s', 'writes/s meanwhile'], rows));
  const file = writeResults('events', { machine: machine(), streams: STREAMS, changes: CHANGES, service, webhooks: webhookResults });
  console.log(`results: ${file}`);
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
