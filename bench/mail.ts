/**
 * npm run bench:mail [-- --leads 200 --backlog 2000 --concurrency 5]
 *
 * 1. Delay from a public lead's 201 to its notice arriving at a local SMTP server (one lead at a time, the
 *    service's default worker settings): median and p99.
 * 2. Notifications per second the outbox worker sends: a backlog queued by a node that runs no worker
 *    (OUTBOX_POLL_MS=0) is drained by a fresh node; from its /ready to the last message received.
 * 3. Baseline for (2): the same number of messages sent straight with nodemailer (same pool size, same
 *    concurrency) to the same server: what SMTP itself allows, without the queue.
 * Traffic goes to 127.0.0.1 only. Needs the tests' PostgreSQL (or BENCH_PG_URL).
 */
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { cleanupOnSignals, createBenchDb, fmt, machine, median, onCleanup, runCleanups, startService, table, writeResults } from './harness.ts';

const { values } = parseArgs({
  options: {
    leads: { type: 'string', default: '200' },
    backlog: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '5' },
  },
});
const LEADS = Number(values.leads);
const BACKLOG = Number(values.backlog);
const CONCURRENCY = values.concurrency!;

/** A local SMTP server that notes when each message carrying `bench-<n>` arrived. */
async function smtpSink() {
  const arrived = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  let count = 0;
  let onCount: (() => void) | undefined;
  let target = Infinity;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    closeTimeout: 100,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const at = performance.now();
        const id = /bench-(\d+)/.exec(Buffer.concat(chunks).toString('latin1'))?.[0];
        if (id) {
          arrived.set(id, at);
          waiters.get(id)?.();
        }
        count++;
        if (count >= target) onCount?.();
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as { port: number }).port;
  onCleanup(() => new Promise((r) => server.close(() => r())));
  return {
    url: `smtp://127.0.0.1:${port}`,
    arrival: (id: string) =>
      new Promise<number>((resolve) => {
        const seen = arrived.get(id);
        if (seen !== undefined) return resolve(seen);
        waiters.set(id, () => resolve(arrived.get(id)!));
      }),
    reset() {
      count = 0;
    },
    untilCount: (n: number) =>
      new Promise<void>((resolve) => {
        target = n;
        onCount = resolve;
        if (count >= n) resolve();
      }),
  };
}

const visitor = { firstName: 'Bench', lastName: 'Visitor', email: 'visitor@example.com', phone: '+1 555 0100' };

async function seedProject(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const userId = randomBytes(12).toString('hex');
  const projectId = randomBytes(12).toString('hex');
  await c.query(`insert into users (id, username, password_hash) values ($1, $2, 'x')`, [userId, `bench-${userId}@example.com`]);
  await c.query(`insert into projects (id, user_id, name, data) values ($1, $2, 'Bench Tower', $3::jsonb)`, [
    projectId,
    userId,
    JSON.stringify({ enableForms: true, formsSendTo: 'sales@example.com' }),
  ]);
  await c.end();
  return projectId;
}

const postLead = (base: string, project: string, n: number) =>
  fetch(`${base}/public/leads`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ project, ...visitor, message: `bench-${n}` }),
  });

cleanupOnSignals();
try {
  const sink = await smtpSink();
  const db = await createBenchDb();
  onCleanup(() => db.drop());
  const secretKey = randomBytes(32).toString('hex');
  const common = { DATABASE_URL: db.url, SMTP_URL: sink.url, SECRET_KEY: secretKey, PUBLIC_LEADS_PER_MINUTE: '100000', OUTBOX_CONCURRENCY: CONCURRENCY };

  // 1. Delay, one lead at a time, default polling (the node that took the lead wakes its own worker).
  const live = await startService(common);
  const project = await seedProject(db.url);
  const delays: number[] = [];
  for (let i = 0; i < LEADS; i++) {
    const id = `bench-${i}`;
    const arrival = sink.arrival(id);
    const res = await postLead(live.base, project, i);
    const at201 = performance.now();
    if (res.status !== 201) throw new Error(`lead ${i}: ${res.status} ${await res.text()}`);
    delays.push((await arrival) - at201);
  }
  await live.stop();
  const sorted = [...delays].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;

  // 2. Backlog drained by a fresh node.
  const queuer = await startService({ ...common, OUTBOX_POLL_MS: '0' });
  for (let i = 0; i < BACKLOG; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, BACKLOG - i) }, (_, k) =>
        postLead(queuer.base, project, 100_000 + i + k).then((r) => r.status === 201 || Promise.reject(new Error(String(r.status)))),
      ),
    );
  }
  await queuer.stop();
  sink.reset();
  const drained = sink.untilCount(BACKLOG);
  const started = performance.now();
  const worker = await startService(common);
  await drained;
  const drainMs = performance.now() - started;
  const drainFromReadyMs = drainMs - worker.readyMs;
  await worker.stop();

  // 3. Baseline: nodemailer straight to the same server, same pool and concurrency.
  sink.reset();
  const transport = nodemailer.createTransport({ url: sink.url, pool: true, maxConnections: 3 });
  const bare = sink.untilCount(BACKLOG);
  const bareStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Number(CONCURRENCY) }, async () => {
      while (next < BACKLOG) {
        const n = next++;
        await transport.sendMail({
          from: 'Showsuite <no-reply@localhost>',
          to: 'sales@example.com',
          replyTo: visitor.email,
          subject: 'New enquiry: Bench Tower',
          text: `bench-${200_000 + n}`,
          html: `<p>bench-${200_000 + n}</p>`,
        });
      }
    }),
  );
  await bare;
  const bareMs = performance.now() - bareStart;
  transport.close();

  const rows = [
    ['lead 201 → mail arrived, median (ms)', fmt(median(delays), 1)],
    ['lead 201 → mail arrived, p99 (ms)', fmt(p99, 1)],
    [`outbox worker: ${BACKLOG} queued notices, per second (from /ready)`, fmt(BACKLOG / (drainFromReadyMs / 1000), 0)],
    [`bare nodemailer, same ${BACKLOG} messages, per second`, fmt(BACKLOG / (bareMs / 1000), 0)],
  ];
  console.log(table(['measure', 'value'], rows));
  const file = writeResults('mail', {
    machine: machine(),
    options: { leads: LEADS, backlog: BACKLOG, concurrency: CONCURRENCY },
    delaysMs: { median: median(delays), p99, max: sorted.at(-1) },
    worker: { messages: BACKLOG, ms: drainFromReadyMs, readyMs: worker.readyMs },
    bare: { messages: BACKLOG, ms: bareMs },
  });
  console.log(`\nwritten to ${file}`);
} finally {
  await runCleanups();
}
