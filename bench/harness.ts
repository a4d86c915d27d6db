/** What every benchmark needs: throwaway databases, free ports, pinned child processes, readiness, tables, results. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { openDb } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed, type Seeded } from './seed.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The server where throwaway benchmark databases are created (same default as the tests). */
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const BENCH_JWT_SECRET = 'bench-jwt-secret-that-is-long-enough-0123456789';
/** One SECRET_KEY for every service of a run: a database remembers the key it was first started with and refuses others. */
export const BENCH_SECRET_KEY = randomBytes(32).toString('hex');
/** Servers under test run on this core, the load generator (this process) on the other. */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

export const isMain = (moduleUrl: string) => process.argv[1] !== undefined && moduleUrl === pathToFileURL(resolve(process.argv[1])).href;

let tasksetChecked: boolean | undefined;
/** taskset, when present and allowed here; otherwise one warning and everything runs unpinned. */
export function hasTaskset(): boolean {
  if (tasksetChecked === undefined) {
    const r = spawnSync('taskset', ['-c', String(SERVER_CORE), 'true']);
    tasksetChecked = r.status === 0 && cpus().length > LOAD_CORE;
    if (!tasksetChecked) {
      console.warn(
        `warning: ${r.error ? 'taskset not found (apt-get install -y util-linux)' : `cannot pin to cores ${SERVER_CORE} and ${LOAD_CORE}`}; ` +
          'servers and load generator share all cores, so the numbers are noisier and lower.',
      );
    }
  }
  return tasksetChecked;
}

/** Moves this process (all its threads) to the load core, so in-process autocannon never competes with a server. */
export function pinSelfToLoadCore(): string {
  if (!hasTaskset()) return 'unpinned';
  const r = spawnSync('taskset', ['-a', '-p', '-c', String(LOAD_CORE), String(process.pid)]);
  if (r.status !== 0) {
    console.warn(`warning: could not pin the load generator to core ${LOAD_CORE}: ${r.stderr.toString().trim()}`);
    return 'unpinned';
  }
  return `servers on core ${SERVER_CORE}, load generator on core ${LOAD_CORE}`;
}

/** A command line prefixed with `taskset -c <core>` when pinning works. */
export function pinned(core: number, command: string, args: string[]): [string, string[]] {
  return hasTaskset() ? ['taskset', ['-c', String(core), command, ...args]] : [command, args];
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolvePort(port));
    });
  });
}

export interface BenchDb {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A throwaway database `showsuite_bench_<random>` on PG_ADMIN_URL's server. */
export async function createBenchDb(): Promise<BenchDb> {
  const name = `showsuite_bench_${randomBytes(5).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}

async function adminQuery(text: string) {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

export interface Child {
  name: string;
  port: number;
  base: string;
  /** From spawn until GET /ready answered 200. */
  readyMs: number;
  /** CPU time (user + system) the process had used when it was ready; less sensitive to a busy machine than readyMs. */
  readyCpuMs: number | undefined;
  process: ChildProcess;
  /** Everything the child wrote to stderr (warnings, crashes). */
  stderr(): string;
  stop(): Promise<void>;
}

let built = false;
/** `npm run build` once per benchmark run: the service is measured as `npm start` runs it, plain node on dist/. */
export function buildOnce() {
  if (built) return;
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error('npm run build failed');
  built = true;
}

/** The service's environment for a benchmark: logs at info as deployed, no demo data, fixed secrets, a private DATA_DIR. */
export function serviceEnv(extra: Record<string, string>): Record<string, string> {
  const dataDir = tempDir('showsuite-bench-data-');
  onCleanup(async () => rmSync(dataDir, { recursive: true, force: true }));
  return {
    JWT_SECRET: BENCH_JWT_SECRET,
    SECRET_KEY: BENCH_SECRET_KEY,
    LOG_LEVEL: 'info',
    SEED_DEMO: 'false',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ...extra,
  };
}

/**
 * Spawns node on a script pinned to the server core (unless `pin` is false: then on any core) and waits until
 * GET /ready answers 200: a `.ts` script through the tsx loader, a built `.js` one with plain node.
 */
export async function startNode(
  name: string,
  script: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
  nodeArgs: string[] = [],
  pin = true,
): Promise<Child> {
  const port = Number(env.PORT ?? (await freePort()));
  const argv = [...nodeArgs, ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), script];
  const [cmd, args] = pin ? pinned(SERVER_CORE, process.execPath, argv) : [process.execPath, argv];
  const started = performance.now();
  const child = spawn(cmd, args, {
    cwd: ROOT,
    // The benchmarks talk to the API at 127.0.0.1, so the buyer's pages go to the other loopback name.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PAGES_URL: `http://localhost:${port}`,
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    }
  };
  let dead = false;
  void exited.then(() => (dead = true));
  while (true) {
    if (dead) throw new Error(`${name} exited before it was ready:\n${stderr.trim()}`);
    if (performance.now() - started > timeoutMs) {
      await stop();
      throw new Error(`${name} not ready within ${timeoutMs} ms:\n${stderr.trim()}`);
    }
    const status = await fetch(`${base}/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - started;
  return { name, port, base, readyMs, readyCpuMs: cpuMs(child.pid), process: child, stderr: () => stderr, stop };
}

/** The node flags `npm start` gives the service (package.json's start script), so the benchmark runs it alike. */
export const START_FLAGS: string[] =
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.match(/--[a-z-]+=\S+/g) ?? [];

/**
 * The service as `npm start` runs it: `node <the start script's flags> dist/main.js` (built once per benchmark run),
 * pinned to the server core unless `pin` is false.
 */
export const startService = (env: Record<string, string>, nodeArgs: string[] = [], pin = true) => {
  buildOnce();
  return startNode('service', 'dist/main.js', serviceEnv(env), 60_000, [...START_FLAGS, ...nodeArgs], pin);
};

export const startBare = (databaseUrl: string, nodeArgs: string[] = []) =>
  startNode('bare server', 'bench/bare-server.ts', { DATABASE_URL: databaseUrl, JWT_SECRET: BENCH_JWT_SECRET, HOST: '127.0.0.1' }, 60_000, nodeArgs);

/** utime + stime of a process from /proc, in ms; undefined where /proc is not available. */
export function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), counted from the state field (3).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** A plain-text table with right-aligned numbers. */
export function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = head.map((_, i) => rows.every((r) => /^[-\d.]*$/.test(String(r[i] ?? ''))));
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [
    line(cells[0]!),
    widths
      .map((w) => '-'.repeat(w))
      .join('  ')
      .trimEnd(),
    ...cells.slice(1).map(line),
  ].join('\n');
}

