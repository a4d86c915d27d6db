// `npm start` / `npm run migrate`: builds dist/ when it is missing or older than the sources, then runs the built
// entry point in this same process, with plain node (no TypeScript loader, no build tool loaded). package.json
// starts this with `exec`, so a SIGTERM sent to `npm start` reaches this process and the server drains and exits 0.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { distIsStale } from './dist-fresh.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = process.argv[2] ?? 'main';

if (distIsStale(ROOT, entry)) {
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
await import(pathToFileURL(join(ROOT, 'dist', `${entry}.js`)).href);
