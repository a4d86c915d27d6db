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
    ownFile: /^app\.[\w-]+\.(js|css)$/,
  });
}

/** The built page's manifest; builds it first when there is none (a fresh clone run without `npm run build:web`). */
export async function webManifest(outDir = WEB_OUT): Promise<Manifest> {
  const file = join(outDir, 'manifest.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  return buildWeb(outDir);
}