export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The machine, so a result file says what it was measured on. */
export function machine() {
  const cpu = cpus();
  return { cpuModel: cpu[0]?.model, cpuCount: cpu.length, node: process.version, platform: `${process.platform} ${process.arch}` };
}

/** Writes bench/results/<timestamp>-<kind>.json (git-ignored) and returns its path. */
export function writeResults(kind: string, data: unknown): string {
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${kind}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

const cleanups: (() => Promise<void>)[] = [];
/** Registered teardown (stop children, drop databases), run last-in first-out by runCleanups, also on Ctrl-C. */
export function onCleanup(fn: () => Promise<void>) {
  cleanups.push(fn);
}

export async function runCleanups() {
  while (cleanups.length) {
    const fn = cleanups.pop()!;
    await fn().catch((err) => console.error(`cleanup failed: ${(err as Error).message}`));
  }
}

/**
 * The load benches' database: a throwaway one, migrated and seeded with the showcase project (bench/seed.ts), dropped at
 * clean-up unless `keep` (then its address is printed). `seedMs`: how long seeding took.
 */
export async function seededBenchDb(opts: { keep?: boolean } = {}): Promise<{ db: BenchDb; seeded: Seeded; seedMs: number }> {
  const db = await createBenchDb();
  onCleanup(async () => {
    if (opts.keep) console.log(`kept database ${db.url}`);
    else await db.drop();
  });
  console.log(`database ${db.name}: migrating and seeding…`);
  const handle = await openDb({ databaseUrl: db.url, poolSize: 2 });
  await migrate(handle);
  await handle.close();
  const t0 = performance.now();
  const seeded = await seed(db.url, { jwtSecret: BENCH_JWT_SECRET });
  return { db, seeded, seedMs: performance.now() - t0 };
}

/** A bench script's top level: runs `main`, prints a failure's message, always cleans up, exits 0 or 1. */
export async function runMain(main: () => Promise<void>): Promise<never> {
  cleanupOnSignals();
  let failed = false;
  try {
    await main();
  } catch (err) {
    failed = true;
    console.error(err instanceof Error ? err.message : err);
  } finally {
    await runCleanups();
  }
  process.exit(failed ? 1 : 0);
}

/** Ctrl-C still stops the servers and drops the benchmark database. */
export function cleanupOnSignals() {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping servers and dropping the benchmark database…`);
      void runCleanups().finally(() => process.exit(130));
    });
  }
}

/**
 * The API benches' set-up: a fresh database (dropped at clean-up), the service on it (`env`: more settings) with
 * `admin` as its administrator, that administrator's token, and one new project; `importUrl` is its import route.
 */
export async function serviceWithProject(
  admin: { username: string; password: string },
  project: { name: string; namespace: string },
  env: Record<string, string> = {},
) {
  const db = await createBenchDb();
  onCleanup(db.drop);
  const service = await startService({
    DATABASE_URL: db.url,
    ADMIN_EMAIL: admin.username,
    ADMIN_PASSWORD: admin.password,
    INVENTORY_SYNC_MINUTES: '0',
    ...env,
  });
  onCleanup(service.stop);
  const login = await fetch(`${service.base}/users/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(admin) });
  const auth = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
  const qs = new URLSearchParams(project);
  const created = (await (await fetch(`${service.base}/projects?${qs}`, { method: 'POST', headers: auth })).json()) as { _id: string };
  const importUrl = (q = '') => `${service.base}/projects/${created._id}/inventory/import${q}`;
  return { db, service, pid: service.process.pid!, auth, project: created, importUrl };
}

/** Runs `fn` over `items`, at most `limit` at once. */
export async function pool<T>(items: T[], limit: number, fn: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

/** The value at quantile `q` (0–1) of `xs`, by nearest rank; NaN for none. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

/** Reads a text/event-stream response, handing `onBlock` each event block (the lines before a blank line) as it arrives. */
export function readSseBlocks(res: IncomingMessage, onBlock: (block: string) => void): void {
  let buf = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      onBlock(block);
    }
  });
}
