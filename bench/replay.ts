/**
 * npx tsx bench/replay.ts [--streams 200] [--events 20000] [--seconds 10] [--engines postgres,pglite] [--reopen-ms 1000] [--replays n]
 *   [--cpu-prof dir]
 *
 * The live feed's replay under attack: one project whose log holds `--events` events (what one ordinary
 * import of that many units leaves), one service node per engine. Three phases of `--seconds` each:
 *   quiet  — nobody replays;
 *   far    — `--streams` streams resume with `Last-Event-ID: 0`; each opens again `--reopen-ms` (1000) after its
 *            replay is over (refetch, or the head reached), so replays go on through the phase;
 *   edge   — the same, from just within SSE_REPLAY_MAX_EVENTS of the head (the most a node replays for one stream).
 * Meanwhile, from a probe process of its own (so what it times is the service, not this process parsing the
 * replays), `/health` is asked every 50 ms, and every 200 ms a unit is changed through the API and the time until a
 * visitor's stream (open throughout) has the change is taken; the service's own event-loop delay over each phase is
 * read from its /metrics. An uncounted quiet phase comes first (the service warming up). The target: both within 2×
 * of quiet.
 */
import { randomBytes } from 'node:crypto';
import { request, type ClientRequest } from 'node:http';
import { rmSync } from 'node:fs';
import { fork, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDb, type Db } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { APPEND_BATCH, appendEvents } from '../src/modules/events/events.repo.ts';
import {
  BENCH_JWT_SECRET,
  createBenchDb,
  fmt,
  hasTaskset,
  LOAD_CORE,
  SERVER_CORE,
  machine,
  onCleanup,
  pinSelfToLoadCore,
  runMain,
  startService,
  table,
  tempDir,
  writeResults,
  quantile,
  readSseBlocks,
} from './harness.ts';
import { signAccess } from './jwt.ts';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '200' },
    events: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '10' },
    engines: { type: 'string', default: 'postgres,pglite' },
    'reopen-ms': { type: 'string', default: '1000' },
    /** SSE_REPLAYS for the service (its default when not given). */
    replays: { type: 'string' },
    /** A directory: the service writes its CPU profile there when it stops (node --cpu-prof), to see what held it. */
    'cpu-prof': { type: 'string' },
    /** Internal: run as the probe process of `phase`. */
    probe: { type: 'boolean', default: false },
  },
});
const STREAMS = Number(values.streams);
const EVENTS = Number(values.events);
const PHASE_MS = Number(values.seconds) * 1000;
/** How often the probe changes a unit (each change is one write timed to its arrival on the visitor's stream). */
const WRITE_EVERY_MS = 200;
/** How long an attacking stream waits, once its replay is over, before it opens again (0: at once, a connection storm). */
const REOPEN_MS = Number(values['reopen-ms']);
/** The service's default SSE_REPLAY_MAX_EVENTS. */
const MAX_REPLAY = 1000;

/** The service's /metrics token in this bench (its event-loop delay is read there). */
const METRICS_TOKEN = randomBytes(16).toString('hex');

const hex24 = () => randomBytes(12).toString('hex');

interface Seed {
  namespace: string;
  unitId: string;
  token: string;
  head: number;
  /** The unit's availability now: each change flips it (a PATCH that changes nothing writes no event). */
  availability: string;
}

