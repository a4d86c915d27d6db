// Whether dist/ is older than what it is built from: `npm start` rebuilds then, and the built-server tests build
// once before starting their nodes (several starting at once must not all build).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

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

/** True when `dist/<entry>.js` or the page's bundle is missing, or a source is newer than the build. */
export function distIsStale(root, entry = 'main') {
  const built = join(root, 'dist', `${entry}.js`);
  const inputs = ['src', 'web', 'package-lock.json', 'scripts/build.mjs', 'scripts/lazy-imports.mjs', 'scripts/build-web.ts'].map((p) => join(root, p));
  return !existsSync(built) || !existsSync(join(root, 'public-build', 'manifest.json')) || newest(inputs) > statSync(built).mtimeMs;
}
