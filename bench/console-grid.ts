/**
 * npx tsx bench/console-grid.ts [--units 5000] [--runs 5]
 *
 * The console's units tab with a 5,000-unit project, in Chromium against the built service on PostgreSQL (as
 * `npm start` runs it): how long after navigation the grid's first rows are in the document (the grid's own
 * `units-grid:first-rows` performance mark), and, typing a name filter key by key, how long from each key's input
 * event to the next painted frame with the filtered rows. The bar: first rows within 1 s; filtering stays
 * responsive (every key well under 100 ms).
 */
import { parseArgs } from 'node:util';
import { launchBrowser } from '../test/support/browser.ts';
import { cleanupOnSignals, fmt, machine, median, runCleanups, serviceWithProject, table, writeResults } from './harness.ts';

const { values } = parseArgs({ options: { units: { type: 'string', default: '5000' }, runs: { type: 'string', default: '5' } } });
const UNITS = Number(values.units);
const RUNS = Number(values.runs);
const ADMIN = { username: 'bench-console@example.com', password: 'bench-password-123' };
const FILTER = 'U-049';

cleanupOnSignals();
try {
  const { service, auth, project, importUrl } = await serviceWithProject(ADMIN, { name: 'Bench Tower', namespace: 'bench-tower' });
  const rows = Array.from(
    { length: UNITS },
    (_, i) => `U-${String(i).padStart(5, '0')},Level ${Math.floor(i / 100) + 1},${250_000 + i},available,2,1,${600 + (i % 300)}`,
  );
  const csv = `name,floor,price,availability,bedrooms,bathrooms,squareFeet\n${rows.join('\n')}\n`;
  const imported = await fetch(importUrl(), { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body: csv });
  if (!imported.ok) throw new Error(`import: ${imported.status} ${await imported.text()}`);

  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const login = await context.request.post(`${service.base}/users/login`, { data: ADMIN });
  if (!login.ok()) throw new Error(`login: ${login.status()}`);
  const page = await context.newPage();
  const url = `${service.base}/admin/projects/${project._id}/units`;

  const firstRows: number[] = [];
  /** Per load: when the script ran and when each call the units tab waits for had answered (ms after navigation). */
  const steps: Record<string, number>[] = [];
  const keys: number[][] = [];
  for (let run = 0; run < RUNS; run++) {
    await page.goto(url);
    await page.getByLabel('Price of U-00000').waitFor();
    firstRows.push(await page.evaluate(() => performance.getEntriesByName('units-grid:first-rows')[0]!.startTime));
    steps.push(
      await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        const out: Record<string, number> = { html: nav.responseEnd, script: nav.domContentLoadedEventStart };
        for (const e of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
          const path = new URL(e.name).pathname.replace(/[0-9a-f]{24}/g, ':id');
          if (/^\/(users\/me|projects\/:id|floors|units)$/.test(path) && !(path in out)) out[path] = e.responseEnd;
        }
        return out;
      }),
    );
    // From each key's input event to the frame after the grid changed.
    await page.evaluate(() => {
      const w = window as unknown as { lat: number[] };
      w.lat = [];
      const input = document.querySelector<HTMLInputElement>('input[type=search]')!;
      input.addEventListener('input', (e) => {
        const t0 = e.timeStamp;
        requestAnimationFrame(() => setTimeout(() => w.lat.push(performance.now() - t0), 0));
      });
    });
    await page.getByLabel('Name contains').pressSequentially(FILTER, { delay: 150 });
    await page.getByLabel('Price of U-04900').waitFor();
    keys.push(await page.evaluate(() => (window as unknown as { lat: number[] }).lat));
  }
  await browser.close();

  const perKey = keys.flat();
  console.log(`units tab of a ${UNITS}-unit project, ${RUNS} loads; filter typed: "${FILTER}"`);
  console.log(
    table(
      ['measure', 'median ms', 'max ms'],
      [
        ['first rows after navigation', fmt(median(firstRows)), fmt(Math.max(...firstRows))],
        ['key → filtered frame', fmt(median(perKey), 1), fmt(Math.max(...perKey), 1)],
      ],
    ),
  );
  const names = [...new Set(steps.flatMap((s) => Object.keys(s)))];
  console.log(
    table(
      ['step (median of loads)', 'ms after navigation'],
      names.map((n) => [n, fmt(median(steps.map((s) => s[n] ?? NaN)))]),
    ),
  );
  console.log(writeResults('console-grid', { machine: machine(), units: UNITS, runs: RUNS, firstRows, keys, steps }));
} finally {
  await runCleanups();
}
