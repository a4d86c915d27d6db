import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { existsSync, mkdirSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { PGliteDialect } from './pglite-dialect.ts';
import { PG_VERSION, unpackDataDir } from './pglite-files.ts';
import { namingPool, runsOnPool } from './prepared.ts';
import { watchStatements } from './statement-watch.ts';
import type { Database } from './schema.ts';

export type Engine = 'postgres' | 'pglite';

/** The one storage handle the service uses: a Kysely query builder over either engine, plus a health check. */
export interface Db {
  readonly engine: Engine;
  readonly kysely: Kysely<Database>;
  /** Runs a multi-statement script (migrations). */
  exec(script: string): Promise<void>;
  ping(): Promise<void>;
  /** The connections this process holds to the database now (for GET /metrics): open, idle, and callers waiting for one. */
  connections(): ConnectionCounts;
  /**
   * LISTENs on a channel: `onPayload` gets each NOTIFY once it is committed (from any node on PostgreSQL; from this
   * process on PGlite). On PostgreSQL a dedicated connection is kept, re-established after it is lost; `onResume`
   * runs after each re-LISTEN, since notifications sent meanwhile are gone. Returns the way to stop.
   */
  listen(channel: string, onPayload: (payload: string) => void, onResume?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface ConnectionCounts {
  total: number;
  idle: number;
  waiting: number;
}

export interface OpenDbOptions {
  databaseUrl?: string | undefined;
  /** PGlite directory; undefined with no databaseUrl means in memory (tests). */
  dataDir?: string | undefined;
  /** Milliseconds to wait for a pooled connection before failing with 503. */
  timeoutMs?: number;
  /** Milliseconds one statement may run before its connection is cut (503); at least `timeoutMs`, default 10 s. */
  statementTimeoutMs?: number;
  poolSize?: number;
  onPoolError?: (err: Error) => void;
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts) : openPGlite(opts.dataDir);
}

function openPostgres(url: string, opts: OpenDbOptions): Db {
  const timeout = opts.timeoutMs ?? 3000;
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    // Fail fast while the database is unreachable; the pool replaces broken clients, so it recovers by itself.
    connectionTimeoutMillis: timeout,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    // No JIT compilation on the service's sessions: its statements are short, and a planner estimate above
    // jit_above_cost (lateral set-returning functions guess 100 and 1,000 rows) compiled a statement that reads no
    // rows for ~0.9 s of CPU on every run (docs/performance.md, "JIT off").
    options: '-c jit=off',
  });
  // An idle client losing its server (restart, failover) must not crash the process.
  pool.on('error', (err) => opts.onPoolError?.(err));
  // pg-pool listens for errors only on idle clients. A server lost while a client is checked out makes that
  // client emit 'error' with no listener, which would crash the process; its query fails on its own (→ 503)
  // and the pool discards the broken client on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  // A statement that runs too long, or a database that stops answering mid-statement, fails with 503 (not pg's
  // query_timeout: see statement-watch.ts).
  const stopWatch = watchStatements(pool, Math.max(timeout, opts.statementTimeoutMs ?? 10_000));
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: namingPool(pool) }) });
  runsOnPool(kysely, pool);
  return {
    engine: 'postgres',
    kysely,
    async exec(script) {
      const client = await pool.connect();
      try {
        await client.query(script);
      } finally {
        client.release();
      }
    },
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    connections: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: (channel, onPayload, onResume) => listenPostgres(url, channel, onPayload, onResume, opts.onPoolError),
    close: async () => {
      stopWatch();
      await kysely.destroy();
    },
  };
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

