import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { checkLazyImports } from '../../scripts/lazy-imports.mjs';

/**
 * The build's guard against names a bundled CommonJS package's chunk lacks (the `npm start` crash of
 * `Redis is not a constructor`): a tiny project bundled the way scripts/build.mjs bundles the server.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const CJS = join(ROOT, 'src/lib/cjs.ts');

async function problemsFor(source: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'showsuite-lazy-'));
  try {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/entry.ts'), source);
    const result = await build({
      absWorkingDir: dir,
      entryPoints: { entry: 'src/entry.ts' },
      outdir: 'dist',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      nodePaths: [join(ROOT, 'node_modules')],
      metafile: true,
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      logLevel: 'error',
    });
    return (await checkLazyImports({ root: dir, metafile: result.metafile })) as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a named export taken straight from import() of a bundled CommonJS package fails the build, naming it', async () => {
  const problems = await problemsFor(`export async function f() { const { Client } = await import('basic-ftp'); return new Client(); }\n`);
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0]!, /src\/entry\.ts:1: import\('basic-ftp'\) takes "Client"/);
});

test('property reads of the namespace and .then() callbacks are checked too', async () => {
  const problems = await problemsFor(
    `export async function f() { const m = await import('ioredis'); return [m.Redis, (await import('basic-ftp')).Client]; }\n` +
      `export const g = () => import('basic-ftp').then(({ FTPError }) => FTPError);\n`,
  );
  assert.deepEqual(
    problems.map((p) => /takes "(\w+)"/.exec(p)?.[1]),
    ['Redis', 'Client', 'FTPError'],
  );
});

test('the same names through commonJs(), and a default import, pass', async () => {
  const problems = await problemsFor(
    `import { commonJs } from ${JSON.stringify(CJS)};\n` +
      `export async function f() { const { Client } = commonJs(await import('basic-ftp')); const { Redis } = commonJs(await import('ioredis')); ` +
      `const { default: D } = await import('ioredis'); return [Client, Redis, D]; }\n`,
  );
  assert.deepEqual(problems, []);
});

test('a name the package does not have at all fails even through commonJs()', async () => {
  const problems = await problemsFor(
    `import { commonJs } from ${JSON.stringify(CJS)};\nexport async function f() { const { NoSuchThing } = commonJs(await import('basic-ftp')); return NoSuchThing; }\n`,
  );
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /takes "NoSuchThing"/);
});
