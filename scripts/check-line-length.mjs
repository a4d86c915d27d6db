// Fails when a source line is longer than the formatter's line width (160): the formatter wraps code, not long
// strings or comments, so this catches those.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const LIMIT = 160;
const IGNORED = /^web\//; // the page's own rewrite is under way; it joins when that lands
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mjs'], { encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !IGNORED.test(f));
const long = [];
for (const file of files) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.length > LIMIT) long.push(`${file}:${i + 1}: ${line.length} characters`);
    });
}
if (long.length) {
  console.error(`${long.length} line(s) over ${LIMIT} characters:\n${long.join('\n')}`);
  process.exit(1);
}