async function listenPostgres(url: string, channel: string, onPayload: (p: string) => void, onResume: (() => void) | undefined, onError?: (e: Error) => void) {
  if (!CHANNEL.test(channel)) throw new Error(`bad channel name ${channel}`);
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (resumed: boolean): Promise<void> => {
    const c = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: 3000 });
    c.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) onPayload(n.payload);
    });
    const lost = (err?: Error) => {
      if (err) onError?.(err);
      if (client !== c || stopped) return;
      client = undefined;
      c.end().catch(() => {});
      retry = setTimeout(() => void connect(true), 1000);
      retry.unref();
    };
    c.on('error', lost);
    c.on('end', () => {
      lost();
    });
    client = c;
    try {
      await c.connect();
      await c.query(`listen ${channel}`);
      if (resumed) onResume?.();
    } catch (err) {
      // Unreachable now: keep trying; the first successful LISTEN counts as a resume.
      lost(err as Error);
    }
  };
  await connect(false);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

/**
 * Written by `npm run build` beside the built server (src/cli/pglite-template.ts): a created and migrated embedded
 * database. Absent when running from source, where a new directory is created by initdb as before.
 */
const TEMPLATE = fileURLToPath(new URL('./pglite-template.tar', import.meta.url));

/**
 * V8 moves a WebAssembly function to its optimising compiler once it has run for this "budget" (roughly bytes of
 * code executed; V8's default is 1,800,000). PostgreSQL's boot and first queries ran enough of its code to send
 * hundreds of large functions to TurboFan at every start: ~0.35 s of CPU, most of a start on a migrated directory,
 * for code that mostly runs once. A hundred times the default leaves that code to the baseline compiler; what a
 * running service executes over and over is still optimised, somewhat later (docs/performance.md, "The map").
 */
const PGLITE_TIERING_BUDGET = 180_000_000;

/**
 * PostgreSQL's shared buffers inside PGlite. Its default, 128 MB, is set up (and its memory touched) at every start,
 * ~0.1 s of CPU in the WebAssembly; an embedded database of this service's size is served from far less, and pages
 * not in it are read from the operating system's cache.
 */
const PGLITE_SHARED_BUFFERS = '32MB';

export interface OpenPGliteOptions {
  /** Tarball a new directory is created from (default: the build's template, when there is one). */
  template?: string;
}

/** The embedded engine, plus a tarball of its data directory (for the build's template). */
export async function openPGlite(
  dataDir: string | undefined,
  opts: OpenPGliteOptions = {},
): Promise<Db & { dumpDataDir(): Promise<Blob>; checkpoint(): Promise<void> }> {
  // Before PGlite's module is instantiated: the budget is given to each function then. Only WebAssembly uses it.
  setFlagsFromString(`--wasm-tiering-budget=${PGLITE_TIERING_BUDGET}`);
  const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')]);
  let dir: string | undefined;
  if (dataDir) {
    dir = join(dataDir, 'pglite');
    const template = opts.template ?? TEMPLATE;
    // A new directory starts from the template when there is one: unpacked with plain file writes, then opened
    // like any existing database (a fraction of initdb, and of loading it through PGlite's file system).
    if (!existsSync(join(dir, PG_VERSION)) && existsSync(template)) unpackDataDir(template, dir);
    mkdirSync(dir, { recursive: true });
  }
  // pg_trgm backs the case-insensitive substring search on project names, as on the server.
  const pglite = await PGlite.create({
    ...(dir ? { dataDir: dir } : {}),
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
  });
  const dialect = new PGliteDialect(pglite);
  const kysely = new Kysely<Database>({ dialect });
  return {
    engine: 'pglite',
    kysely,
    connections: () => dialect.connections(),
    async exec(script) {
      // Through Kysely's connection so a script never interleaves with a transaction in flight.
      await kysely.connection().execute(async () => {
        await pglite.exec(script);
      });
    },
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    async listen(channel, onPayload) {
      // Through Kysely's connection, so the LISTEN cannot land inside (and roll back with) another caller's transaction.
      const stop = await kysely.connection().execute(() => pglite.listen(channel, onPayload));
      return () => (pglite.closed ? Promise.resolve() : kysely.connection().execute(() => stop()));
    },
    close: () => kysely.destroy(),
    dumpDataDir: () => pglite.dumpDataDir('none'),
    // So a copy of the files needs no recovery when opened.
    checkpoint: () =>
      kysely.connection().execute(async () => {
        await pglite.exec('checkpoint');
      }),
  };
}