/** A user with a session, a public project with one unit, and EVENTS changes of that unit in the project's log. */
async function seed(db: Db): Promise<Seed> {
  const k = db.kysely;
  const [userId, projectId, unitId, sid] = [hex24(), hex24(), hex24(), hex24()];
  const namespace = `bench-replay-${randomBytes(3).toString('hex')}`;
  await sql`insert into users (id, username, password_hash) values (${userId}, ${`${userId}@bench.example.com`}, 'unused')`.execute(k);
  await sql`insert into sessions (id, user_id, expires_at) values (${sid}, ${userId}, now() + interval '1 day')`.execute(k);
  await sql`insert into projects (id, user_id, name, namespace, data) values (${projectId}, ${userId}, 'Replay bench', ${namespace}, '{"hideSold": false}')`.execute(
    k,
  );
  await sql`insert into units (id, project_id, name, data) values (${unitId}, ${projectId}, 'U1', '{"price": 1}')`.execute(k);
  const now = Date.now();
  for (let i = 0; i < EVENTS; i += APPEND_BATCH) {
    const batch = Array.from({ length: Math.min(APPEND_BATCH, EVENTS - i) }, (_, j) => ({
      type: 'unit.updated' as const,
      actor: { kind: 'system' as const },
      subjectId: unitId,
      changes: { availability: (i + j) % 2 ? ['reserved', 'available'] : ['available', 'reserved'] } as Record<string, [unknown, unknown]>,
      now,
    }));
    await k.transaction().execute((trx) => appendEvents(trx, projectId, batch));
  }
  // The unit is left as the last event says.
  const availability = EVENTS % 2 ? 'reserved' : 'available';
  await sql`update units set availability = ${availability} where id = ${unitId}`.execute(k);
  return { namespace, unitId, token: signAccess(BENCH_JWT_SECRET, userId, sid, 86_400), head: EVENTS, availability };
}

/**
 * A raw stream: `onBlock` sees each event block's id and name. `stop()` closes it. Reading stays cheap (the bench
 * process must keep up with 200 replays).
 */
function openStream(url: string, headers: Record<string, string>, localAddress: string, onBlock: (id: number, event: string | undefined) => void) {
  let req: ClientRequest | undefined;
  const closed = new Promise<void>((resolve) => {
    req = request(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false, localAddress }, (res) => {
      readSseBlocks(res, (block) => {
        const id = /^id: (\d+)$/m.exec(block)?.[1];
        if (id) onBlock(Number(id), /^event: (\w+)$/m.exec(block)?.[1]);
      });
      res.on('close', resolve);
      res.on('error', () => resolve());
    });
    req.on('error', () => resolve());
    req.end();
  });
  return { closed, stop: () => req?.destroy() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface PhaseResult {
  phase: string;
  healthP50: number;
  healthP99: number;
  healthMax: number;
  writeP50: number;
  writeP99: number;
  writeMax: number;
  /** The service's event-loop delay over the phase (prom-client's monitorEventLoopDelay), ms. */
  loopP99: number;
  loopMax: number;
  writes: number;
  opened: number;
  refetches: number;
  replayed: number;
}

/** What the probe thread is given for one phase, and what it answers. */
interface ProbeJob {
  base: string;
  url: string;
  unitId: string;
  token: string;
  availability: string;
  head: number;
  phaseMs: number;
}
interface ProbeResult {
  health: number[];
  writes: number[];
  head: number;
  availability: string;
}

/**
 * The probes, in a process of their own: the visitor's stream (open throughout, its own address), `/health`
 * every 50 ms, and a unit changed every 200 ms with the time until the visitor's stream has it. Their own event
 * loop, so what they time is the service and not this process parsing 200 replays; the head is posted after each write.
 */
async function probe(job: ProbeJob, post: (head: number) => void): Promise<ProbeResult> {
  let head = job.head;
  let availability = job.availability;
  const arrivals = new Map<number, number>();
  const visitor = openStream(job.url, {}, '127.3.0.1', (id) => arrivals.set(id, performance.now()));
  // A first request, untimed: the new process's HTTP client warms up.
  await (await fetch(`${job.base}/health`)).arrayBuffer();
  await sleep(300);
  const health: number[] = [];
  const writes: number[] = [];
  const started = performance.now();
  const probes = (async () => {
    while (performance.now() - started < job.phaseMs) {
      const t0 = performance.now();
      const res = await fetch(`${job.base}/health`);
      await res.arrayBuffer();
      health.push(performance.now() - t0);
      await sleep(50);
    }
  })();
  while (performance.now() - started < job.phaseMs) {
    availability = availability === 'available' ? 'reserved' : 'available';
    const t0 = performance.now();
    const res = await fetch(`${job.base}/units/${job.unitId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ availability }),
    });
    if (res.status !== 200) throw new Error(`PATCH answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    head += 1;
    post(head);
    const seq = head;
    while (!arrivals.has(seq) && performance.now() - t0 < 30_000) await sleep(1);
    writes.push((arrivals.get(seq) ?? Infinity) - t0);
    await sleep(WRITE_EVERY_MS);
  }
  await probes;
  visitor.stop();
  return { health, writes, head, availability };
}

/** Started with `--probe`: this process is the probe of one phase at a time, told and answering over IPC. */
const IS_PROBE = values.probe;
if (IS_PROBE) {
  process.on('message', (job: ProbeJob) => {
    void probe(job, (head) => process.send!({ head })).then(
      (result) => process.send!({ result }),
      (err: unknown) => process.send!({ error: String(err) }),
    );
  });
}

/** The service's own event-loop delay since the last read (prom-client resets its histogram on each scrape), in ms. */
async function loopDelay(base: string): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const read = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99: read('nodejs_eventloop_lag_p99_seconds'), max: read('nodejs_eventloop_lag_max_seconds') };
}

