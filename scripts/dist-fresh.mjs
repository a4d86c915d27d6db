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

/** What `npm run build:web` writes into public-build/ (src/lib/built-assets.ts names the same files); web/ imports a few modules of src/. */
const WEB_BUILT = ['manifest.json', 'admin-manifest.json', 'embed.js'];
const WEB_INPUTS = ['web', 'src', 'package-lock.json', 'scripts/build-web.ts', 'scripts/web-bundle.ts'];

/** Oldest modification time of the given files, 0 when one is missing. */
function oldest(paths) {
  return paths.every((p) => existsSync(p)) ? Math.min(...paths.map((p) => statSync(p).mtimeMs)) : 0;
}

/** True when a file of the page's and console's build is missing, or a source of it is newer than the build. */
export function webIsStale(root) {
  const built = oldest(WEB_BUILT.map((f) => join(root, 'public-build', f)));
  return built === 0 || newest(WEB_INPUTS.map((p) => join(root, p))) > built;
}

/** True when `dist/<entry>.js` or a file of the page's and console's build is missing, or a source is newer than the build. */
export function distIsStale(root, entry = 'main') {
  const built = join(root, 'dist', `${entry}.js`);
  const inputs = ['src', 'package-lock.json', 'scripts/build.mjs', 'scripts/lazy-imports.mjs'].map((p) => join(root, p));
  return !existsSync(built) || webIsStale(root) || newest(inputs) > statSync(built).mtimeMs;
}
