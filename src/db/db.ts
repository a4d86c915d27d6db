import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGliteDialect } from './pglite-dialect.ts';
import type { Database } from './schema.ts';

export type Engine = 'postgres' | 'pglite';

/** The one storage handle the service uses: a Kysely query builder over either engine, plus a health check. */
export interface Db {
  readonly engine: Engine;
  readonly kysely: Kysely<Database>;
  /** Runs a multi-statement script (migrations). */
  exec(script: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDbOptions {
  databaseUrl?: string | undefined;
  /** PGlite directory; undefined with no databaseUrl means in memory (tests). */
  dataDir?: string | undefined;
  /** Milliseconds to wait for a pooled connection or a statement before failing with 503. */
  timeoutMs?: number;
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
    query_timeout: Math.max(timeout, 10_000),
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  // An idle client losing its server (restart, failover) must not crash the process.
  pool.on('error', (err) => opts.onPoolError?.(err));
  // pg-pool listens for errors only on idle clients. A server lost while a client is checked out makes that
  // client emit 'error' with no listener, which would crash the process; its query fails on its own (→ 503)
  // and the pool discards the broken client on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
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
    close: () => kysely.destroy(),
  };
}

async function openPGlite(dataDir: string | undefined): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  let dir: string | undefined;
  if (dataDir) {
    dir = join(dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
  }
  // pg_trgm backs the case-insensitive substring search on project names, as on the server.
  const pglite = await PGlite.create({ ...(dir ? { dataDir: dir } : {}), extensions: { pg_trgm } });
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    engine: 'pglite',
    kysely,
    async exec(script) {
      // Through Kysely's connection so a script never interleaves with a transaction in flight.
      await kysely.connection().execute(async () => {
        await pglite.exec(script);
      });
    },
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}
