/**
 * `npx tsx bench/day.ts [--duration 300] [--staff 200] [--buyers 2000] [--projects 4] [--ramp 30]` (or DAY_SECONDS=60):
 * a day at the sales office, compressed. Two built nodes (`npm start` alike) on one PostgreSQL database and one Redis
 * (shared rate-limit counters), a few published projects of floors and units (bench/day-seed.ts), then for the
 * duration:
 *
 * - staff: signed-in administrators of a project, each on one node, each pausing 3–10 s between steps: list the
 *   project's units, open the project, read a unit and change its price with If-Match, read leads and insights;
 * - buyers: anonymous visitors, each from its own loopback address (127.2.x.y, so the per-address limits apply at
 *   their defaults as for real people), visits in turn through both nodes: the public bundle (revalidated with the
 *   ETag it has), the live feed open for the visit (30–90 s), a page event every 4–12 s, an enquiry on one visit in
 *   ten, a hold on one visit in ten (released after 10–30 s, four times in five; the rest lapse), then 5–20 s away.
 *
 * Every answer is counted: an error is a network failure or any status outside 2xx but the expected ones (EXPECTED).
 * Printed: p50/p95/p99 per operation, the live feed's delay (a staff price change to its arrival on each open stream
 * of the project, on both nodes), and each node's peak RSS (VmRSS sampled every second; VmHWM at the end).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  BENCH_JWT_SECRET,
  cpuMs,
  createBenchDb,
  fmt,
  machine,
  onCleanup,
  quantile,
  readSseBlocks,
  runMain,
  startService,
  table,
  writeResults,
  type Child,
} from './harness.ts';
import { seedDay, type DayProject, type StaffMember } from './day-seed.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: process.env.DAY_SECONDS ?? '300' },
    staff: { type: 'string', default: '200' },
    buyers: { type: 'string', default: '2000' },
    projects: { type: 'string', default: '4' },
    ramp: { type: 'string', default: '30' },
    'keep-alive': { type: 'string', default: '5' },
  },
});
const DURATION_MS = Number(args.duration) * 1000;
const STAFF = Number(args.staff);
const BUYERS = Number(args.buyers);
const PROJECTS = Number(args.projects);
const RAMP_MS = Math.min(Number(args.ramp) * 1000, DURATION_MS / 2);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RSS_LIMIT_MIB = 200;
/** The nodes' KEEP_ALIVE_TIMEOUT_SEC; the load generator drops an idle connection a second before. */
const KEEP_ALIVE_SEC = Number(args['keep-alive']);
const NODE_ARGS = (process.env.DAY_NODE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * Answers that are part of a normal day, not errors: a returning visitor's bundle unchanged since its last visit
 * (304); a hold on a unit someone else took since the visitor's bundle was read (409, the page says "just taken");
 * a price change on a unit another staff member changed since this one read it (412 on If-Match, the console reloads
 * the unit). 429 is not among them: every buyer has its own address and the limits are the defaults.
 */
const EXPECTED: Record<string, number[]> = { 'GET bundle': [304], 'POST hold': [409], 'PATCH unit': [412] };

interface Op {
  ms: number[];
  statuses: Record<string, number>;
  errors: number;
}
const ops = new Map<string, Op>();
const opOf = (name: string) => ops.get(name) ?? ops.set(name, { ms: [], statuses: {}, errors: 0 }).get(name)!;

/** Errors by operation and kind (status and the start of the answer, or the network failure), with a count. */
const errorKinds = new Map<string, number>();
function countError(name: string, what: string) {
  opOf(name).errors++;
  const kind = `${name}: ${what.slice(0, 160)}`;
  errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
}

/** Keep-alive sockets pooled per (node, local address), as a browser keeps them; dropped a second before the node would. */
const agent = new Agent({ keepAlive: true, timeout: (KEEP_ALIVE_SEC - 1) * 1000 });

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** One timed request from `address`; undefined after a network failure (counted). */
function send(
  name: string,
  base: string,
  method: string,
  path: string,
  opts: { address: string; body?: unknown; headers?: Record<string, string> },
): Promise<Answer | undefined> {
  const url = new URL(path, base);
  const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method,
        agent,
        localAddress: opts.address,
        timeout: 30_000,
        headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}), ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => {
          countError(name, err.message);
          resolve(undefined);
        });
        res.on('end', () => {
          const op = opOf(name);
          op.ms.push(performance.now() - started);
          const status = res.statusCode ?? 0;
          op.statuses[status] = (op.statuses[status] ?? 0) + 1;
          const body = Buffer.concat(chunks);
          if ((status < 200 || status > 299) && !EXPECTED[name]?.includes(status)) countError(name, `${status} ${body.toString('utf8', 0, 200)}`);
          resolve({ status, headers: res.headers, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', (err) => {
      countError(name, err.message);
      resolve(undefined);
    });
    req.end(payload);
  });
}

