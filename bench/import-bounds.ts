/**
 * npx tsx bench/import-bounds.ts [--rows 20000] [--mb 20]
 *
 * The import bounds on PostgreSQL: the service's peak RSS above idle during a dry run of a file at the row bound
 * (20,000 rows by default, padded to about 20 MB) against a project that already holds those 20,000 units (every
 * row an update), the time and the size of the answer; then a file past the row bound (1.3 million short rows),
 * which is refused while it streams in. Then workbooks: the same 20,000 rows 45 columns wide (a full export's
 * width) as CSV and as .xlsx side by side, each on a fresh node (every row a create), so a workbook is seen to cost what its table costs; a sheet 60 columns
 * wide (past the cell bound) and a 390 KB workbook that inflates to 390 MiB, both refused before any parser holds them.
 */
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { toXlsx, XLSX_TYPE } from '../src/modules/inventory/xlsx.ts';
import { zipOf } from '../test/zip.ts';
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

/** `rows` of the units, `width` columns: the five above and short extra columns (reported as unknown, parsed all the same). */
function wideTable(rows: number, width: number, round: number): { columns: string[]; records: Record<string, unknown>[] } {
  const columns = ['name', 'floor', 'price', 'availability', 'description', ...Array.from({ length: width - 5 }, (_, i) => `extra${i + 1}`)];
  const records = Array.from({ length: rows }, (_, i) => {
    const r: Record<string, unknown> = {
      name: `U-${String(i).padStart(6, '0')}`,
      floor: `Level ${Math.floor(i / 500) + 1}`,
      price: 260_000 + i + round,
      availability: 'available',
      description: `round ${round}`,
    };
    for (let c = 5; c < width; c++) r[columns[c]!] = c % 2 ? i % 97 : 'x';
    return r;
  });
  return { columns, records };
}

const csvOf = ({ columns, records }: ReturnType<typeof wideTable>) =>
  [columns.join(','), ...records.map((r) => columns.map((c) => String(r[c])).join(','))].join('\n') + '\n';

