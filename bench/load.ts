/** The load generator: autocannon, in this process (which run.ts pins to the load core). */
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec: number;
  /** Which answers count as successful: 2xx (default), or 3xx for revalidations answered 304. */
  expect?: '2xx' | '3xx';
}

export interface LoadResult {
  /** Mean of the per-second samples of 2xx responses. */
  reqPerSec: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSec: number;
  /** Server CPU time per successful answer (filled in by the caller, which knows the server's pid). */
  cpuUsPerRequest?: number;
}

export async function load(opts: LoadOptions): Promise<LoadResult> {
  const r = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    connections: opts.connections,
    duration: opts.durationSec,
    timeout: 10,
  });
  const total = r.requests.total;
  // Throughput of successful answers only: a server that answers errors fast must not look fast.
  const ok = opts.expect === '3xx' ? r['3xx'] : r['2xx'];
  const okShare = total > 0 ? ok / total : 0;
  return {
    reqPerSec: r.requests.average * okShare,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    requests: total,
    ok,
    non2xx: total - ok,
    errors: r.errors,
    timeouts: r.timeouts,
    durationSec: r.duration,
  };
}
