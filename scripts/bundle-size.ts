// `npx tsx scripts/bundle-size.ts [--inputs]`: what the presentation page's scripts weigh, as `npm run build:web`
// builds them (esbuild, minified, split): each output with its minified and brotli size, the main script first, and,
// with `--inputs`, the source modules the main script holds, largest first. Builds into a temporary directory.
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { PROJECT_ROOT } from '../src/lib/paths.ts';

const out = mkdtempSync(join(tmpdir(), 'showsuite-size-'));
try {
  const result = await build({
    entryPoints: [join(PROJECT_ROOT, 'web', 'app.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome100', 'safari15.4', 'firefox100'],
    splitting: true,
    chunkNames: 'app-[name].[hash]',
    entryNames: '[name]',
    outdir: out,
    metafile: true,
    logLevel: 'silent',
  });
  const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  const rows = Object.entries(result.metafile.outputs)
    .filter(([f]) => f.endsWith('.js'))
    .map(([f, o]) => {
      const body = readFileSync(f);
      const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
      return { name: basename(f), bytes: o.bytes, br, entry: basename(f) === 'app.js', inputs: o.inputs };
    })
    .sort((a, b) => Number(b.entry) - Number(a.entry) || b.bytes - a.bytes);
  // What loads with the page: app.js and the shared chunks it imports statically (esbuild's splitting puts the code
  // app.js shares with a lazily loaded part in a chunk of its own); each other output is loaded only when used.
  const outputs = result.metafile.outputs;
  const first = new Set<string>();
  const visit = (file: string) => {
    if (first.has(file)) return;
    first.add(file);
    for (const i of outputs[file]?.imports ?? []) if (i.kind === 'import-statement') visit(i.path);
  };
  visit(Object.keys(outputs).find((f) => basename(f) === 'app.js')!);
  const byName = new Map(rows.map((r) => [r.name, r]));
  const firstRows = [...first].map((f) => byName.get(basename(f))!);
  const sum = (key: 'bytes' | 'br') => firstRows.reduce((n, r) => n + r[key], 0);
  console.log(`first load (app.js and the chunks it imports): ${kB(sum('bytes'))} minified, ${kB(sum('br'))} brotli`);
  for (const r of rows) {
    const when = first.has(join(out, r.name).replace(`${process.cwd()}/`, '')) || firstRows.includes(r) ? 'first load' : 'on demand';
    console.log(`${r.name.padEnd(40)} ${kB(r.bytes).padStart(9)} minified ${kB(r.br).padStart(8)} brotli  ${when}`);
  }
  if (process.argv.includes('--inputs')) {
    const main = rows[0]!;
    console.log(`\n${main.name} by source module:`);
    for (const [file, i] of Object.entries(main.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)) {
      if (i.bytesInOutput >= 500) console.log(`  ${file.replace(/^.*?web\//, 'web/').padEnd(40)} ${kB(i.bytesInOutput)}`);
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