const decoded = (a: Answer) =>
  a.headers['content-encoding'] === 'br' ? brotliDecompressSync(a.body) : a.headers['content-encoding'] === 'gzip' ? gunzipSync(a.body) : a.body;
const json = (a: Answer) => JSON.parse(decoded(a).toString('utf8')) as Record<string, any>;

let stopAt = Infinity;
const running = () => performance.now() < stopAt;
const rand = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
/** Waits `ms`, or less when the run ends first. */
const pause = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, Math.min(ms, stopAt - performance.now()))));

/** Price changes in flight, `<unit>:<price>` → when the PATCH was sent; the live feed's delay is measured from there. */
const priceSent = new Map<string, number>();
const feedDelays: number[] = [];
const openStreams = { now: 0, peak: 0 };

/** A visitor's live feed: resolves once open (`: open`), or undefined after a refusal or failure (counted). */
function openFeed(base: string, ns: string, address: string): Promise<{ close(): void } | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    let closing = false;
    let opened = false;
    const req = request(
      new URL(`/public/projects/${ns}/events`, base),
      { agent: false, localAddress: address, headers: { accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) {
          countError('stream open', `${res.statusCode}`);
          res.resume();
          return resolve(undefined);
        }
        readSseBlocks(res, (block) => {
          if (!opened && block.includes(': open')) {
            opened = true;
            opOf('stream open').ms.push(performance.now() - started);
            openStreams.peak = Math.max(openStreams.peak, ++openStreams.now);
            resolve({
              close: () => {
                closing = true;
                openStreams.now--;
                req.destroy();
              },
            });
          }
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!data?.includes('"price"')) return;
          const change = JSON.parse(data) as { _id?: string; changes?: { price?: [unknown, unknown] } };
          const sent = change._id && change.changes?.price ? priceSent.get(`${change._id}:${String(change.changes.price[1])}`) : undefined;
          if (sent !== undefined) feedDelays.push(performance.now() - sent);
        });
        res.on('error', () => {});
        res.on('close', () => {
          if (!closing && opened) {
            openStreams.now--;
            countError('stream', 'closed by the node during the visit');
          }
        });
      },
    );
    req.on('error', (err) => {
      if (closing) return;
      countError('stream open', err.message);
      resolve(undefined);
    });
    // As a page gives up on a feed that does not open (and the visit goes on without it).
    setTimeout(() => {
      if (opened || closing) return;
      closing = true;
      req.destroy();
      countError('stream open', 'not open within 30 s');
      resolve(undefined);
    }, 30_000).unref();
    req.end();
  });
}

/** What a visitor's page knows of a project's bundle, per ETag: the units it shows as available. */
const availableByEtag = new Map<string, string[]>();

