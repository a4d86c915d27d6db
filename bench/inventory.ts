/**
 * npm run bench:inventory  — the inventory's targets on PostgreSQL:
 *   dry run of a 5,000-row file ≤ 2 s, applying it ≤ 5 s, bulk PATCH of 500 units ≤ 1 s, CSV export of 5,000 units
 *   ≤ 1 s, and the service's peak RSS during the 5,000-row import.
 * Each figure is the median of --repeat runs (default 3) against the real service (src/main.ts) on a throwaway
 * database; "database alone" is the same data work as one SQL statement from this process, the floor under it.
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { cleanupOnSignals, fmt, machine, median, runCleanups, serviceWithProject, table, writeResults } from './harness.ts';

const { values } = parseArgs({ options: { repeat: { type: 'string', default: '3' }, rows: { type: 'string', default: '5000' } } });
const REPEAT = Number(values.repeat);
const ROWS = Number(values.rows);
const ADMIN = { username: 'bench-inventory@example.com', password: 'bench-password-123' };

const kib = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

function file(round: number): string {
  const lines = ['name,floor,price,availability,bedrooms,squareFeet,description'];
  for (let i = 0; i < ROWS; i++) {
    const price = 250_000 + i * 10 + round;
    lines.push(
      [
        `U-${String(i).padStart(5, '0')}`,
        `Level ${Math.floor(i / 250) + 1}`,
        `"$${price.toLocaleString('en-US')}"`,
        ['available', 'reserved', 'sold'][(i + round) % 3],
        1 + (i % 4),
        45 + (i % 120),
        `"Unit ${i}, ${i % 2 ? 'sea' : 'garden'} view"`,
      ].join(','),
    );
  }
  return lines.join('\r\n');
}

async function main() {
  cleanupOnSignals();
  const { db, service, pid, auth, project, importUrl } = await serviceWithProject(ADMIN, { name: 'Bench Tower', namespace: 'bench-inventory' });
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv', ...headers }, body });

  const timed = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
    const t0 = performance.now();
    const r = await fn();
    return [performance.now() - t0, r];
  };
  const expectOk = async (res: Response, what: string) => {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    return res;
  };

  const rssBefore = kib(pid, 'VmRSS');
  // The first import creates the 5,000 units (and 20 floors); RSS is sampled while it runs.
  let peakDuring = 0;
  const sampler = setInterval(() => (peakDuring = Math.max(peakDuring, kib(pid, 'VmRSS'))), 10);
  const [createMs] = await timed(async () => expectOk(await post(importUrl(), file(0)), 'create import'));
  clearInterval(sampler);

  const dry: number[] = [];
  const apply: number[] = [];
  for (let round = 1; round <= REPEAT; round++) {
    const text = file(round);
    const sampler2 = setInterval(() => (peakDuring = Math.max(peakDuring, kib(pid, 'VmRSS'))), 10);
    const [dryMs, dryRes] = await timed(async () => expectOk(await post(importUrl('?dryRun=true'), text), 'dry run'));
    const answer = await dryRes.json();
    if (answer.summary.updated !== ROWS) throw new Error(`dry run: expected ${ROWS} updates, got ${JSON.stringify(answer.summary)}`);
    const [applyMs] = await timed(async () => expectOk(await post(importUrl(), text, { 'if-match': dryRes.headers.get('etag')! }), 'apply'));
    clearInterval(sampler2);
    dry.push(dryMs);
    apply.push(applyMs);
  }
  const hwm = kib(pid, 'VmHWM');

  const units = (await (await fetch(`${service.base}/units?project=${project._id}`, { headers: auth })).json()) as { _id: string }[];
  const bulk: number[] = [];
  for (let round = 1; round <= REPEAT; round++) {
    const items = units.slice(0, 500).map((u, i) => ({ _id: u._id, price: 500_000 + i + round, availability: round % 2 ? 'reserved' : 'available' }));
    const [ms] = await timed(async () =>
      expectOk(
        await fetch(`${service.base}/units`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(items) }),
        'bulk',
      ),
    );
    bulk.push(ms);
  }
  const exportMs: number[] = [];
  let csvBytes = 0;
  for (let round = 1; round <= REPEAT; round++) {
    const [ms, text] = await timed(async () =>
      (await expectOk(await fetch(`${service.base}/units?project=${project._id}&format=csv`, { headers: auth }), 'export')).text(),
    );
    csvBytes = text.length;
    exportMs.push(ms);
  }

  // The floor under those figures: the same data work as single SQL statements, no HTTP, no planning.
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const [selectMs] = await timed(() =>
    client.query('select id, floor_id, name, position, availability, data, version from units where project_id = $1 order by floor_id, position, id', [
      project._id,
    ]),
  );
  const rows = units.map((u, i) => ({ id: u._id, data: { price: 700_000 + i } }));
  const [updateMs] = await timed(() =>
    client.query(
      `update units u set data = u.data || c.data, version = u.version + 1, updated_at = now()
       from jsonb_to_recordset($1::jsonb) as c(id char(24), data jsonb) where u.id = c.id`,
      [JSON.stringify(rows)],
    ),
  );
  await client.end();

  const target = (ms: number, limit: number) => (ms <= limit ? 'yes' : 'NO');
  const out = [
    ['import: create 5,000 units (first file)', fmt(createMs), '', ''],
    [`import: dry run, ${ROWS} rows all changed`, fmt(median(dry)), '2000', target(median(dry), 2000)],
    [`import: apply, ${ROWS} rows all changed (If-Match)`, fmt(median(apply)), '5000', target(median(apply), 5000)],
    ['PATCH /units, 500 items', fmt(median(bulk)), '1000', target(median(bulk), 1000)],
    [`GET /units?format=csv, ${units.length} units (${Math.round(csvBytes / 1024)} kB)`, fmt(median(exportMs)), '1000', target(median(exportMs), 1000)],
    [`database alone: select ${units.length} units`, fmt(selectMs), '', ''],
    [`database alone: one update of ${units.length} units`, fmt(updateMs), '', ''],
  ];
  console.log(`\nInventory on PostgreSQL, median of ${REPEAT} (ms):\n`);
  console.log(table(['what', 'ms', 'target', 'met'], out));
  console.log(
    `\nservice RSS: ${Math.round(rssBefore / 1024)} MB before the imports, ` +
      `peak ${Math.round(peakDuring / 1024)} MB sampled during them, VmHWM ${Math.round(hwm / 1024)} MB`,
  );
  const file_ = writeResults('inventory', {
    machine: machine(),
    rows: ROWS,
    repeat: REPEAT,
    ms: { create: createMs, dryRun: dry, apply, bulk500: bulk, export: exportMs, dbSelect: selectMs, dbUpdate: updateMs },
    rssKiB: { before: rssBefore, peakDuringImport: peakDuring, hwm },
  });
  console.log(`results: ${file_}`);
}

try {
  await main();
} finally {
  await runCleanups();
}
