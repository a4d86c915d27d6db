import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './paths.ts';

/**
 * The presentation page, its embed SDK and the console as `npm run build:web` (part of `npm run build`) writes them
 * (scripts/build-web.ts). The server only reads them: nothing is bundled at start or on a request, and a start without
 * them stops with one line saying what to run.
 */
export const WEB_OUT = join(PROJECT_ROOT, 'public-build');

/** What a built front end's manifest names: its one script and its one style sheet. */
export interface AssetManifest {
  js: string;
  css: string;
  /** Scripts the main one imports on demand (code splitting), served beside it. */
  chunks?: string[];
  /**
   * The chunks among them the main script imports as it starts (code it shares with a part loaded on demand): the page
   * names them with `<link rel="modulepreload">` so they are fetched beside it, not after it.
   */
  imports?: string[];
}

/** The page's manifest (web/app.ts, web/app.css). */
export const PAGE_MANIFEST = 'manifest.json';
/** The console's manifest (web/admin/main.tsx, web/admin/admin.css). */
export const CONSOLE_MANIFEST = 'admin-manifest.json';
/** The embed SDK, one classic script at an address that stays the same from release to release. */
export const EMBED_FILE = 'embed.js';

/**
 * What is missing from the build in `dir`: its manifests and the embed SDK, then the files the manifests name
 * (a build interrupted halfway, or files removed by hand). An empty list: everything the server serves is there.
 */
export function missingBuiltAssets(dir = WEB_OUT): string[] {
  const missing = [PAGE_MANIFEST, CONSOLE_MANIFEST, EMBED_FILE].filter((file) => !existsSync(join(dir, file)));
  for (const name of [PAGE_MANIFEST, CONSOLE_MANIFEST]) {
    if (missing.includes(name)) continue;
    const manifest = JSON.parse(readFileSync(join(dir, name), 'utf8')) as AssetManifest;
    missing.push(...[manifest.js, manifest.css, ...(manifest.chunks ?? [])].filter((file) => !existsSync(join(dir, file))));
  }
  return missing;
}

/** The one line a start without the built assets prints. */
export function missingBuildMessage(missing: string[], dir = WEB_OUT): string {
  return `Cannot start: the built page and console are missing from ${dir} (${missing.join(', ')}); run \`npm run build\` first`;
}

/** Thrown by a route plugin that finds its built files missing (an app built in-process without `npm run build:web`). */
export class MissingBuildError extends Error {
  constructor(missing: string[], dir = WEB_OUT) {
    super(missingBuildMessage(missing, dir));
    this.name = 'MissingBuildError';
  }
}

/** A manifest of the build in `dir`; MissingBuildError when it, or a file it names, is not there. */
export function readManifest(name: typeof PAGE_MANIFEST | typeof CONSOLE_MANIFEST, dir = WEB_OUT): AssetManifest {
  const missing = missingBuiltAssets(dir);
  if (missing.length) throw new MissingBuildError(missing, dir);
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as AssetManifest;
}

/** The built embed SDK's text; MissingBuildError when the build is missing. */
export function embedScript(dir = WEB_OUT): Buffer {
  const missing = missingBuiltAssets(dir);
  if (missing.length) throw new MissingBuildError(missing, dir);
  return readFileSync(join(dir, EMBED_FILE));
}
