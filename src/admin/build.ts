import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEB_OUT } from '../presentation/build.ts';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const ADMIN_SRC = join(ROOT, 'web', 'admin');
const MANIFEST = 'admin-manifest.json';
const OWN_FILE = /^admin(-style)?\.[\w-]+\.(js|css)$/;

export interface AdminManifest {
  js: string;
  css: string;
}

/**
 * Bundles the console (Preact, web/admin/main.tsx and admin.css) into content-hashed files beside the
 * presentation page's, with its own manifest. Same safety as the page's build: same sources give the same names,
 * the manifest is replaced by a rename, and only this build's older files are removed, after it.
 */
export async function buildAdmin(outDir = WEB_OUT): Promise<AdminManifest> {
  mkdirSync(outDir, { recursive: true });
  // A build tool: loaded only when a build runs, never by a start that finds the console built.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { admin: join(ADMIN_SRC, 'main.tsx'), 'admin-style': join(ADMIN_SRC, 'admin.css') },
    bundle: true,
    minify: true,
    format: 'esm',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    target: ['es2022', 'chrome100', 'safari15.4', 'firefox100'],
    entryNames: '[name].[hash]',
    outdir: outDir,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => basename(f));
  const manifest: AdminManifest = { js: outputs.find((f) => f.endsWith('.js'))!, css: outputs.find((f) => f.endsWith('.css'))! };
  const temp = join(outDir, `${MANIFEST}.${process.pid}.tmp`);
  writeFileSync(temp, JSON.stringify(manifest));
  renameSync(temp, join(outDir, MANIFEST));
  for (const file of readdirSync(outDir)) {
    if (OWN_FILE.test(file) && file !== manifest.js && file !== manifest.css) rmSync(join(outDir, file), { force: true });
  }
  return manifest;
}

/** The built console's manifest; builds it first when there is none. */
export async function adminManifest(outDir = WEB_OUT): Promise<AdminManifest> {
  const file = join(outDir, MANIFEST);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as AdminManifest;
  return buildAdmin(outDir);
}
