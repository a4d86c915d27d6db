import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PROJECT_ROOT } from '../lib/paths.ts';

export const WEB_SRC = join(PROJECT_ROOT, 'web');
export const WEB_OUT = join(PROJECT_ROOT, 'public-build');

export interface Manifest {
  js: string;
  css: string;
}

/**
 * Bundles and minifies the page (web/app.ts, web/app.css) into content-hashed files and a manifest. Safe while
 * another process builds or starts: the same sources give the same file names, the manifest is replaced in one
 * rename, and older builds' files are removed only after it.
 */
export async function buildWeb(outDir = WEB_OUT): Promise<Manifest> {
  mkdirSync(outDir, { recursive: true });
  // esbuild is a build tool (a devDependency): loaded only when a build actually runs, never by a server start
  // that finds the page already built.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(WEB_SRC, 'app.ts'), join(WEB_SRC, 'app.css')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome100', 'safari15.4', 'firefox100'],
    entryNames: '[name].[hash]',
    outdir: outDir,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => basename(f));
  const manifest: Manifest = { js: outputs.find((f) => f.endsWith('.js'))!, css: outputs.find((f) => f.endsWith('.css'))! };
  const temp = join(outDir, `manifest.${process.pid}.tmp`);
  writeFileSync(temp, JSON.stringify(manifest));
  renameSync(temp, join(outDir, 'manifest.json'));
  for (const file of readdirSync(outDir)) {
    if (/^app\.[\w-]+\.(js|css)$/.test(file) && file !== manifest.js && file !== manifest.css) rmSync(join(outDir, file), { force: true });
  }
  return manifest;
}

/** The built page's manifest; builds it first when there is none (a fresh clone run without `npm run build:web`). */
export async function webManifest(outDir = WEB_OUT): Promise<Manifest> {
  const file = join(outDir, 'manifest.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  return buildWeb(outDir);
}
