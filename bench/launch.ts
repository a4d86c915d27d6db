/**
 * `npx tsx bench/launch.ts [--buyers 2000] [--realtors 20] [--units 200] [--concurrency 64]`: launch day on two
 * nodes (two built servers, `npm start` alike) sharing one PostgreSQL. Within about a minute:
 * 20 realtors open their allocations, read their bundle with the token, hold one of their units and submit
 * worksheets; the sales team accepts every worksheet at once through both nodes; 2,000 buyers read the public bundle,
 * try to hold a unit, release half of their holds (which offers the unit to its waiting list: priority holds), and
 * join the waiting list of a unit they could not hold. Requests alternate between the nodes.
 *
 * Checked at the end, from the database: no 5xx; each unit's availability changes, in the change log's commit order,
 * chain without a gap (so no unit is held by two at once, priority holds included, nor held once reserved); no unit
 * accepted twice; no rank repeated in a waiting list; no entry offered twice.
 * Reported: p99 (and p50) of the hold request and of the bundle.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cleanupOnSignals, createBenchDb, fmt, machine, onCleanup, pool, quantile, runCleanups, startService, table, writeResults } from './harness.ts';

const { values: args } = parseArgs({
  options: {
    buyers: { type: 'string', default: '2000' },
    realtors: { type: 'string', default: '20' },
    units: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '64' },
  },
});
const BUYERS = Number(args.buyers);
const REALTORS = Number(args.realtors);
const UNITS = Number(args.units);
const CONCURRENCY = Number(args.concurrency);
const PER_REALTOR = 5;
const NAMESPACE = 'bench-launch';
const ADMIN = { username: 'bench-admin@example.com', password: 'bench-admin-password-1' };

/** Generous per-address limits: every simulated person comes from 127.0.0.1. */
const LIMITS = {
  HOLD_REQUESTS_PER_MINUTE: '100000',
  HOLDS_PER_CLIENT: '1000',
  PUBLIC_LEADS_PER_MINUTE: '100000',
  ALLOCATION_OPENS_PER_MINUTE: '100000',
  WORKSHEETS_PER_ALLOCATION: '1000',
};

const latencies: Record<string, number[]> = {};
const statuses: Record<string, Record<number, number>> = {};
let fiveHundreds = 0;

async function call(kind: string, base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  (latencies[kind] ??= []).push(performance.now() - started);
  const s = (statuses[kind] ??= {});
  s[res.status] = (s[res.status] ?? 0) + 1;
  if (res.status >= 500) {
    fiveHundreds++;
    console.error(`${kind}: ${res.status} ${text.slice(0, 300)}`);
  }
  return { status: res.status, json: () => JSON.parse(text) as Record<string, any> };
}

const person = (i: number) => ({ firstName: `Buyer${i}`, lastName: 'Bench', email: `buyer${i}@example.com`, phone: '+1 555 0100' });

