import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { openFilesNeeded, openFilesWarning, softOpenFileLimit } from '../../src/lib/open-files.ts';

test("softOpenFileLimit reads this process's soft RLIMIT_NOFILE (what a child shell's ulimit -n also says)", () => {
  const limit = softOpenFileLimit();
  assert.ok(limit === undefined || (Number.isInteger(limit) && limit > 0), String(limit));
  if (process.platform === 'linux') assert.equal(typeof limit, 'number');
  // A child started with a lower limit reads that lower limit.
  const child = spawnSync(
    'sh',
    ['-c', `ulimit -n 512 && "${process.execPath}" --import tsx -e "import('./src/lib/open-files.ts').then(m => console.log(m.softOpenFileLimit()))"`],
    { encoding: 'utf8' },
  );
  assert.equal(child.stdout.trim(), '512', child.stderr);
});

test('openFilesWarning: below SSE_MAX_STREAMS + headroom → a warning naming the limit, the need and the setting', () => {
  assert.equal(openFilesNeeded(5000), 6024);
  assert.equal(openFilesWarning(1_048_576, 5000), undefined);
  assert.equal(openFilesWarning(6024, 5000), undefined);
  assert.equal(openFilesWarning(undefined, 5000), undefined, 'unknown: nothing to say');
  const warning = openFilesWarning(1024, 5000);
  assert.match(warning ?? '', /open-file limit \(1024\) is below the 6024 .*SSE_MAX_STREAMS=5000/);
});
