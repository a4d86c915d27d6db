// `npm start` / `npm run migrate`: builds dist/ when it is missing or older than the sources, then runs the built
// entry point in this same process, with plain node (no TypeScript loader, no build tool loaded). package.json
// starts this with `exec`, so a SIGTERM sent to `npm start` reaches this process and the server drains and exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = process.argv[2] ?? 'main';
const built = join(ROOT, 'dist', `${entry}.js`);

/** Newest modification time under the given files and directories. */
function newest(paths) {
  let max = 0;
  for (const p of paths) {
    if (!existsSync(p)) continue;
    const s = statSync(p);
    if (s.isDirectory()) for (const name of readdirSync(p)) max = Math.max(max, newest([join(p, name)]));
    else max = Math.max(max, s.mtimeMs);
  }
  return max;
}

const inputs = ['src', 'web', 'package-lock.json', 'scripts/build.mjs', 'scripts/build-web.ts'].map((p) => join(ROOT, p));
const stale = !existsSync(built) || !existsSync(join(ROOT, 'public-build', 'manifest.json')) || newest(inputs) > statSync(built).mtimeMs;
if (stale) {
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
await import(pathToFileURL(built).href);