/** `lastEventId(head)`: what an attacking stream resumes from, given the head when it opens. */
async function phase(base: string, s: Seed, name: string, lastEventId: ((head: number) => number) | undefined): Promise<PhaseResult> {
  const url = `${base}/public/projects/${s.namespace}/events`;
  let head = s.head;
  const prober = fork(fileURLToPath(import.meta.url), ['--probe'], { execArgv: ['--import', 'tsx'] });
  // The probe may run on any core: a visitor does not share the attacker's (the fork inherits this process's pin).
  if (hasTaskset()) spawnSync('taskset', ['-a', '-p', '-c', `${SERVER_CORE},${LOAD_CORE}`, String(prober.pid)]);
  const answered = new Promise<ProbeResult>((resolve, reject) => {
    prober.on('message', (m: { head?: number; result?: ProbeResult; error?: string }) => {
      if (m.head !== undefined) head = m.head;
      if (m.result) resolve(m.result);
      if (m.error) reject(new Error(m.error));
    });
    prober.on('error', reject);
    prober.on('exit', (code) => reject(new Error(`the probe process exited (${code})`)));
  });
  await loopDelay(base);
  prober.send({ base, url, unitId: s.unitId, token: s.token, availability: s.availability, head, phaseMs: PHASE_MS } satisfies ProbeJob);
  let stop = false;
  let opened = 0;
  let refetches = 0;
  let replayed = 0;
  // The attackers: each slot opens, waits for its replay to be over (refetch, or the head), closes, opens again.
  const slots = Array.from({ length: lastEventId === undefined ? 0 : STREAMS }, async (_, i) => {
    const address = `127.2.${Math.floor(i / 20 / 250)}.${(Math.floor(i / 20) % 250) + 1}`;
    while (!stop) {
      opened += 1;
      let done: () => void = () => {};
      const over = new Promise<void>((r) => (done = r));
      const stream = openStream(url, { 'last-event-id': String(lastEventId!(head)) }, address, (id, event) => {
        if (event === 'refetch') {
          refetches += 1;
          done();
        } else {
          replayed += 1;
          if (id >= head) done();
        }
      });
      await Promise.race([over, stream.closed, sleep(PHASE_MS)]);
      stream.stop();
      await stream.closed;
      if (REOPEN_MS && !stop) await sleep(REOPEN_MS);
    }
  });
  const probed = await answered;
  const delay = await loopDelay(base);
  stop = true;
  await Promise.all(slots);
  prober.kill();
  s.head = probed.head;
  s.availability = probed.availability;
  const { health, writes } = probed;
  return {
    phase: name,
    healthP50: quantile(health, 0.5),
    healthP99: quantile(health, 0.99),
    healthMax: quantile(health, 1),
    writeP50: quantile(writes, 0.5),
    writeP99: quantile(writes, 0.99),
    writeMax: quantile(writes, 1),
    loopP99: delay.p99,
    loopMax: delay.max,
    writes: writes.length,
    opened,
    refetches,
    replayed,
  };
}

