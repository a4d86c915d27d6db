import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleAssets, type AssetManifest } from '../lib/asset-bundle.ts';
import { PROJECT_ROOT } from '../lib/paths.ts';

export const WEB_SRC = join(PROJECT_ROOT, 'web');
export const WEB_OUT = join(PROJECT_ROOT, 'public-build');

export type Manifest = AssetManifest;

/** Bundles and minifies the page (web/app.ts, web/app.css) into content-hashed files and manifest.json. */
export async function buildWeb(outDir = WEB_OUT): Promise<Manifest> {
  return bundleAssets({
    entryPoints: [join(WEB_SRC, 'app.ts'), join(WEB_SRC, 'app.css')],
    outDir,
    manifestName: 'manifest.json',
    ownFile: /^app[.-][\w.-]+\.(js|css)$/,
    // The 3D viewer (about 1 MB) is imported when a visitor opens a model: a chunk of its own, never in app.js.
    chunkNames: 'app-[name].[hash]',
  });
}

export const EMBED_FILE = 'embed.js';

/**
 * The embed SDK (web/embed/sdk.ts) as one classic script, `embed.js`: its address stays the same from release to
 * release (developers paste it into their sites), so it is not hashed and is served with a short cache.
 */
export async function buildEmbed(outDir = WEB_OUT): Promise<string> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(WEB_SRC, 'embed', 'sdk.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    outfile: join(outDir, EMBED_FILE),
    logLevel: 'silent',
  });
  return join(outDir, EMBED_FILE);
}

/** The SDK's text; built first when it is not there. */
export async function embedScript(outDir = WEB_OUT): Promise<Buffer> {
  const file = join(outDir, EMBED_FILE);
  if (!existsSync(file)) await buildEmbed(outDir);
  return readFileSync(file);
}

/** The built page's manifest; builds it first when there is none (a fresh clone run without `npm run build:web`). */
export async function webManifest(outDir = WEB_OUT): Promise<Manifest> {
  const file = join(outDir, 'manifest.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  return buildWeb(outDir);
}
