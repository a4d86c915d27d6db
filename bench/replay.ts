/**
 * npx tsx bench/replay.ts [--streams 200] [--events 20000] [--seconds 10] [--engines postgres,pglite] [--reopen-ms 1000] [--replays n]
 *
 * The live feed's replay under attack: one project whose log holds `--events` events (what one ordinary
 * import of that many units leaves), one service node per engine. Three phases of `--seconds` each:
 *   quiet  — nobody replays;
 *   far    — `--streams` streams resume with `Last-Event-ID: 0`; each opens again `--reopen-ms` (1000) after its
 *            replay is over (refetch, or the head reached), so replays go on through the phase;
 *   edge   — the same, from just within SSE_REPLAY_MAX_EVENTS of the head (the most a node replays for one stream).
 * Meanwhile `/health` is asked every 50 ms, and every 500 ms a unit is changed through the API and the time until a
 * visitor's stream (open throughout) has the change is taken. The target: both within 2× of quiet.
 */
import { randomBytes } from 'node:crypto';
import { request, type ClientRequest } from 'node:http';
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDb, type Db } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { APPEND_BATCH, appendEvents } from '../src/modules/events/events.repo.ts';
import {
  BENCH_JWT_SECRET,
  createBenchDb,
  fmt,
  machine,
  onCleanup,
  pinSelfToLoadCore,
  runMain,
  serviceEnv,
  startNode,
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
  },
});
const STREAMS = Number(values.streams);
const EVENTS = Number(values.events);
const PHASE_MS = Number(values.seconds) * 1000;
/** How long an attacking stream waits, once its replay is over, before it opens again (0: at once, a connection storm). */
const REOPEN_MS = Number(values['reopen-ms']);
/** The service's default SSE_REPLAY_MAX_EVENTS. */
const MAX_REPLAY = 1000;

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
  writes: number;
  opened: number;
  refetches: number;
  replayed: number;
}

/** `lastEventId(head)`: what an attacking stream resumes from, given the head when it opens. */
async function phase(base: string, s: Seed, name: string, lastEventId: ((head: number) => number) | undefined): Promise<PhaseResult> {
  const url = `${base}/public/projects/${s.namespace}/events`;
  let head = s.head;
  // The visitor: open throughout, from its own address.
  const arrivals = new Map<number, number>();
  const visitor = openStream(url, {}, '127.3.0.1', (id) => arrivals.set(id, performance.now()));
  await sleep(300);
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
  const health: number[] = [];
  const writes: number[] = [];
  const started = performance.now();
  const probes = (async () => {
    while (performance.now() - started < PHASE_MS) {
      const t0 = performance.now();
      const res = await fetch(`${base}/health`);
      await res.arrayBuffer();
      health.push(performance.now() - t0);
      await sleep(50);
    }
  })();
  while (performance.now() - started < PHASE_MS) {
    const availability = (s.availability = s.availability === 'available' ? 'reserved' : 'available');
    const t0 = performance.now();
    const res = await fetch(`${base}/units/${s.unitId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ availability }),
    });
    if (res.status !== 200) throw new Error(`PATCH answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    head += 1;
    const seq = head;
    while (!arrivals.has(seq) && performance.now() - t0 < 30_000) await sleep(1);
    writes.push((arrivals.get(seq) ?? Infinity) - t0);
    await sleep(500);
  }
  await probes;
  stop = true;
  await Promise.all(slots);
  visitor.stop();
  s.head = head;
  return {
    phase: name,
    healthP50: quantile(health, 0.5),
    healthP99: quantile(health, 0.99),
    healthMax: quantile(health, 1),
    writeP50: quantile(writes, 0.5),
    writeP99: quantile(writes, 0.99),
    writeMax: quantile(writes, 1),
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
  const node = await startNode(
    'service',
    'src/main.ts',
    serviceEnv({ ...env, HOLD_SWEEP_SEC: '0', INVENTORY_SYNC_MINUTES: '0', ...(values.replays ? { SSE_REPLAYS: values.replays } : {}) }),
  );
  onCleanup(node.stop);
  console.log(`${name}: ${EVENTS} events in the log; ${STREAMS} replaying streams; ${PHASE_MS / 1000} s a phase`);
  const results: PhaseResult[] = [];
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
