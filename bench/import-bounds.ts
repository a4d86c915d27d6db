/**
 * npx tsx bench/import-bounds.ts [--rows 20000] [--mb 20]
 *
 * The import bounds on PostgreSQL: the service's peak RSS above idle during a dry run of a file at the row bound
 * (20,000 rows by default, padded to about 20 MB) against a project that already holds those 20,000 units (every
 * row an update), the time and the size of the answer; then a file past the row bound (1.3 million short rows),
 * which is refused while it streams in.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cleanupOnSignals, fmt, machine, runCleanups, serviceWithProject, table, writeResults } from './harness.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '20000' }, mb: { type: 'string', default: '20' } } });
const ROWS = Number(values.rows);
const BYTES = Number(values.mb) * 1_000_000;
const ADMIN = { username: 'bench-bounds@example.com', password: 'bench-password-123' };

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/** `rows` units; with `padTo`, each description pads the file to about that many bytes. */
function file(rows: number, round: number, padTo = 0): string {
  const pad = padTo ? Math.max(0, Math.floor(padTo / rows) - 60) : 0;
  const filler = 'Sea view, south facing, corner balcony. '.repeat(Math.ceil(pad / 40)).slice(0, pad);
  const lines = ['name,floor,price,availability,description'];
  for (let i = 0; i < rows; i++) {
    lines.push(`U-${String(i).padStart(6, '0')},Level ${Math.floor(i / 500) + 1},${250_000 + i + round},available,"${round} ${filler}"`);
  }
  return lines.join('\n') + '\n';
}

async function main() {
  cleanupOnSignals();
  const { pid, auth, importUrl } = await serviceWithProject(ADMIN, { name: 'Bounds Tower', namespace: 'bench-bounds' });
  const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body });

  console.log(`creating ${ROWS} units…`);
  const created = await post(importUrl(), file(ROWS, 0));
  if (created.status !== 200) throw new Error(`create: ${created.status} ${await created.text()}`);
  await created.arrayBuffer();

  const big = file(ROWS, 1, BYTES);
  const sizeMb = Buffer.byteLength(big) / 1_000_000;
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rssKiB(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKiB(pid))), 5);
  const t0 = performance.now();
  const dry = await post(importUrl('?dryRun=true'), big);
  const answer = await dry.text();
  const dryMs = performance.now() - t0;
  clearInterval(sampler);
  if (dry.status !== 200) throw new Error(`dry run: ${dry.status} ${answer.slice(0, 300)}`);
  const parsed = JSON.parse(answer) as { summary: { updated: number }; changes: unknown[]; truncated: boolean };
  if (parsed.summary.updated !== ROWS) throw new Error(`dry run: expected ${ROWS} updates, got ${JSON.stringify(parsed.summary)}`);

  // The attack: 1.3 million rows in 19 MB. Refused while it streams in.
  const flood = ['name,price', ...Array.from({ length: 1_300_000 }, (_, i) => `${i},${i}`)].join('\n') + '\n';
  const idle2 = rssKiB(pid);
  let peak2 = idle2;
  const sampler2 = setInterval(() => (peak2 = Math.max(peak2, rssKiB(pid))), 5);
  const t1 = performance.now();
  const refused = await post(importUrl('?dryRun=true'), flood);
  const refusedBody = await refused.text();
  const floodMs = performance.now() - t1;
  clearInterval(sampler2);

  const rows = [
    [
      `dry run, ${ROWS} rows, ${fmt(sizeMb, 1)} MB, every row an update`,
      dry.status,
      fmt(dryMs),
      fmt(idle / 1024),
      fmt((peak - idle) / 1024),
      fmt(answer.length / 1e6, 2),
    ],
    [
      `dry run, 1,300,000 rows, ${fmt(Buffer.byteLength(flood) / 1e6, 1)} MB`,
      refused.status,
      fmt(floodMs),
      fmt(idle2 / 1024),
      fmt((peak2 - idle2) / 1024),
      fmt(refusedBody.length / 1e6, 4),
    ],
  ];
  console.log(`\n${JSON.stringify(machine())}\n`);
  console.log(table(['import', 'status', 'ms', 'idle RSS MiB', 'peak above idle MiB', 'answer MB'], rows));
  console.log(`changes listed: ${parsed.changes.length} (truncated: ${parsed.truncated}); refused: ${refusedBody.slice(0, 160)}`);
  writeResults('import-bounds', {
    rows: ROWS,
    sizeMb,
    dryRun: { ms: dryMs, idleKiB: idle, peakKiB: peak, answerBytes: answer.length },
    flood: { status: refused.status, ms: floodMs, idleKiB: idle2, peakKiB: peak2 },
  });
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(runCleanups);
