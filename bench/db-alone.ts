/**
 * The database's own ceiling for a scenario: the scenario's statement sent straight from this process, by as many
 * concurrent callers as the HTTP load has connections, over a pool as large as the servers' (10), with no HTTP server,
 * no JSON and no access check in between. No server can answer that scenario faster or with a lower p99 than this on
 * the same machine, so it tells a server's cost apart from the database's.
 */
import pg from 'pg';

export interface Statement {
  text: string;
  values: unknown[];
}

/** Connections the statement is sent over: the servers' pool size. */
export const DB_ALONE_POOL = 10;

export interface DbAloneResult {
  perSec: number;
  latencyMs: { p50: number; p99: number };
  statements: number;
}

export async function dbAlone(
  databaseUrl: string,
  statement: Statement,
  opts: { callers: number; durationSec: number; warmupSec: number },
): Promise<DbAloneResult> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: DB_ALONE_POOL });
  pool.on('error', () => {});
  const query = { name: 'bench-db-alone', ...statement };
  try {
    const run = async (seconds: number) => {
      const latencies: number[] = [];
      const until = performance.now() + seconds * 1000;
      const caller = async () => {
        while (performance.now() < until) {
          const t = performance.now();
          await pool.query(query);
          latencies.push(performance.now() - t);
        }
      };
      const started = performance.now();
      await Promise.all(Array.from({ length: opts.callers }, caller));
      return { latencies, elapsedSec: (performance.now() - started) / 1000 };
    };
    await run(opts.warmupSec);
    const { latencies, elapsedSec } = await run(opts.durationSec);
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? NaN;
    return { perSec: latencies.length / elapsedSec, latencyMs: { p50: at(0.5), p99: at(0.99) }, statements: latencies.length };
  } finally {
    await pool.end();
  }
}