async function main() {
  cleanupOnSignals();
  const db = await createBenchDb();
  onCleanup(db.drop);
  const env = { DATABASE_URL: db.url, ADMIN_EMAIL: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, INVENTORY_SYNC_MINUTES: '0', ...LIMITS };
  // The first node migrates; the second starts on the migrated database.
  const a = await startService(env);
  onCleanup(a.stop);
  const b = await startService(env);
  onCleanup(b.stop);
  const nodes = [a.base, b.base];
  const node = (i: number) => nodes[i % 2]!;
  console.log(`two nodes ready: ${a.base}, ${b.base}`);

  const login = await call('setup', a.base, 'POST', '/users/login', ADMIN);
  const auth = { authorization: `Bearer ${login.json().access_token as string}` };
  const p = (await call('setup', a.base, 'POST', `/projects?${new URLSearchParams({ name: 'Launch Bench', namespace: NAMESPACE })}`, undefined, auth)).json();
  const f = (await call('setup', a.base, 'POST', `/floors?${new URLSearchParams({ project: p._id, name: 'Tower' })}`, undefined, auth)).json();
  const units: { id: string; name: string }[] = [];
  await pool(
    Array.from({ length: UNITS }, (_, i) => `T-${String(i + 1).padStart(3, '0')}`),
    8,
    async (name) => {
      const qs = new URLSearchParams({ project: p._id, floor: f._id, name, position: '0' });
      const u = (await call('setup', a.base, 'POST', `/units?${qs}`, { price: 500000 }, auth)).json();
      units.push({ id: u._id, name });
    },
  );
  units.sort((x, y) => x.name.localeCompare(y.name));
  const allocations = Array.from({ length: REALTORS }, (_, r) => ({
    name: `Realtor ${r + 1}`,
    password: `realtor-password-${r + 1}`,
    allocation: units
      .slice(r * PER_REALTOR, (r + 1) * PER_REALTOR)
      .map((u) => u.name)
      .join(', '),
  }));
  const settings = {
    published: true,
    onHoldExperienceEnabled: true,
    onHoldMinsDuration: 30,
    waitlistEnabled: true,
    priorityList: true,
    allocations,
  };
  const patched = await call('setup', a.base, 'PATCH', `/projects/${p._id}`, settings, auth);
  if (patched.status !== 200) throw new Error(`project settings: ${patched.status}`);
  const publicUnits = units.slice(REALTORS * PER_REALTOR);
  console.log(`${units.length} units, ${REALTORS} allocations of ${PER_REALTOR}; ${BUYERS} buyers, ${REALTORS} realtors, concurrency ${CONCURRENCY}`);

  const started = performance.now();
  // Realtors: open, read their bundle, hold one of theirs, submit worksheets (overlapping choices between realtors).
  const worksheets: string[] = [];
  const realtors = pool(
    allocations.map((al, r) => ({ al, r })),
    REALTORS,
    async ({ al, r }) => {
      const open = await call('allocation open', node(r), 'POST', '/public/allocations/open', { namespace: NAMESPACE, password: al.password });
      if (open.status !== 200) return;
      const { token, units: mine } = open.json() as { token: string; units: string[] };
      const h = { 'x-allocation-token': token };
      await call('bundle (realtor)', node(r + 1), 'GET', `/public/projects/${NAMESPACE}`, undefined, h);
      await call('hold', node(r), 'POST', `/public/units/${mine[0]}/hold`, person(100000 + r), h);
      for (let k = 0; k < 5; k++) {
        const choices = [mine[(k + 1) % mine.length]!, units[((r + 1) % REALTORS) * PER_REALTOR + k]!.id];
        const ws = await call('worksheet', node(r + k), 'POST', '/public/worksheets', { buyer: person(200000 + r * 10 + k), choices }, h);
        if (ws.status === 201) worksheets.push(ws.json()._id);
      }
    },
  );

  // Buyers: the bundle, a hold on a public unit; half release (the unit goes to its waiting list first), a refused
  // hold joins that unit's waiting list.
  const buyers = pool(
    Array.from({ length: BUYERS }, (_, i) => i),
    CONCURRENCY,
    async (i) => {
      await call('bundle', node(i), 'GET', `/public/projects/${NAMESPACE}`);
      const unit = publicUnits[Math.floor(Math.random() * publicUnits.length)]!;
      const hold = await call('hold', node(i + 1), 'POST', `/public/units/${unit.id}/hold`, person(i));
      if (hold.status === 200) {
        if (i % 2 === 0) await call('release', node(i), 'DELETE', `/public/holds/${hold.json().holdToken as string}`);
      } else if (hold.status === 409) {
        await call('waitlist', node(i), 'POST', '/public/waitlist', { namespace: NAMESPACE, unit: unit.id, ...person(i) });
      }
    },
  );
  await realtors;
  // The sales team accepts every worksheet at once, through both nodes, every other one on its second choice (another
  // realtor's unit that realtor's own worksheet asks for first): of two acceptances of one unit, one succeeds (409).
  const accepting = pool(worksheets, 16, async (id, k) => {
    const ws = (await call('setup', node(k), 'GET', `/projects/${p._id}/worksheets?options[limit]=1000`, undefined, auth)).json() as unknown as {
      _id: string;
      choices: string[];
    }[];
    const mine = ws.find((w) => w._id === id);
    if (mine) await call('worksheet accept', node(k + 1), 'PATCH', `/worksheets/${id}`, { status: 'accepted', unit: mine.choices[k % 2] }, auth);
  });
  await Promise.all([buyers, accepting]);
  const elapsed = (performance.now() - started) / 1000;

  // The database's word.
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const q = async (sql: string) => (await c.query(sql)).rows;
  // Every change of a unit's availability is in the change log, numbered per project in commit order (`seq`), each
  // with its before and after. Walked in that order, each change must start from where the last one left the unit:
  // a second hold placed while one is in progress (priority holds included), or a hold on a reserved unit, would
  // start from `on_hold` or `reserved` while claiming `available`.
  const changes = (await q(
    `select subject_id as unit, data->'changes'->'availability' as a from events
     where data->'changes' ? 'availability' order by project_id, seq`,
  )) as { unit: string; a: [string, string] }[];
  const last = new Map<string, string>();
  const broken: string[] = [];
  for (const { unit, a } of changes) {
    const prev = last.get(unit);
    if (prev !== undefined && prev !== a[0]) broken.push(`${unit}: ${prev} then ${a[0]} → ${a[1]}`);
    last.set(unit, a[1]);
  }
  const doubleAccepts = await q(`select unit_id, count(*) from worksheets where status = 'accepted' group by unit_id having count(*) > 1`);
  const reservedNotAccepted = await q(
    `select u.id from units u where u.availability = 'reserved' and not exists (select 1 from worksheets w where w.unit_id = u.id and w.status = 'accepted')`,
  );
  const heldWithoutHold = await q(
    `select u.id from units u where u.availability = 'on_hold' and not exists (select 1 from holds h where h.id = u.held_by and h.released_at is null)`,
  );
  const rankRepeats = await q(
    `select data->>'unit' as unit, data->>'rank' as rank, count(*) from leads where data->>'source' = 'waitlist' and data ? 'rank'
     group by 1, 2 having count(*) > 1`,
  );
  const offeredTwice = await q(
    `select h.lead_id, count(*) from holds h join leads l on l.id = h.lead_id
     where l.data->>'source' = 'waitlist' group by h.lead_id having count(*) > 1`,
  );
  const [counts] = await q(
    `select (select count(*) from holds)::int as holds,
            (select count(*) from events where data->'changes' ? 'availability')::int as availability_changes,
            (select count(*) from holds h join leads l on l.id = h.lead_id where l.data->>'source' = 'waitlist')::int as priority_holds,
            (select count(*) from leads where data->>'source' = 'waitlist')::int as waitlist_entries,
            (select count(*) from worksheets where status = 'accepted')::int as accepted,
            (select count(*) from units where availability = 'on_hold')::int as on_hold,
            (select count(*) from units where availability = 'reserved')::int as reserved`,
  );
  await c.end();

  const checks = {
    'no 5xx': fiveHundreds === 0,
    'each unit held or reserved by one at a time (its changes chain in commit order)': broken.length === 0,
    'no unit accepted twice': doubleAccepts.length === 0,
    'every reserved unit has its one accepted worksheet': reservedNotAccepted.length === 0,
    'every unit on hold has its hold': heldWithoutHold.length === 0,
    'no rank repeated in a waiting list': rankRepeats.length === 0,
    'every waiting-list entry offered its unit once at most': offeredTwice.length === 0,
  };
  const rows = Object.entries(latencies)
    .filter(([k]) => k !== 'setup')
    .map(([k, xs]) => [k, xs.length, fmt(quantile(xs, 0.5), 1), fmt(quantile(xs, 0.99), 1), JSON.stringify(statuses[k])]);
  console.log(`\n${elapsed.toFixed(1)} s from the first request to the last\n`);
  console.log(table(['request', 'count', 'p50 ms', 'p99 ms', 'statuses'], rows));
  console.log(`\n${JSON.stringify(counts)}`);
  for (const [name, ok] of Object.entries(checks)) console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}`);
  if (broken.length) console.log(broken.slice(0, 5));
  const file = writeResults('launch', {
    machine: machine(),
    args,
    elapsed,
    latencies: Object.fromEntries(rows.map((r) => [r[0], r.slice(1)])),
    counts,
    checks,
  });
  console.log(`\nresults: ${file}`);
  if (Object.values(checks).some((ok) => !ok)) process.exitCode = 1;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(runCleanups);
