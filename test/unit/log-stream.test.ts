import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { BatchedStdout } from '../../src/http/log-stream.ts';

const sink = () => {
  const chunks: string[] = [];
  return { chunks, out: { write: (c: string) => chunks.push(c) } };
};

test('log lines wait for the batch: nothing is written per line; the lines go out together, in order, once the delay passes', async () => {
  const { chunks, out } = sink();
  const log = new BatchedStdout(out, 1024, 20);
  log.write('a\n');
  log.write('b\n');
  log.write('c\n');
  assert.deepEqual(chunks, []);
  // Waiting for the batch's timer, not measuring anything.
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(chunks, ['a\nb\nc\n']);
});

test('a full batch is written at once, without waiting for the delay', () => {
  const { chunks, out } = sink();
  const log = new BatchedStdout(out, 10, 60_000);
  log.write('12345\n');
  assert.deepEqual(chunks, []);
  log.write('67890\n');
  assert.deepEqual(chunks, ['12345\n67890\n']);
  log.flush();
  assert.deepEqual(chunks, ['12345\n67890\n'], 'nothing left, nothing written twice');
});

test('lines still waiting when the process exits (process.exit after a fatal error) are written', () => {
  const script = [
    "import { BatchedStdout } from './src/http/log-stream.ts';",
    'const log = new BatchedStdout(process.stdout, 1 << 20, 60_000);',
    "log.write('last words\\n');",
    'process.exit(1);',
  ].join('\n');
  let out = '';
  try {
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  assert.equal(out, 'last words\n');
});
