import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const WEB_SRC = join(ROOT, 'web');
export const WEB_OUT = join(ROOT, 'public-build');

export interface Manifest {
  js: string;
  css: string;
}

/** Bundles and minifies the page (web/app.ts, web/app.css) into content-hashed files and a manifest. */
export async function buildWeb(outDir = WEB_OUT): Promise<Manifest> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
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
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest));
  return manifest;
}

/** The built page's manifest; builds it first when there is none (a fresh clone run without `npm run build:web`). */
export async function webManifest(outDir = WEB_OUT): Promise<Manifest> {
  const file = join(outDir, 'manifest.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  return buildWeb(outDir);
}
