// `npm run build`: the server into dist/ as plain JavaScript that `node` runs with no loader.
// esbuild, not tsc: it bundles our modules and most dependencies into one file per entry point, so a start reads
// one file instead of resolving and loading hundreds (that was most of start-up), in well under a second. Types
// are checked separately (`npm run typecheck`, part of `npm test`). Run after `npm run build:web` (the page).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLazyImports } from './lazy-imports.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist');

/**
 * Kept out of the bundle: packages with compiled addons (found by externalNative below), packages that find files next to their own code (PGlite's WebAssembly and data, the
 * docs page's static files, argon2's native binding), build tools the server never runs, and optional drivers.
 */
// Native addons (argon2; ssh2 and its cpu-features for the SFTP feed) cannot be bundled: esbuild has no loader for .node files.
export const EXTERNAL = [
  '@electric-sql/pglite',
  '@node-rs/argon2',
  '@fastify/swagger-ui',
  '@fastify/static',
  'esbuild',
  'tsx',
  'typescript',
  'pg-native',
  'ssh2',
  'ssh2-sftp-client',
  'cpu-features',
];

/** A package with a compiled addon (a `.node` file, `binding.gyp` or prebuilds) must be loaded from node_modules. */
const nativeCache = new Map();
function isNative(name) {
  if (!nativeCache.has(name)) {
    const dir = join(ROOT, 'node_modules', name);
    const hasNode = (d, depth) =>
      existsSync(d) &&
      readdirSync(d, { withFileTypes: true }).some((e) =>
        e.isDirectory() ? depth > 0 && e.name !== 'node_modules' && hasNode(join(d, e.name), depth - 1) : e.name.endsWith('.node') || e.name === 'binding.gyp',
      );
    nativeCache.set(name, hasNode(dir, 6));
  }
  return nativeCache.get(name);
}
const externalNative = {
  name: 'external-native',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return undefined;
      const parts = args.path.split('/');
      const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      return isNative(name) ? { path: args.path, external: true } : undefined;
    });
  },
};

const started = performance.now();
rmSync(OUT, { recursive: true, force: true });
const result = await build({
  absWorkingDir: ROOT,
  metafile: true,
  entryPoints: { main: join(ROOT, 'src/main.ts'), migrate: join(ROOT, 'src/cli/migrate.ts'), 'pglite-template': join(ROOT, 'src/cli/pglite-template.ts') },
  outdir: OUT,
  bundle: true,
  // What a start does not need (dynamic imports: PGlite's driver glue, mail, feeds...) goes into chunks that are
  // read and compiled only when first imported.
  splitting: true,
  chunkNames: '[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  plugins: [externalNative],
  sourcemap: 'linked',
  // Bundled CommonJS dependencies still call require() for Node's own modules.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
// A name taken from a lazily loaded CommonJS package that the built chunk lacks fails here, not in production.
const lazyProblems = await checkLazyImports({ root: ROOT, metafile: result.metafile });
if (lazyProblems.length) {
  console.error(`build: lazily loaded names missing from dist/:\n  - ${lazyProblems.join('\n  - ')}`);
  process.exit(1);
}
// The migrator reads its SQL files from `./migrations/` beside the running code.
mkdirSync(join(OUT, 'migrations'), { recursive: true });
cpSync(join(ROOT, 'src/db/migrations'), join(OUT, 'migrations'), { recursive: true });
// A migrated embedded database that a start on an empty DATA_DIR loads instead of creating one (src/db/db.ts).
const template = spawnSync(process.execPath, [join(OUT, 'pglite-template.js'), join(OUT, 'pglite-template.tar')], { stdio: 'inherit' });
if (template.status !== 0) process.exit(template.status ?? 1);
console.log(`built dist/main.js, dist/migrate.js and dist/pglite-template.tar in ${Math.round(performance.now() - started)} ms`);