async function buyer(i: number, nodes: Child[], projects: DayProject[]) {
  const address = `127.2.${Math.floor(i / 250)}.${(i % 250) + 1}`;
  const project = projects[i % projects.length]!;
  const ns = project.namespace;
  const person = { firstName: `Buyer${i}`, lastName: 'Visitor', email: `buyer${i}@day.example.com`, phone: '+1 555 0100' };
  let etag: string | undefined;
  let visit = 0;
  await pause(rand(0, RAMP_MS));
  while (running()) {
    visit++;
    const node = (k: number) => nodes[(i + visit + k) % nodes.length]!.base;
    const bundle = await send('GET bundle', node(0), 'GET', `/public/projects/${ns}`, {
      address,
      headers: { 'accept-encoding': 'br, gzip', ...(etag ? { 'if-none-match': etag } : {}) },
    });
    if (bundle?.status === 200) {
      etag = String(bundle.headers.etag);
      if (!availableByEtag.has(etag)) {
        if (availableByEtag.size >= 100) availableByEtag.clear();
        const b = json(bundle) as { floors: { units: { _id: string; availability: string }[] }[] };
        availableByEtag.set(
          etag,
          b.floors.flatMap((f) => f.units.filter((u) => u.availability === 'available').map((u) => u._id)),
        );
      }
    }
    const available = (etag && availableByEtag.get(etag)) || project.unitIds;
    const feed = await openFeed(node(1), ns, address);
    const event = (type: string, unit?: string) =>
      send('POST event', node(0), 'POST', '/public/events', { address, body: { namespace: ns, type, path: `/p/${ns}`, ...(unit ? { unit } : {}) } });
    await event('page_view');
    const leaveAt = performance.now() + rand(30_000, 90_000);
    const enquires = Math.random() < 0.1;
    const holds = Math.random() < 0.1;
    while (running() && performance.now() < leaveAt) {
      await pause(rand(10_000, 30_000));
      if (!running()) break;
      await event(pick(['unit_view', 'unit_view', 'plan_view', 'filter', 'gallery', 'list_view']), pick(available));
    }
    if (enquires && running()) {
      await send('POST lead', node(1), 'POST', '/public/leads', {
        address,
        body: { namespace: ns, ...person, unit: pick(available), message: 'Is parking included?' },
      });
    }
    if (holds && running()) {
      const held = await send('POST hold', node(0), 'POST', `/public/units/${pick(available)}/hold`, { address, body: person });
      if (held?.status === 200 && Math.random() < 0.8) {
        await pause(rand(10_000, 30_000));
        await send('DELETE hold', node(1), 'DELETE', `/public/holds/${json(held).holdToken as string}`, { address });
      }
    }
    feed?.close();
    await pause(rand(5_000, 20_000));
  }
}

let priceStep = 0;
async function staffMember(k: number, m: StaffMember, nodes: Child[]) {
  const address = `127.3.${Math.floor(k / 250)}.${(k % 250) + 1}`;
  const base = nodes[k % nodes.length]!.base;
  const headers = { authorization: `Bearer ${m.token}` };
  const p = m.project.id;
  const get = (name: string, path: string) => send(name, base, 'GET', path, { address, headers });
  await pause(rand(0, RAMP_MS / 3));
  while (running()) {
    const list = await get('GET units', `/units?project=${p}&options[limit]=100&options[skip]=${100 * Math.floor(Math.random() * 3)}`);
    await pause(rand(3_000, 10_000));
    await get('GET project', `/projects/${p}`);
    await pause(rand(3_000, 10_000));
    const listed = list?.status === 200 ? (json(list) as { _id: string }[]) : [];
    if (listed.length && running()) {
      const id = pick(listed)._id;
      const unit = await get('GET unit', `/units/${id}`);
      await pause(rand(1_000, 3_000));
      if (unit?.status === 200 && running()) {
        const price = 300_000 + ++priceStep;
        const key = `${id}:${price}`;
        priceSent.set(key, performance.now());
        await send('PATCH unit', base, 'PATCH', `/units/${id}`, { address, headers: { ...headers, 'if-match': String(unit.headers.etag) }, body: { price } });
        setTimeout(() => priceSent.delete(key), 30_000).unref();
      }
    }
    await pause(rand(3_000, 10_000));
    await get('GET leads', `/leads?project=${p}&options[limit]=50`);
    await pause(rand(3_000, 10_000));
    await get('GET insights', `/projects/${p}/insights`);
    await pause(rand(3_000, 10_000));
  }
}

