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

test('openFilesWarning: below MAX_CONNECTIONS + headroom → a warning naming the limit, the need and the settings', () => {
  assert.equal(openFilesNeeded(6000), 6256);
  const bounds = { maxConnections: 6000, maxStreams: 5000 };
  assert.equal(openFilesWarning(1_048_576, bounds), undefined);
  assert.equal(openFilesWarning(6256, bounds), undefined);
  assert.equal(openFilesWarning(undefined, bounds), undefined, 'unknown: nothing to say');
  const warning = openFilesWarning(6024, bounds);
  assert.match(warning ?? '', /open-file limit \(6024\) is below the 6256 .*MAX_CONNECTIONS=6000 .*SSE_MAX_STREAMS=5000/);
  // A lower MAX_CONNECTIONS needs fewer.
  assert.equal(openFilesWarning(6024, { maxConnections: 5500, maxStreams: 5000 }), undefined);
});
