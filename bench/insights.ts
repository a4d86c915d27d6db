/**
 * Insights benchmarks on PostgreSQL (docs/insights.md#measured):
 *
 *   npx tsx bench/insights.ts read [--events 1000000] [--units 500] [--repeat 60]
 *     GET /projects/{id}/insights over 90 days of a project with --events raw events (and their daily totals) and
 *     3,000 leads: median and p90 latency, measured one request at a time after a warm-up. Target: median ≤ 50 ms.
 *
 *   npx tsx bench/insights.ts ingest [--duration 10] [--rounds 3] [--connections 50]
 *     POST /public/events (text/plain beacons, as sendBeacon sends them) into PostgreSQL: beacons per second through
 *     the service against bench/bare-events.ts (node:http + pg running the same statement) in the same run, rounds
 *     alternating between the two. Target: the service ≥ 0.8 of the bare server.
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { runMain, cpuMs, fmt, machine, median, onCleanup, pinSelfToLoadCore, serviceWithProject, startNode, table, writeResults } from './harness.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    events: { type: 'string', default: '1000000' },
    units: { type: 'string', default: '500' },
    repeat: { type: 'string', default: '60' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
  },
});
const ADMIN = { username: 'bench-insights@example.com', password: 'bench-password-123' };
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function seedUnits(client: pg.Client, projectId: string, n: number): Promise<string[]> {
  const r = await client.query<{ id: string }>(
    `insert into units (id, project_id, name, position, data)
     select substr(md5(random()::text || g::text), 1, 24), $1, 'U-' || lpad(g::text, 4, '0'), g, '{}'::jsonb from generate_series(1, $2::int) g
     returning id`,
    [projectId, n],
  );
  return r.rows.map((row) => row.id);
}

async function read() {
  const events = Number(values.events);
  const repeat = Number(values.repeat);
  const { db, service, auth, project } = await serviceWithProject(ADMIN, { name: 'Bench Insights', namespace: 'bench-insights' });
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  onCleanup(() => client.end());
  const units = await seedUnits(client, project._id, Number(values.units));
  const t0 = performance.now();
  // Raw events over 90 days: a few thousand visitors a day, a third of the events unit views.
  await client.query(
    `insert into insight_events (project_id, at, type, unit_id, utm_source, visitor)
     select $1, now() - (g % 90) * interval '1 day' - (g % 86399) * interval '1 second',
       (array['page_view','unit_view','unit_view','plan_view','list_view','filter'])[1 + g % 6],
       case when g % 6 in (1, 2) then ($2::text[])[1 + (g / 7) % array_length($2::text[], 1)] end,
       (array['direct','newsletter','search.example','instagram.com','facebook.com'])[1 + (g / 13) % 5],
       decode(substr(md5(((g / 3) % 4000)::text || '-' || (g % 90)::text), 1, 32), 'hex')
     from generate_series(1, $3::int) g`,
    [project._id, units, events],
  );
  // The daily totals the ingest statement keeps, made from those events at once.
  await client.query(
    `insert into insight_daily (project_id, day, visitors, unit_viewers, page_views, unit_views, plan_views, list_views, filters)
     select project_id, (at at time zone 'UTC')::date, count(distinct visitor), count(distinct visitor) filter (where type = 'unit_view'),
       count(*) filter (where type = 'page_view'), count(*) filter (where type = 'unit_view'), count(*) filter (where type = 'plan_view'),
       count(*) filter (where type = 'list_view'), count(*) filter (where type = 'filter')
     from insight_events where project_id = $1 group by 1, 2`,
    [project._id],
  );
  await client.query(
    `insert into insight_daily_units (project_id, day, unit_id, views)
     select project_id, (at at time zone 'UTC')::date, unit_id, count(*) from insight_events
     where project_id = $1 and type = 'unit_view' group by 1, 2, 3`,
    [project._id],
  );
  await client.query(
    `insert into insight_daily_sources (project_id, day, source, visitors)
     select project_id, (at at time zone 'UTC')::date, utm_source, count(distinct visitor) from insight_events
     where project_id = $1 group by 1, 2, 3`,
    [project._id],
  );
  await client.query(
    `insert into leads (id, project_id, data, created_at)
     select substr(md5('lead' || g::text), 1, 24), $1,
       jsonb_build_object('firstName', 'A', 'lastName', 'B', 'email', 'buyer' || (g % 2000) || '@example.com',
         'source', (array['presentation','presentation','hold','waitlist','instagram'])[1 + g % 5], 'unit', ($2::text[])[1 + g % 100]),
       now() - (g % 90) * interval '1 day'
     from generate_series(1, 3000) g`,
    [project._id, units],
  );
  await client.query('analyze');
  const seedMs = performance.now() - t0;

  const to = iso(Date.now());
  const from = iso(Date.now() - 89 * DAY);
  const url = `${service.base}/projects/${project._id}/insights?from=${from}&to=${to}`;
  const once = async (accept = 'application/json') => {
    const s = performance.now();
    const res = await fetch(url, { headers: { ...auth, accept } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`insights: ${res.status} ${body.slice(0, 200)}`);
    return { ms: performance.now() - s, bytes: body.length, body };
  };
  for (let i = 0; i < 10; i++) await once();
  const json: number[] = [];
  const csv: number[] = [];
  let sample = '';
  for (let i = 0; i < repeat; i++) {
    const r = await once();
    json.push(r.ms);
    sample = r.body;
    csv.push((await once('text/csv')).ms);
  }
  const totals = (JSON.parse(sample) as { totals: Record<string, number> }).totals;
  const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;
  console.log(
    `seeded ${events.toLocaleString('en-US')} raw events, their daily totals and 3,000 leads in ${fmt(seedMs / 1000, 1)} s; totals over 90 days: ${JSON.stringify(totals)}`,
  );
  console.log(
    table(
      ['GET /projects/{id}/insights, 90 days', 'median ms', 'p90 ms', 'bytes'],
      [
        ['JSON', fmt(median(json), 1), fmt(p90(json), 1), sample.length],
        ['Accept: text/csv', fmt(median(csv), 1), fmt(p90(csv), 1), '-'],
      ],
    ),
  );
  writeResults('insights-read', { machine: machine(), events, repeat, medianMs: median(json), p90Ms: p90(json), csvMedianMs: median(csv) });
}

async function ingest() {
  const duration = Number(values.duration);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  pinSelfToLoadCore();
  // One address sends everything here: the per-address limit is set out of reach.
  const {
    db,
    service: svc,
    project,
  } = await serviceWithProject(ADMIN, { name: 'Bench Beacons', namespace: 'bench-beacons' }, { PUBLIC_EVENTS_PER_MINUTE: '1000000' });
  const bare = await startNode('bare events', 'bench/bare-events.ts', { DATABASE_URL: db.url, HOST: '127.0.0.1' });
  onCleanup(bare.stop);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  onCleanup(() => client.end());
  const units = await seedUnits(client, project._id, 50);
  const types = ['page_view', 'unit_view', 'unit_view', 'plan_view', 'list_view', 'filter', 'share', 'gallery'];
  const bodies = Array.from({ length: 400 }, (_, i) => {
    const type = types[i % types.length]!;
    return JSON.stringify({
      namespace: 'bench-beacons',
      type,
      ...(type === 'unit_view' || type === 'share' ? { unit: units[i % units.length] } : {}),
      path: '/p/bench-beacons',
    });
  });
  const agents = Array.from(
    { length: 300 },
    (_, i) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.${i}.0 Safari/537.36`,
  );

  const run = async (base: string, seconds: number) => {
    let i = 0;
    const pid = base === svc.base ? svc.process.pid : bare.process.pid;
    const cpu0 = cpuMs(pid) ?? NaN;
    const rows0 = Number((await client.query<{ n: string }>('select count(*) as n from insight_events')).rows[0]!.n);
    const r = await autocannon({
      url: `${base}/public/events`,
      connections,
      duration: seconds,
      timeout: 10,
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => {
            const n = i++;
            return {
              ...req,
              body: bodies[n % bodies.length],
              headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': agents[n % agents.length]! },
            };
          },
        },
      ],
    });
    const rows = Number((await client.query<{ n: string }>('select count(*) as n from insight_events')).rows[0]!.n) - rows0;
    const ok = r['2xx'];
    const cpuUs = (((cpuMs(pid) ?? NaN) - cpu0) * 1000) / Math.max(1, r.requests.total);
    return {
      cpuUs,
      perSec: (r.requests.average * ok) / Math.max(1, r.requests.total),
      ok,
      non2xx: r.requests.total - ok,
      rows,
      p50: r.latency.p50,
      p99: r.latency.p99,
    };
  };
  await run(svc.base, 3);
  await run(bare.base, 3);
  const throughService: Awaited<ReturnType<typeof run>>[] = [];
  const baseline: Awaited<ReturnType<typeof run>>[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternating order, so drift (autovacuum, a neighbour on the machine) hits both alike.
    if (round % 2 === 0) {
      throughService.push(await run(svc.base, duration));
      baseline.push(await run(bare.base, duration));
    } else {
      baseline.push(await run(bare.base, duration));
      throughService.push(await run(svc.base, duration));
    }
  }
  const s = median(throughService.map((r) => r.perSec));
  const b = median(baseline.map((r) => r.perSec));
  console.log(
    table(
      ['POST /public/events', 'beacons/s (median)', 'server CPU µs per beacon', 'p50 ms', 'p99 ms', 'rows written', 'non-2xx'],
      [
        [
          'service',
          fmt(s),
          fmt(median(throughService.map((r) => r.cpuUs))),
          fmt(median(throughService.map((r) => r.p50)), 1),
          fmt(median(throughService.map((r) => r.p99)), 1),
          throughService.reduce((x, r) => x + r.rows, 0),
          throughService.reduce((x, r) => x + r.non2xx, 0),
        ],
        [
          'bare node:http + pg',
          fmt(b),
          fmt(median(baseline.map((r) => r.cpuUs))),
          fmt(median(baseline.map((r) => r.p50)), 1),
          fmt(median(baseline.map((r) => r.p99)), 1),
          baseline.reduce((x, r) => x + r.rows, 0),
          baseline.reduce((x, r) => x + r.non2xx, 0),
        ],
      ],
    ),
  );
  console.log(
    `service / bare = ${fmt(s / b, 2)} by beacons per second (target ≥ 0.80); bare / service by server CPU per beacon = ${fmt(median(baseline.map((r) => r.cpuUs)) / median(throughService.map((r) => r.cpuUs)), 2)}`,
  );
  writeResults('insights-ingest', { machine: machine(), duration, rounds, connections, service: throughService, baseline, ratio: s / b });
}

await runMain(() => (positionals[0] === 'ingest' ? ingest() : read()));