const vm = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function main() {
  const db = await createBenchDb();
  onCleanup(db.drop);
  const redisPrefix = `bench-day-${randomBytes(4).toString('hex')}:`;
  const env = { DATABASE_URL: db.url, REDIS_URL, REDIS_PREFIX: redisPrefix, INVENTORY_SYNC_MINUTES: '0', KEEP_ALIVE_TIMEOUT_SEC: String(KEEP_ALIVE_SEC) };
  // The first node migrates; the second starts on the migrated database.
  const nodes = [await startService(env, [...NODE_ARGS], false)];
  onCleanup(nodes[0]!.stop);
  nodes.push(await startService(env, [...NODE_ARGS], false));
  onCleanup(nodes[1]!.stop);
  const { projects, staff } = await seedDay(db.url, { jwtSecret: BENCH_JWT_SECRET, projects: PROJECTS, floors: 10, unitsPerFloor: 30, staff: STAFF });
  console.log(
    `two nodes (${nodes.map((n) => n.base).join(', ')}) on ${db.name}, Redis ${REDIS_URL} (prefix ${redisPrefix}); ` +
      `${PROJECTS} projects of 10 × 30 units; ${STAFF} staff, ${BUYERS} buyers for ${DURATION_MS / 1000} s (ramp ${RAMP_MS / 1000} s)`,
  );

  const started = performance.now();
  stopAt = started + DURATION_MS;
  const peakRss = nodes.map(() => 0);
  const sampler = setInterval(() => nodes.forEach((n, k) => (peakRss[k] = Math.max(peakRss[k]!, vm(n.process.pid!, 'VmRSS')))), 1_000);
  // The load generator's own delay: were it late, the latencies below would be its and not the nodes'.
  const lag = monitorEventLoopDelay({ resolution: 20 });
  lag.enable();
  let lastCpu = nodes.map((n) => cpuMs(n.process.pid) ?? 0);
  const progress = setInterval(() => {
    const cpu = nodes.map((n) => cpuMs(n.process.pid) ?? 0);
    const share = cpu.map((c, k) => fmt((100 * (c - lastCpu[k]!)) / 30_000)).join(' / ');
    lastCpu = cpu;
    const errors = [...ops.values()].reduce((s, o) => s + o.errors, 0);
    const requests = [...ops.values()].reduce((s, o) => s + o.ms.length, 0);
    console.log(
      `  ${Math.round((performance.now() - started) / 1000)} s: ${requests} requests, ${openStreams.now} streams open, ${errors} errors, RSS ${nodes.map((n) => fmt(vm(n.process.pid!, 'VmRSS'))).join(' / ')} MiB, CPU ${share} % of a core; machine load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}; ` +
        `load generator ${fmt(vm(process.pid, 'VmRSS'))} MiB, its event loop late by up to ${fmt(lag.max / 1e6)} ms, ${fmt(process.cpuUsage().user / 1e6)} s CPU`,
    );
    lag.reset();
  }, 30_000);
  await Promise.all([...Array.from({ length: BUYERS }, (_, i) => buyer(i, nodes, projects)), ...staff.map((m, k) => staffMember(k, m, nodes))]);
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  clearInterval(progress);
  const hwm = nodes.map((n) => vm(n.process.pid!, 'VmHWM'));

  const rows = [...ops.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, o]) => [
      name,
      o.ms.length,
      fmt(quantile(o.ms, 0.5), 1),
      fmt(quantile(o.ms, 0.95), 1),
      fmt(quantile(o.ms, 0.99), 1),
      o.errors,
      JSON.stringify(o.statuses),
    ]);
  rows.push([
    'live feed delay',
    feedDelays.length,
    fmt(quantile(feedDelays, 0.5), 1),
    fmt(quantile(feedDelays, 0.95), 1),
    fmt(quantile(feedDelays, 0.99), 1),
    0,
    '',
  ]);
  const errors = [...ops.values()].reduce((s, o) => s + o.errors, 0);
  console.log(`\n${elapsed.toFixed(0)} s; peak ${openStreams.peak} live feeds open at once\n`);
  console.log(table(['operation', 'count', 'p50 ms', 'p95 ms', 'p99 ms', 'errors', 'statuses'], rows));
  console.log(
    `\n${table(
      ['node', 'peak RSS MiB (sampled)', 'VmHWM MiB'],
      nodes.map((n, k) => [n.base, fmt(peakRss[k]!, 1), fmt(hwm[k]!, 1)]),
    )}`,
  );
  const kinds = [...errorKinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} × ${k}`);
  console.log(`\nerrors: ${errors}${kinds.length ? `\n  ${kinds.slice(0, 20).join('\n  ')}` : ''}`);
  for (const n of nodes) if (n.stderr().trim()) console.log(`${n.base} stderr:\n${n.stderr().trim().slice(-2000)}`);
  const overRss = peakRss.some((r) => r > RSS_LIMIT_MIB);
  console.log(`${errors === 0 ? 'ok  ' : 'FAIL'} no error\n${overRss ? 'FAIL' : 'ok  '} RSS per node under ${RSS_LIMIT_MIB} MiB`);
  const file = writeResults('day', {
    machine: machine(),
    args,
    elapsed,
    peakStreams: openStreams.peak,
    operations: Object.fromEntries(rows.map((r) => [r[0], r.slice(1)])),
    peakRssMiB: peakRss,
    vmHwmMiB: hwm,
    errors,
    errorKinds: Object.fromEntries(errorKinds),
  });
  console.log(`results: ${file}`);
  if (errors > 0 || overRss) throw new Error('the day had errors or went over the memory bound');
}

await runMain(main);
