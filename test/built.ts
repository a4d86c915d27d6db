import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDb, type Db } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
// @ts-expect-error -- a plain .mjs script without type declarations
import { distIsStale } from '../scripts/dist-fresh.mjs';
import { freePort, tempDir, TEST_JWT_SECRET, throwawayDatabase } from './helpers.ts';

/**
 * The server as `npm start` runs it (what ships is what is tested): `node <npm start's flags> scripts/start.mjs`,
 * which loads dist/main.js with plain node, built by `npm run build` (esbuild) once per test process when the
 * sources are newer. A case for another lazily loaded dependency starts a node with the settings it needs:
 *
 *   const node = await startBuilt({ env: { DATABASE_URL: shared.url, MEDIA_STORE: 's3', S3_ENDPOINT: ... } });
 *   const res = await fetch(`${node.url}/media`, ...);
 *   await node.stop();
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

let building: Promise<void> | undefined;
/** Builds dist/ when it is missing or stale, once per test process (nodes started together share it). */
export function ensureBuilt(): Promise<void> {
  building ??= (async () => {
    if (!(distIsStale(ROOT) as boolean)) return;
    const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
  })();
  return building;
}

export interface BuiltNode {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote so far (its log lines, JSON). */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Waits until the output matches (fails, with the output, after `limitMs` or when the process exits first). */
  waitForOutput(pattern: RegExp, limitMs?: number): Promise<void>;
  /** SIGTERM, then the exit (SIGKILL if it has not exited after `limitMs`). */
  stop(limitMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Settings every built node gets unless `env` says otherwise: loopback listening on a free port, fixed secrets,
 * a cheap argon2id, no demo, no background feed pulls, its own DATA_DIR, and outbound connections to loopback
 * allowed (the feed, SMTP and webhook servers the tests start are on 127.0.0.1).
 */
export function builtEnv(port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    // The tests talk to the API at 127.0.0.1; the buyer's pages are then on the other loopback name.
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    PAGES_URL: `http://localhost:${port}`,
    JWT_SECRET: TEST_JWT_SECRET,
    SECRET_KEY: SHARED_SECRET_KEY,
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    SEED_DEMO: 'false',
    INVENTORY_SYNC_MINUTES: '0',
    LOG_LEVEL: 'info',
    DATA_DIR: tempDir('showsuite-built-'),
    ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  };
}

/** One SECRET_KEY for every node of a test process: nodes on one database must read each other's sealed secrets. */
export const SHARED_SECRET_KEY = randomBytes(32).toString('hex');

/** The V8 flags of `npm start` (package.json), so a built node runs as it does. */
const START_FLAGS: string[] =
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.match(/--[a-z-]+=\S+/g) ?? [];

/** Starts one built node and waits until `/ready` answers 200 (or fails with its output if it exits first). */
export async function startBuilt(opts: { env?: Record<string, string>; port?: number } = {}): Promise<BuiltNode> {
  await ensureBuilt();
  const port = opts.port ?? (await freePort());
  const child = spawn(process.execPath, [...START_FLAGS, 'scripts/start.mjs'], {
    cwd: ROOT,
    env: { ...builtEnv(port), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += String(d);
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      gone = true;
      for (const l of [...listeners]) l();
      resolve({ code, signal });
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const waitForOutput = (pattern: RegExp, limitMs = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no ${pattern} in the output within ${limitMs} ms:\n${out}`)), limitMs);
      const finish = (err?: Error) => {
        clearTimeout(timer);
        listeners.delete(check);
        if (err) reject(err);
        else resolve();
      };
      const check = () => {
        if (pattern.test(out)) finish();
        else if (gone) finish(new Error(`the node exited before ${pattern}:\n${out}`));
      };
      listeners.add(check);
      check();
    });
  // However long a start takes on a busy machine: until /ready answers, or the process exits (a bound of 60 s).
  const deadline = Date.now() + 60_000;
  while (!gone && Date.now() < deadline) {
    const status = await fetch(`${url}/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (gone || Date.now() >= deadline) {
    child.kill('SIGKILL');
    throw new Error(`the built server did not become ready:\n${out}`);
  }
  return {
    url,
    port,
    child,
    output: () => out,
    exited,
    waitForOutput,
    async stop(limitMs = 30_000) {
      if (!gone) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

export interface SharedPostgres {
  url: string;
  /** The test's own handle on the same database (factories, checks). */
  db: Db;
  drop(): Promise<void>;
}

/**
 * A throwaway PostgreSQL database, migrated, for several built nodes at once (whatever TEST_DB says: the embedded
 * engine is one process's).
 */
export async function sharedPostgres(): Promise<SharedPostgres> {
  const created = await throwawayDatabase('showsuite_b');
  const db = await openDb({ databaseUrl: created.url, poolSize: 4 });
  await migrate(db);
  return {
    url: created.url,
    db,
    async drop() {
      await db.close();
      await created.drop();
    },
  };
}
