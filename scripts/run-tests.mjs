// Runs the pure unit tests (test/unit/, no database) once, then the rest of the suite once per database engine
// (embedded PGlite, then PostgreSQL), then the browser tests (*.e2e.test.ts) once, then the built-server tests
// (*.built.test.ts: `npm start`'s dist/ with several nodes on one database) once on PostgreSQL, and prints one
// closing line.
// TEST_DB=pglite or TEST_DB=postgres runs one engine only; extra arguments narrow the files. TEST_TIMEOUT_MS (default
// 600000: a suite of browser tests or two processes takes minutes on a busy machine) is the per-test limit; raise it on a heavily loaded machine.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { webIsStale } from './dist-fresh.mjs';

const engines = process.env.TEST_DB ? [process.env.TEST_DB] : ['pglite', 'postgres'];
const args = process.argv.slice(2);
const listed = (dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => `${dir}/${f}`);
const all = args.length ? args : [...listed('test/unit'), ...listed('test')];
const isUnit = (f) => /(^|\/)test\/unit\//.test(f);
// Browser tests exercise the page and the console through the same HTTP API the engine tests cover on both
// engines; they run once, on the embedded engine `npm start` uses (TEST_DB=postgres runs them there instead).
const isBrowser = (f) => /\.e2e\.test\.ts$/.test(f);
// The built server's tests start its processes themselves, on one PostgreSQL database they share: once is enough.
const isBuilt = (f) => /\.built\.test\.ts$/.test(f);
const unitFiles = all.filter(isUnit);
const browserFiles = all.filter(isBrowser);
const builtFiles = all.filter(isBuilt);
const engineFiles = all.filter((f) => !isUnit(f) && !isBrowser(f) && !isBuilt(f));

// The apps the tests build serve the page and the console from public-build/, which only `npm run build:web` writes
// (the server never builds them): built here first when missing or older than web/ and src/.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
if (engineFiles.length + browserFiles.length + builtFiles.length > 0 && webIsStale(ROOT)) {
  const r = spawnSync('npm', ['run', '--silent', 'build:web'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

let passed = 0;
let failed = 0;
const failedRuns = [];

/**
 * Runs `files` in one node:test process. `quiet`: its output is kept and printed whole when it ends (runs going on at
 * the same time would interleave), with a line every minute meanwhile.
 */
async function run(label, files, env, quiet = false) {
  if (!quiet) console.log(`\n=== ${label} ===\n`);
  const started = Date.now();
  const heartbeat = quiet ? setInterval(() => console.log(`  … ${label}: ${Math.round((Date.now() - started) / 60000)} min`), 60_000) : undefined;
  const out = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', `--test-timeout=${process.env.TEST_TIMEOUT_MS ?? 600000}`, ...files],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', quiet ? 'pipe' : 'inherit'] },
    );
    let text = '';
    child.stdout.on('data', (d) => {
      if (!quiet) process.stdout.write(d);
      text += d;
    });
    child.stderr?.on('data', (d) => (text += d));
    child.on('close', (code) => resolve({ text, code }));
  });
  clearInterval(heartbeat);
  if (quiet) process.stdout.write(`\n=== ${label} (${Math.round((Date.now() - started) / 1000)} s) ===\n\n${out.text}`);
  const pass = Number(/ℹ pass (\d+)/.exec(out.text)?.[1] ?? 0);
  const fail = Number(/ℹ fail (\d+)/.exec(out.text)?.[1] ?? 0);
  passed += pass;
  failed += fail;
  if (out.code !== 0 || fail > 0 || pass === 0) {
    failedRuns.push(label);
    if (fail === 0) failed += 1; // a crash or an empty run counts as a failure
  }
}

if (unitFiles.length) await run('unit tests (no database, run once)', unitFiles, {});
// TEST_ENGINES_AT_ONCE=2 runs the engines' runs side by side (each file makes its own database or data directory,
// ports are free ones, Redis keys take a prefix of their own). Off by default: on a 2-core machine both runs are
// bound by the processor, and side by side took as long as one after the other.
if (engineFiles.length) {
  const together = engines.length > 1 && process.env.TEST_ENGINES_AT_ONCE === '2';
  if (together) await Promise.all(engines.map((engine) => run(`tests on ${engine}`, engineFiles, { TEST_DB: engine }, true)));
  else for (const engine of engines) await run(`tests on ${engine}`, engineFiles, { TEST_DB: engine });
}
if (browserFiles.length) await run(`browser tests (on ${engines[0]}, once)`, browserFiles, { TEST_DB: engines[0] });
if (builtFiles.length) await run('built-server tests (npm start, on postgres, once)', builtFiles, { TEST_DB: 'postgres' });
console.log(`\nengines: ${engines.join(', ')}${failedRuns.length ? ` (failing: ${failedRuns.join(', ')})` : ''}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failedRuns.length ? 1 : 0);
