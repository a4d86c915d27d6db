import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleAssets, type AssetManifest } from '../lib/asset-bundle.ts';
import { PROJECT_ROOT } from '../lib/paths.ts';
import { WEB_OUT } from '../presentation/build.ts';

export const ADMIN_SRC = join(PROJECT_ROOT, 'web', 'admin');
const MANIFEST = 'admin-manifest.json';

export type AdminManifest = AssetManifest;

/**
 * Bundles the console (Preact, web/admin/main.tsx and admin.css) into content-hashed files beside the
 * presentation page's, with its own manifest; removes only the console's older files, never the page's.
 */
export async function buildAdmin(outDir = WEB_OUT): Promise<AdminManifest> {
  return bundleAssets({
    entryPoints: { admin: join(ADMIN_SRC, 'main.tsx'), 'admin-style': join(ADMIN_SRC, 'admin.css') },
    outDir,
    manifestName: MANIFEST,
    ownFile: /^admin(-style)?\.[\w-]+\.(js|css)$/,
    jsxImportSource: 'preact',
  });
}

/** The built console's manifest; builds it first when there is none. */
export async function adminManifest(outDir = WEB_OUT): Promise<AdminManifest> {
  const file = join(outDir, MANIFEST);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as AdminManifest;
  return buildAdmin(outDir);
}
