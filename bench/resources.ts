/**
 * The side-by-side: the same requests against the bare baseline and the service, on the same seeded database,
 * both servers on one core, autocannon on the other, measured alternately so drift hits both alike.
 */
import { readFileSync } from 'node:fs';
import {
  seededBenchDb,
  cpuMs,
  fmt,
  machine,
  median,
  onCleanup,
  pinSelfToLoadCore,
  startBare,
  startService,
  table,
  writeResults,
  type Child,
} from './harness.ts';
import { load, type LoadResult } from './load.ts';
import { scenarios, type Scenario } from './scenarios.ts';
import { DB_ALONE_POOL, dbAlone, type DbAloneResult } from './db-alone.ts';

export interface ResourceOptions {
  durationSec: number;
  warmupSec: number;
  connections: number;
  rounds: number;
  /** Only scenarios whose name contains this. */
  only?: string | undefined;
  keepDb?: boolean;
  /** Run the service with `--cpu-prof` into this directory, and the bare server into its `bare/` (the profiles cover the whole run). */
  cpuProfDir?: string | undefined;
}

interface Check {
  ok: boolean;
  note: string;
}

interface Outcome {
  scenario: string;
  path: string;
  bare?: { check: Check; runs: LoadResult[] };
  service?: { check: Check; runs: LoadResult[] };
  sameBody?: boolean;
  differences?: string[];
  /** The scenario's statement with no HTTP server: the database's own ceiling at the same concurrency. */
  dbAlone?: DbAloneResult;
}

