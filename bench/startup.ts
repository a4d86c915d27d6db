/**
 * Start-to-ready (spawn until GET /ready answers 200) on PGlite and PostgreSQL, first and second start,
 * and login throughput with the production argon2id parameters.
 *
 *   npm run bench -- startup [--repeat 3] [--login-duration 10] [--login-connections 16]
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadConfig } from '../src/config.ts';
import {
  BENCH_JWT_SECRET,
  createBenchDb,
  fmt,
  machine,
  median,
  onCleanup,
  pinned,
  pinSelfToLoadCore,
  ROOT,
  SERVER_CORE,
  startService,
  table,
  tempDir,
  writeResults,
} from './harness.ts';
import { load, type LoadResult } from './load.ts';

export interface StartupOptions {
  repeat: number;
  loginDurationSec: number;
  loginConnections: number;
  warmupSec: number;
  /** Also measure login throughput (argon2id). */
  login?: boolean;
}

const ADMIN_EMAIL = 'bench-admin@example.com';
const ADMIN_PASSWORD = 'bench-admin-password';

export async function runStartup(opts: StartupOptions) {
  const pinning = pinSelfToLoadCore();
  console.log(`pinning: ${pinning}`);
  // The parameters the service uses when ARGON2_* are unset: read from its own config, not restated here.
  const cfgDir = tempDir('showsuite-bench-cfg-');
  const { argon2 } = loadConfig({ JWT_SECRET: BENCH_JWT_SECRET, SECRET_KEY: '0'.repeat(64), DATA_DIR: cfgDir });
  rmSync(cfgDir, { recursive: true, force: true });
  console.log(`argon2id: memoryCost ${argon2.memoryCost} KiB, timeCost ${argon2.timeCost}, parallelism ${argon2.parallelism} (service defaults)`);

  const starts: Record<string, number[]> = { node: [], 'pglite fresh': [], 'pglite again': [], 'postgres fresh': [], 'postgres again': [] };
  const cpu: Record<string, number[]> = { 'pglite fresh': [], 'pglite again': [], 'postgres fresh': [], 'postgres again': [] };
  for (let i = 0; i < opts.repeat; i++) {
    starts.node!.push(await bareNodeMs());
    const dir = tempDir('showsuite-bench-pglite-');
    try {
      for (const label of ['pglite fresh', 'pglite again']) {
        // As `npm start` on a fresh checkout: the embedded database, created, migrated and seeded with the demo.
        const s = await startService({ DATA_DIR: dir, SEED_DEMO: 'true' });
        starts[label]!.push(s.readyMs);
        if (s.readyCpuMs !== undefined) cpu[label]!.push(s.readyCpuMs);
        await s.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const db = await createBenchDb();
    try {
      for (const label of ['postgres fresh', 'postgres again']) {
        const s = await startService({ DATABASE_URL: db.url });
        starts[label]!.push(s.readyMs);
        if (s.readyCpuMs !== undefined) cpu[label]!.push(s.readyCpuMs);
        await s.stop();
      }
    } finally {
      await db.drop();
    }
    console.log(
      `  start round ${i + 1}: ${Object.entries(starts)
        .map(([k, v]) => `${k} ${fmt(v[i]!)} ms`)
        .join(', ')}`,
    );
  }

  const logins: Record<string, LoadResult> = {};
  for (const engine of opts.login === false ? [] : (['pglite', 'postgres'] as const)) {
    const env: Record<string, string> = {
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      // The per-IP login limit (60/min) would otherwise turn the benchmark into a 429 benchmark.
      LOGIN_RATE_PER_MINUTE: '100000',
    };
    if (engine === 'postgres') {
      const db = await createBenchDb();
      onCleanup(() => db.drop());
      env.DATABASE_URL = db.url;
    }
    const service = await startService(env);
    onCleanup(() => service.stop());
    const request = {
      url: `${service.base}/users/login`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
    };
    const probe = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
    if (probe.status !== 200) throw new Error(`login as ${ADMIN_EMAIL} answered ${probe.status}: ${await probe.text()}`);
    await load({ ...request, connections: opts.loginConnections, durationSec: opts.warmupSec });
    const r = await load({ ...request, connections: opts.loginConnections, durationSec: opts.loginDurationSec });
    logins[engine] = r;
    console.log(
      `  login on ${engine}: ${fmt(r.reqPerSec, 1)} req/s, p99 ${r.latencyMs.p99} ms${r.non2xx || r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : ''}`,
    );
    await service.stop();
  }

  const row = (engine: string, start: string, xs: number[], cpuXs: number[] = []) => [
    engine,
    start,
    fmt(median(xs)),
    fmt(Math.min(...xs)),
    fmt(Math.max(...xs)),
    cpuXs.length ? fmt(median(cpuXs)) : '-',
    xs.length,
  ];
  console.log(`\nstart to ready (spawn of node dist/main.js, as npm start runs it, until GET /ready is 200), ms\n`);
  console.log(
    table(
      ['engine', 'start', 'median', 'min', 'max', 'CPU at ready (median)', 'runs'],
      [
        row('(none)', 'node -e 0, to exit', starts.node!),
        row('PGlite', 'fresh DATA_DIR (init + migrations + demo seed)', starts['pglite fresh']!, cpu['pglite fresh']),
        row('PGlite', 'same DATA_DIR again', starts['pglite again']!, cpu['pglite again']),
        row('PostgreSQL', 'fresh database (migrations)', starts['postgres fresh']!, cpu['postgres fresh']),
        row('PostgreSQL', 'migrated database', starts['postgres again']!, cpu['postgres again']),
      ],
    ),
  );
  console.log(
    `\nPOST /users/login, argon2id m=${argon2.memoryCost} KiB t=${argon2.timeCost} p=${argon2.parallelism}, ${opts.loginConnections} connections, ${opts.loginDurationSec} s\n`,
  );
  console.log(
    table(
      ['engine', 'logins/s', 'p50 ms', 'p99 ms', 'non-2xx'],
      Object.entries(logins).map(([engine, r]) => [
        engine === 'pglite' ? 'PGlite' : 'PostgreSQL',
        fmt(r.reqPerSec, 1),
        r.latencyMs.p50,
        r.latencyMs.p99,
        r.non2xx,
      ]),
    ),
  );
  const file = writeResults('startup', {
    kind: 'startup',
    at: new Date().toISOString(),
    machine: machine(),
    pinning,
    options: opts,
    argon2,
    startsMs: starts,
    cpuAtReadyMs: cpu,
    logins,
  });
  console.log(`\nresults: ${file}`);
}

/** The floor under every start: Node doing nothing. */
async function bareNodeMs(): Promise<number> {
  const [cmd, args] = pinned(SERVER_CORE, process.execPath, ['-e', '0']);
  const started = performance.now();
  const child = spawn(cmd, args, { cwd: ROOT, stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return performance.now() - started;
}