async function engine(name: 'postgres' | 'pglite') {
  let env: Record<string, string>;
  let db: Db;
  if (name === 'postgres') {
    const bench = await createBenchDb();
    onCleanup(bench.drop);
    db = await openDb({ databaseUrl: bench.url, poolSize: 2 });
    env = { DATABASE_URL: bench.url };
  } else {
    const dataDir = tempDir('showsuite-bench-replay-');
    onCleanup(async () => rmSync(dataDir, { recursive: true, force: true }));
    db = await openDb({ dataDir });
    env = { DATA_DIR: dataDir };
  }
  await migrate(db);
  const s = await seed(db);
  await db.close();
  // The service as `npm start` runs it (dist/main.js with the start script's node flags).
  const node = await startService(
    { ...env, METRICS_TOKEN, HOLD_SWEEP_SEC: '0', INVENTORY_SYNC_MINUTES: '0', ...(values.replays ? { SSE_REPLAYS: values.replays } : {}) },
    values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [],
  );
  onCleanup(node.stop);
  console.log(`${name}: ${EVENTS} events in the log; ${STREAMS} replaying streams; ${PHASE_MS / 1000} s a phase`);
  const results: PhaseResult[] = [];
  // A quiet phase first, not counted: the service's first writes and streams (its code warming up) would otherwise
  // raise the quiet figures that the others are measured against.
  await phase(node.base, s, 'warm-up', undefined);
  for (const [phaseName, from] of [
    ['quiet', undefined],
    ['far (Last-Event-ID: 0)', () => 0],
    [`edge (Last-Event-ID: head - ${MAX_REPLAY})`, (head: number) => head - MAX_REPLAY],
  ] as const) {
    const r = await phase(node.base, s, phaseName, from);
    console.log(`  ${phaseName}: /health p50 ${fmt(r.healthP50, 1)} ms, write on another stream p50 ${fmt(r.writeP50, 1)} ms`);
    results.push(r);
  }
  await node.stop();
  return results;
}

if (!IS_PROBE)
  await runMain(async () => {
    console.log(`pinning: ${pinSelfToLoadCore()}`);
    const all: Record<string, PhaseResult[]> = {};
    for (const name of values.engines.split(',') as ('postgres' | 'pglite')[]) all[name] = await engine(name);
    const rows = Object.entries(all).flatMap(([name, results]) => {
      const quiet = results[0]!;
      return results.map((r) => [
        name,
        r.phase,
        fmt(r.healthP50, 1),
        fmt(r.healthP99, 1),
        fmt(r.writeP50, 1),
        fmt(r.writeP99, 1),
        fmt(r.loopP99, 1),
        fmt(r.loopMax, 1),
        fmt(r.healthP99 / quiet.healthP99, 2),
        fmt(r.writeP99 / quiet.writeP99, 2),
        r.writes,
        r.opened,
        r.refetches,
        r.replayed,
      ]);
    });
    console.log(
      table(
        [
          'engine',
          'phase',
          '/health p50 ms',
          'p99 ms',
          'write→stream p50 ms',
          'p99 ms',
          'service loop delay p99 ms',
          'max ms',
          'health p99 ×quiet',
          'write p99 ×quiet',
          'writes',
          'streams opened',
          'refetches',
          'events replayed',
        ],
        rows,
      ),
    );
    console.log(
      `results: ${writeResults('replay', { machine: machine(), streams: STREAMS, events: EVENTS, phaseMs: PHASE_MS, reopenMs: REOPEN_MS, results: all })}`,
    );
  });
