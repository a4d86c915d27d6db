/**
 * `http_request_duration_seconds`, kept by hand rather than as a prom-client Histogram: prom-client builds and hashes
 * the label set at every observation (about a microsecond on this machine, measured in docs/performance.md, "The map");
 * here an answer costs three Map lookups and a few additions, and the text is written only when scraped.
 */

/** Seconds; the unit read takes about a millisecond, a bulk import seconds. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface Series {
  /** Per bucket, not cumulative; above the last bound only `count` counts it (+Inf). */
  counts: number[];
  sum: number;
  count: number;
}

const NAME = 'http_request_duration_seconds';
const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export class DurationHistogram {
  /** route pattern → method → status code → series. */
  readonly #series = new Map<string, Map<string, Map<number, Series>>>();

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.#series.get(route);
    if (byMethod === undefined) this.#series.set(route, (byMethod = new Map<string, Map<number, Series>>()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map<number, Series>()));
    let s = byStatus.get(status);
    if (s === undefined) byStatus.set(status, (s = { counts: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < DURATION_BUCKETS.length; i++) {
      if (seconds <= (DURATION_BUCKETS[i] ?? Infinity)) {
        s.counts[i] = (s.counts[i] ?? 0) + 1;
        break;
      }
    }
    s.sum += seconds;
    s.count++;
  }

  /** Prometheus text exposition of every series: cumulative buckets, sum and count. */
  text(): string {
    const out = [`# HELP ${NAME} Time from a request's arrival to its answer, by method, route pattern and status code`, `# TYPE ${NAME} histogram`];
    for (const [route, byMethod] of this.#series) {
      for (const [method, byStatus] of byMethod) {
        for (const [status, s] of byStatus) {
          const labels = `method="${escape(method)}",route="${escape(route)}",status_code="${status}"`;
          let cumulative = 0;
          DURATION_BUCKETS.forEach((le, i) => {
            cumulative += s.counts[i] ?? 0;
            out.push(`${NAME}_bucket{${labels},le="${le}"} ${cumulative}`);
          });
          out.push(`${NAME}_bucket{${labels},le="+Inf"} ${s.count}`);
          out.push(`${NAME}_sum{${labels}} ${s.sum}`);
          out.push(`${NAME}_count{${labels}} ${s.count}`);
        }
      }
    }
    return `${out.join('\n')}\n`;
  }
}
