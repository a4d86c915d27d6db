// Runs the whole suite once per database engine (embedded PGlite, then PostgreSQL) and prints one closing line.
// TEST_DB=pglite or TEST_DB=postgres runs one engine only; extra arguments narrow the files.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';

const engines = process.env.TEST_DB ? [process.env.TEST_DB] : ['pglite', 'postgres'];
const args = process.argv.slice(2);
const files = args.length ? args : readdirSync('test').filter((f) => f.endsWith('.test.ts')).sort().map((f) => `test/${f}`);

let passed = 0;
let failed = 0;
let failedEngines = [];
for (const engine of engines) {
  console.log(`\n=== tests on ${engine} ===\n`);
  const out = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', '--test-timeout=120000', ...files], {
      env: { ...process.env, TEST_DB: engine },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      text += d;
    });
    child.on('close', (code) => resolve({ text, code }));
  });
  const pass = Number(/ℹ pass (\d+)/.exec(out.text)?.[1] ?? 0);
  const fail = Number(/ℹ fail (\d+)/.exec(out.text)?.[1] ?? 0);
  passed += pass;
  failed += fail;
  if (out.code !== 0 || fail > 0 || pass === 0) {
    failedEngines.push(engine);
    if (fail === 0) failed += 1; // a crash or an empty run counts as a failure
  }
}
console.log(`\nengines: ${engines.join(', ')}${failedEngines.length ? ` (failing: ${failedEngines.join(', ')})` : ''}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failedEngines.length ? 1 : 0);