export async function runResources(opts: ResourceOptions) {
  const pinning = pinSelfToLoadCore();
  console.log(`pinning: ${pinning}`);
  const { db, seeded, seedMs } = await seededBenchDb({ keep: opts.keepDb });
  console.log(
    `seeded in ${fmt(seedMs)} ms: 1 project × ${seeded.floorIds.length} floors × ${seeded.unitIds.length} units, ${seeded.projects - 1} more projects of the bench user, 2000 of a stranger`,
  );

  const bare = await startBare(db.url, opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}/bare`] : []);
  onCleanup(() => bare.stop());
  const service = await startService({ DATABASE_URL: db.url }, opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : []);
  onCleanup(() => service.stop());
  console.log(`bare server ${bare.base} (ready in ${fmt(bare.readyMs)} ms), service ${service.base} (ready in ${fmt(service.readyMs)} ms)`);

  const list = scenarios(seeded).filter((s) => !opts.only || s.name.includes(opts.only));
  const outcomes: Outcome[] = [];
  for (const s of list) {
    console.log(`\n${s.name}`);
    const outcome: Outcome = { scenario: s.name, path: s.path };
    const targets: ['bare' | 'service', Child][] = [];
    const answers: Partial<Record<'bare' | 'service', Answer>> = {};
    for (const [key, child] of [
      ['bare', bare],
      ['service', service],
    ] as const) {
      if (key === 'bare' && s.bare === false) continue;
      const answer = await ask(child, s);
      answers[key] = answer;
      const check = describe(key, answer);
      outcome[key] = { check, runs: [] };
      console.log(`  ${key}: ${check.note}`);
      if (check.ok) targets.push([key, child]);
    }
    if (answers.bare?.status === 200 && answers.service?.status === 200) {
      outcome.differences = compare(answers.bare, answers.service);
      outcome.sameBody = outcome.differences.length === 0;
      if (outcome.sameBody) console.log('  bodies and every header agree (Date and X-Request-Id values aside)');
      else console.warn(`  warning: the answers differ, so the comparison is not like for like:\n    ${outcome.differences.slice(0, 8).join('\n    ')}`);
    }
    const conditional = (key: 'bare' | 'service') =>
      s.revalidate ? { headers: { ...s.headers, 'if-none-match': answers[key]?.etag ?? '' }, expect: '3xx' as const } : {};
    if (s.revalidate) {
      for (const [key, child] of targets) {
        const status = (await fetch(`${child.base}${s.path}`, { headers: conditional(key).headers })).status;
        console.log(`  ${key}: If-None-Match ${answers[key]?.etag} → ${status}`);
      }
    }
    for (const [key, child] of targets) {
      await load({ ...request(child, s), ...conditional(key), connections: opts.connections, durationSec: opts.warmupSec });
    }
    for (let round = 0; round < opts.rounds; round++) {
      // A-B then B-A: neither server always runs first.
      const order = round % 2 ? [...targets].reverse() : targets;
      for (const [key, child] of order) {
        const cpuBefore = cpuMs(child.process.pid);
        const r = await load({ ...request(child, s), ...conditional(key), connections: opts.connections, durationSec: opts.durationSec });
        const cpuAfter = cpuMs(child.process.pid);
        // CPU the server spent per successful answer: what a busy shared machine distorts least.
        if (cpuBefore !== undefined && cpuAfter !== undefined && r.ok > 0) r.cpuUsPerRequest = ((cpuAfter - cpuBefore) * 1000) / r.ok;
        outcome[key]!.runs.push(r);
        console.log(
          `  round ${round + 1} ${key.padEnd(7)} ${fmt(r.reqPerSec).padStart(7)} req/s  p99 ${r.latencyMs.p99} ms  ${r.cpuUsPerRequest !== undefined ? `${fmt(r.cpuUsPerRequest)} µs CPU/req` : ''}${r.non2xx || r.errors ? `  (${r.non2xx} non-2xx, ${r.errors} errors)` : ''}`,
        );
      }
    }
    if (s.statement) {
      outcome.dbAlone = await dbAlone(db.url, s.statement, { callers: opts.connections, durationSec: opts.durationSec, warmupSec: opts.warmupSec });
      console.log(
        `  database alone  ${fmt(outcome.dbAlone.perSec).padStart(7)} statements/s  p50 ${fmt(outcome.dbAlone.latencyMs.p50, 1)} ms  p99 ${fmt(outcome.dbAlone.latencyMs.p99, 1)} ms` +
          `  (the statement from ${opts.connections} callers over ${DB_ALONE_POOL} connections, no HTTP server)`,
      );
    }
    outcomes.push(outcome);
  }

  const rows = outcomes.map((o) => {
    const b = summary(o.bare?.runs);
    const sv = summary(o.service?.runs);
    const cpuRatio = b?.cpu && sv?.cpu ? fmt(b.cpu / sv.cpu, 2) : '-';
    const paired = pairedRatio(o.bare?.runs, o.service?.runs);
    return [
      o.scenario,
      b ? fmt(b.rps) : 'n/a',
      sv ? fmt(sv.rps) : 'n/a',
      b && sv ? fmt(sv.rps / b.rps, 2) : '-',
      paired !== undefined ? fmt(paired, 2) : '-',
      b ? fmt(b.p99) : '-',
      sv ? fmt(sv.p99) : '-',
      b?.cpu ? fmt(b.cpu) : '-',
      sv?.cpu ? fmt(sv.cpu) : '-',
      cpuRatio,
      o.sameBody === false ? 'bodies differ' : '',
    ];
  });
  console.log(
    `\n${opts.connections} connections, ${opts.rounds} × ${opts.durationSec} s per server (after ${opts.warmupSec} s warm-up); medians over rounds\n`,
  );
  console.log(
    table(
      [
        'scenario',
        'bare req/s',
        'service req/s',
        'service/bare',
        'paired',
        'bare p99 ms',
        'service p99 ms',
        'bare µs CPU/req',
        'service µs CPU/req',
        'bare/service CPU',
        '',
      ],
      rows,
    ),
  );
  for (const o of outcomes) {
    if (o.service && !o.service.check.ok) console.log(`${o.scenario}: ${o.service.check.note}`);
    if (o.dbAlone) {
      console.log(
        `${o.scenario}: the database alone (its statement from ${opts.connections} callers, no HTTP server) ran ${fmt(o.dbAlone.perSec)} statements/s, p99 ${fmt(o.dbAlone.latencyMs.p99, 1)} ms`,
      );
    }
  }
  // The bundle's revalidation target is stated against the bare server's full responses.
  const full = outcomes.find((o) => o.scenario.endsWith('full'));
  const reval = outcomes.find((o) => o.scenario.endsWith('If-None-Match'));
  const bareFull = summary(full?.bare?.runs);
  const serviceReval = summary(reval?.service?.runs);
  if (bareFull && serviceReval) {
    console.log(`
bundle: service revalidations (304) / bare full responses = ${fmt(serviceReval.rps / bareFull.rps, 2)}×`);
  }
  const peakRss = { bare: peakRssMb(bare), service: peakRssMb(service) };
  console.log(`peak RSS: bare ${peakRss.bare ?? '?'} MB, service ${peakRss.service ?? '?'} MB`);
  const file = writeResults('resources', { kind: 'resources', at: new Date().toISOString(), machine: machine(), pinning, options: opts, outcomes, peakRss });
  console.log(`\nresults: ${file}`);
}

/** The child's high-water resident set (VmHWM), in MB; undefined where /proc is not available. */
function peakRssMb(child: Child): number | undefined {
  try {
    const status = readFileSync(`/proc/${child.process.pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : undefined;
  } catch {
    return undefined;
  }
}