async function main() {
  cleanupOnSignals();
  type Service = Awaited<ReturnType<typeof serviceWithProject>>;
  const post = ({ auth, importUrl }: Service, query: string, body: string | Buffer, type = 'text/csv') =>
    fetch(importUrl(query), { method: 'POST', headers: { ...auth, 'content-type': type }, body: typeof body === 'string' ? body : new Uint8Array(body) });
  const service = await serviceWithProject(ADMIN, { name: 'Bounds Tower', namespace: 'bench-bounds' });

  /** One dry run: status, time, idle RSS and the peak above it (sampled every 5 ms), the answer. */
  async function measure(body: string | Buffer, type = 'text/csv', on: Service = service) {
    const { pid } = on;
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssKiB(pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKiB(pid))), 5);
    const t0 = performance.now();
    const res = await post(on, '?dryRun=true', body, type);
    const answer = await res.text();
    const ms = performance.now() - t0;
    clearInterval(sampler);
    return { status: res.status, ms, idle, peak, answer };
  }
  const row = (label: string, m: Awaited<ReturnType<typeof measure>>) => [
    label,
    m.status,
    fmt(m.ms),
    fmt(m.idle / 1024),
    fmt((m.peak - m.idle) / 1024),
    fmt(m.answer.length / 1e6, 4),
  ];
  const summed = (m: Awaited<ReturnType<typeof measure>>, label: string, kind: 'updated' | 'created') => {
    if (m.status !== 200) throw new Error(`${label}: ${m.status} ${m.answer.slice(0, 300)}`);
    const parsed = JSON.parse(m.answer) as { summary: Record<string, number>; changes: unknown[]; truncated: boolean };
    if (parsed.summary[kind] !== ROWS) throw new Error(`${label}: expected ${ROWS} ${kind}, got ${JSON.stringify(parsed.summary)}`);
    return parsed;
  };

  console.log(`creating ${ROWS} units…`);
  const created = await post(service, '', file(ROWS, 0));
  if (created.status !== 200) throw new Error(`create: ${created.status} ${await created.text()}`);
  await created.arrayBuffer();

  const big = file(ROWS, 1, BYTES);
  const sizeMb = Buffer.byteLength(big) / 1_000_000;
  const dry = await measure(big);
  const parsed = summed(dry, 'dry run', 'updated');

  // The attack: 1.3 million rows in 19 MB. Refused while it streams in.
  const flood = ['name,price', ...Array.from({ length: 1_300_000 }, (_, i) => `${i},${i}`)].join('\n') + '\n';
  const refused = await measure(flood);

  // Workbooks beside the same table as CSV, each on a node of its own (a node's heap does not shrink back between runs).
  const full = wideTable(ROWS, 45, 2);
  const fullCsv = csvOf(full);
  const fullXlsx = await toXlsx('Units', full.columns, full.records);
  const fresh = () => serviceWithProject(ADMIN, { name: 'Sheets Tower', namespace: 'bench-sheets' });
  const csv45 = await measure(fullCsv, 'text/csv', await fresh());
  summed(csv45, 'csv 45 columns', 'created');
  const xlsx45 = await measure(fullXlsx, XLSX_TYPE, await fresh());
  summed(xlsx45, 'xlsx 45 columns', 'created');
  const wide = wideTable(ROWS, 60, 3);
  const wideXlsx = await toXlsx('Units', wide.columns, wide.records);
  const xlsx60 = await measure(wideXlsx, XLSX_TYPE);
  const bomb = zipOf('xl/worksheets/sheet1.xml', deflateRawSync(Buffer.alloc(390 * 1024 * 1024)), 390 * 1024 * 1024);
  const xlsxBomb = await measure(bomb, XLSX_TYPE);

  const mb = (b: string | Buffer) => fmt(Buffer.byteLength(b) / 1e6, 2);
  const rows = [
    row(`dry run, ${ROWS} rows, ${fmt(sizeMb, 1)} MB CSV, every row an update`, dry),
    row(`dry run, 1,300,000 rows, ${mb(flood)} MB CSV`, refused),
    row(`dry run, ${ROWS} rows × 45 columns, ${mb(fullCsv)} MB CSV`, csv45),
    row(`the same table, ${mb(fullXlsx)} MB .xlsx`, xlsx45),
    row(`${ROWS} rows × 60 columns, ${mb(wideXlsx)} MB .xlsx`, xlsx60),
    row(`${mb(bomb)} MB .xlsx inflating to 390 MiB`, xlsxBomb),
  ];
  console.log(`\n${JSON.stringify(machine())}\n`);
  console.log(table(['import', 'status', 'ms', 'idle RSS MiB', 'peak above idle MiB', 'answer MB'], rows));
  const above = (m: Awaited<ReturnType<typeof measure>>) => m.peak - m.idle;
  console.log(`.xlsx over CSV for the same table: ${fmt(above(xlsx45) / above(csv45), 2)}× the memory, ${fmt(xlsx45.ms / csv45.ms, 2)}× the time`);
  console.log(`changes listed: ${parsed.changes.length} (truncated: ${parsed.truncated}); refused: ${refused.answer.slice(0, 160)}`);
  console.log(`60 columns: ${xlsx60.answer.slice(0, 200)}`);
  writeResults('import-bounds', {
    rows: ROWS,
    sizeMb,
    dryRun: { ms: dry.ms, idleKiB: dry.idle, peakKiB: dry.peak, answerBytes: dry.answer.length },
    flood: { status: refused.status, ms: refused.ms, idleKiB: refused.idle, peakKiB: refused.peak },
    workbooks: Object.fromEntries(
      Object.entries({ csv45, xlsx45, xlsx60, xlsxBomb }).map(([k, m]) => [k, { status: m.status, ms: m.ms, idleKiB: m.idle, peakKiB: m.peak }]),
    ),
  });
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(runCleanups);
