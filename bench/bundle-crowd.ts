/**
 * `npx tsx bench/bundle-crowd.ts [--rounds 60] [--crowd 64]`: a crowd fetching the public bundle right after a write.
 * The seeded showcase project (PostgreSQL, the service as `npm start` runs it, on the server core); each round changes
 * one unit's price through the API (the node's memo of the bundle is then due, and the version is new), then `--crowd`
 * requests for the bundle go out at once on connections already open. The baseline is the same crowd with no write
 * before it (every answer from the node's memo and cache: the least the node can do for it). Reported per round: how
 * long until the whole crowd is answered (p50, p99) and the service's CPU time, and the after-a-write figures as a
 * multiple of the baseline's.
 */
import { parseArgs } from 'node:util';
import { Agent, get as httpGet } from 'node:http';
import {
  BENCH_JWT_SECRET,
  cpuMs,
  fmt,
  machine,
  onCleanup,
  pinSelfToLoadCore,
  quantile,
  runMain,
  seededBenchDb,
  startService,
  table,
  writeResults,
} from './harness.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '60' },
    crowd: { type: 'string', default: '64' },
  },
});
const ROUNDS = Number(values.rounds);
const CROWD = Number(values.crowd);

interface Round {
  ms: number;
  cpuMs: number;
}

await runMain(async () => {
  const pinning = pinSelfToLoadCore();
  const { db, seeded } = await seededBenchDb();
  const node = await startService({ DATABASE_URL: db.url, JWT_SECRET: BENCH_JWT_SECRET, HOLD_SWEEP_SEC: '0', INVENTORY_SYNC_MINUTES: '0' });
  onCleanup(node.stop);
  // One kept-alive connection per member of the crowd, opened in the warm-up.
  const agent = new Agent({ keepAlive: true, maxSockets: CROWD });
  onCleanup(async () => agent.destroy());
  const url = `${node.base}/public/projects/${seeded.showcaseNamespace}`;
  const get = () =>
    new Promise<void>((resolve, reject) => {
      httpGet(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`bundle answered ${res.statusCode}`))));
      }).on('error', reject);
    });
  let price = 500_000;
  const write = async () => {
    price += 1;
    const res = await fetch(`${node.base}/units/${seeded.sampleUnitId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ price }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the write answered ${res.status}`);
  };
  const round = async (afterWrite: boolean): Promise<Round> => {
    if (afterWrite) await write();
    else await get();
    const cpu0 = cpuMs(node.process.pid) ?? NaN;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CROWD }, get));
    const ms = performance.now() - t0;
    return { ms, cpuMs: (cpuMs(node.process.pid) ?? NaN) - cpu0 };
  };
  // Warm-up: connections opened, the code warmed, the first build done.
  for (let i = 0; i < 5; i++) await round(true);
  const quiet: Round[] = [];
  const written: Round[] = [];
  // Interleaved, so a slower moment of the machine weighs on both alike.
  for (let i = 0; i < ROUNDS; i++) {
    quiet.push(await round(false));
    written.push(await round(true));
  }
  const summary = (rounds: Round[]) => {
    const ms = rounds.map((r) => r.ms);
    return { p50: quantile(ms, 0.5), p99: quantile(ms, 0.99), cpu: rounds.reduce((s, r) => s + r.cpuMs, 0) / rounds.length };
  };
  const q = summary(quiet);
  const w = summary(written);
  console.log(`${pinning}; ${ROUNDS} rounds of a crowd of ${CROWD} on a ${seeded.unitIds.length}-unit project (PostgreSQL)`);
  console.log(
    table(
      ['crowd', 'answered p50 ms', 'p99 ms', 'service CPU ms a round', 'p50 ×baseline', 'CPU ×baseline'],
      [
        ['no write before it (baseline)', fmt(q.p50), fmt(q.p99), fmt(q.cpu), '1.00', '1.00'],
        ['right after a write', fmt(w.p50), fmt(w.p99), fmt(w.cpu), (w.p50 / q.p50).toFixed(2), (w.cpu / q.cpu).toFixed(2)],
      ],
    ),
  );
  console.log(`results: ${writeResults('bundle-crowd', { machine: machine(), rounds: ROUNDS, crowd: CROWD, quiet: q, afterWrite: w })}`);
});