interface Answer {
  status: number;
  body: string;
  etag: string | null;
  total: string | null;
  /** Every response header, names in lower case. */
  headers: Record<string, string>;
  error?: string;
}

async function ask(child: Child, s: Scenario): Promise<Answer> {
  try {
    const res = await fetch(`${child.base}${s.path}`, {
      method: s.method ?? 'GET',
      headers: s.headers ?? {},
      ...(s.body !== undefined ? { body: s.body } : {}),
    });
    const headers = Object.fromEntries(res.headers);
    return { status: res.status, body: await res.text(), etag: res.headers.get('etag'), total: res.headers.get('x-total-count'), headers };
  } catch (err) {
    return { status: 0, body: '', etag: null, total: null, headers: {}, error: (err as Error).message };
  }
}

function describe(key: string, a: Answer): Check {
  if (a.status === 200) return { ok: true, note: `200, ${a.body.length} bytes${a.total !== null ? `, X-Total-Count ${a.total}` : ''}` };
  if (a.status === 0) return { ok: false, note: `no answer (${a.error})` };
  let detail = a.body.slice(0, 200);
  try {
    detail = JSON.parse(a.body).detail ?? detail;
  } catch {
    // Not a problem document: the start of the body says what it is.
  }
  if (a.status === 404 && /^No route/.test(detail)) return { ok: false, note: `${key} endpoint not available (404: ${detail}); not measured` };
  return { ok: false, note: `answered ${a.status} (${detail}); not measured` };
}

function request(child: Child, s: Scenario) {
  return { url: `${child.base}${s.path}`, method: s.method ?? 'GET', headers: s.headers ?? {}, ...(s.body !== undefined ? { body: s.body } : {}) } as const;
}

/** Headers whose values differ between any two answers: the time, and each request's own id (present in both). */
const PER_ANSWER = new Set(['date', 'x-request-id']);

/** Where the two answers differ: every header (by name, values too but for PER_ANSWER), then the body (key order ignored). */
export function compare(a: Pick<Answer, 'body' | 'headers'>, b: Pick<Answer, 'body' | 'headers'>): string[] {
  const out: string[] = [];
  for (const name of new Set([...Object.keys(a.headers), ...Object.keys(b.headers)])) {
    const [x, y] = [a.headers[name], b.headers[name]];
    if (x === undefined || y === undefined || (x !== y && !PER_ANSWER.has(name))) out.push(`header ${name}: bare ${x ?? 'absent'}, service ${y ?? 'absent'}`);
  }
  diff(JSON.parse(a.body), JSON.parse(b.body), '', out);
  return out;
}

function diff(a: unknown, b: unknown, path: string, out: string[]) {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k}`, out);
    return;
  }
  if (a !== b) out.push(`${path || '/'}: bare ${JSON.stringify(a) ?? 'absent'}, service ${JSON.stringify(b) ?? 'absent'}`);
}

/**
 * The median over rounds of service/bare throughput within each round. A round runs the two servers back to back, so
 * its ratio shares the machine's state of that minute; on a shared machine whose speed drifts between minutes this
 * is steadier than the ratio of the two medians.
 */
function pairedRatio(bare: LoadResult[] | undefined, service: LoadResult[] | undefined) {
  if (!bare?.length || bare.length !== service?.length) return undefined;
  return median(bare.map((r, i) => service[i]!.reqPerSec / r.reqPerSec));
}

function summary(runs: LoadResult[] | undefined) {
  if (!runs?.length) return undefined;
  const cpu = runs.filter((r) => r.cpuUsPerRequest !== undefined).map((r) => r.cpuUsPerRequest!);
  return { rps: median(runs.map((r) => r.reqPerSec)), p99: median(runs.map((r) => r.latencyMs.p99)), cpu: cpu.length ? median(cpu) : undefined };
}
