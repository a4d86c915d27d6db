/**
 * `npm run bench -- metrics`: what GET /metrics costs the hot path. Two builds of the same service on the same seeded
 * database, one without METRICS_TOKEN (no per-request hook) and one with it (every answer observed in the request
 * duration histogram), both on the server core, measured alternately on the unit read; the run ends with a scrape
 * showing the observations were made.
 */
import { randomBytes } from 'node:crypto';
import { seededBenchDb, cpuMs, fmt, machine, median, onCleanup, pinSelfToLoadCore, startService, table, writeResults, type Child } from './harness.ts';
import { load, type LoadResult } from './load.ts';

export interface MetricsBenchOptions {
  durationSec: number;
  warmupSec: number;
  connections: number;
  rounds: number;
}

/** The target: the unit read with metrics on keeps at least this share of its throughput with metrics off. */
export const METRICS_TARGET = 0.95;

export async function runMetricsBench(opts: MetricsBenchOptions) {
  const pinning = pinSelfToLoadCore();
  console.log(`pinning: ${pinning}`);
  const { db, seeded } = await seededBenchDb();

  const token = randomBytes(24).toString('hex');
  const off = await startService({ DATABASE_URL: db.url });
  onCleanup(() => off.stop());
  const on = await startService({ DATABASE_URL: db.url, METRICS_TOKEN: token });
  onCleanup(() => on.stop());
  const path = `/units/${seeded.sampleUnitId}`;
  const headers = { authorization: `Bearer ${seeded.token}` };
  const servers: [string, Child][] = [
    ['metrics off', off],
    ['metrics on', on],
  ];
  for (const [name, child] of servers) {
    const status = (await fetch(`${child.base}${path}`, { headers })).status;
    if (status !== 200) throw new Error(`${name}: GET ${path} answered ${status}`);
  }
  const scrapeOff = (await fetch(`${off.base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status;
  console.log(`GET ${path} on both; /metrics answers ${scrapeOff} without METRICS_TOKEN`);

  const runs: Record<string, LoadResult[]> = { 'metrics off': [], 'metrics on': [] };
  for (const [, child] of servers) await load({ url: `${child.base}${path}`, headers, connections: opts.connections, durationSec: opts.warmupSec });
  for (let round = 0; round < opts.rounds; round++) {
    // A-B then B-A: neither server always runs first.
    const order = round % 2 ? [...servers].reverse() : servers;
    for (const [name, child] of order) {
      const before = cpuMs(child.process.pid);
      const r = await load({ url: `${child.base}${path}`, headers, connections: opts.connections, durationSec: opts.durationSec });
      const after = cpuMs(child.process.pid);
      if (before !== undefined && after !== undefined && r.ok > 0) r.cpuUsPerRequest = ((after - before) * 1000) / r.ok;
      runs[name]!.push(r);
      console.log(
        `  round ${round + 1} ${name.padEnd(11)} ${fmt(r.reqPerSec).padStart(7)} req/s  p99 ${r.latencyMs.p99} ms  ${r.cpuUsPerRequest !== undefined ? `${fmt(r.cpuUsPerRequest)} µs CPU/req` : ''}${r.non2xx || r.errors ? `  (${r.non2xx} non-2xx, ${r.errors} errors)` : ''}`,
      );
    }
  }

  const offRuns = runs['metrics off']!;
  const onRuns = runs['metrics on']!;
  const rps = (rs: LoadResult[]) => median(rs.map((r) => r.reqPerSec));
  const cpu = (rs: LoadResult[]) => median(rs.filter((r) => r.cpuUsPerRequest !== undefined).map((r) => r.cpuUsPerRequest!));
  const ratio = rps(onRuns) / rps(offRuns);
  const paired = median(offRuns.map((r, i) => onRuns[i]!.reqPerSec / r.reqPerSec));
  console.log(
    `\nGET /units/{id}, ${opts.connections} connections, ${opts.rounds} × ${opts.durationSec} s per server (after ${opts.warmupSec} s warm-up); medians over rounds\n`,
  );
  console.log(
    table(
      ['metrics off req/s', 'metrics on req/s', 'on/off', 'paired', 'off p99 ms', 'on p99 ms', 'off µs CPU/req', 'on µs CPU/req'],
      [
        [
          fmt(rps(offRuns)),
          fmt(rps(onRuns)),
          fmt(ratio, 2),
          fmt(paired, 2),
          fmt(median(offRuns.map((r) => r.latencyMs.p99))),
          fmt(median(onRuns.map((r) => r.latencyMs.p99))),
          fmt(cpu(offRuns)),
          fmt(cpu(onRuns)),
        ],
      ],
    ),
  );
  const scrape = await (await fetch(`${on.base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const observed = /^http_request_duration_seconds_count\{[^}]*route="\/units\/:id"[^}]*status_code="200"[^}]*\} (\d+)$/m.exec(scrape)?.[1];
  console.log(`\nthe metrics-on service observed ${observed ?? 'no'} unit reads (http_request_duration_seconds_count, route "/units/:id", 200)`);
  const met = paired >= METRICS_TARGET;
  console.log(`target: metrics on ≥ ${METRICS_TARGET} of metrics off (paired): ${met ? 'met' : 'NOT met'} (${fmt(paired, 2)})`);
  const file = writeResults('metrics', {
    kind: 'metrics',
    at: new Date().toISOString(),
    machine: machine(),
    pinning,
    options: opts,
    runs,
    ratio,
    paired,
    observed,
  });
  console.log(`\nresults: ${file}`);
}
