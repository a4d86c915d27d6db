// `npm run build:web` (part of `npm run build`): the presentation page, its embed SDK and the console into
// public-build/. The only place they are built: the server reads them (src/lib/built-assets.ts) and will not start
// without them.
import { join } from 'node:path';
import { CONSOLE_MANIFEST, PAGE_MANIFEST, WEB_OUT } from '../src/lib/built-assets.ts';
import { PROJECT_ROOT } from '../src/lib/paths.ts';
import { buildEmbed, bundleAssets } from './web-bundle.ts';

const WEB_SRC = join(PROJECT_ROOT, 'web');

const started = performance.now();
const page = await bundleAssets({
  entryPoints: [join(WEB_SRC, 'app.ts'), join(WEB_SRC, 'app.css')],
  outDir: WEB_OUT,
  manifestName: PAGE_MANIFEST,
  ownFile: /^app[.-][\w.-]+\.(js|css)$/,
  // The 3D viewer (about 1 MB) is imported when a visitor opens a model: a chunk of its own, never in app.js.
  chunkNames: 'app-[name].[hash]',
  // The group page's map (web/group-map.ts): a script of its own, sharing the map's chunk with the page.
  moreScripts: { 'app-group': join(WEB_SRC, 'group-map.ts') },
  // MapLibre's worker, a module of its own it starts from this origin (src/presentation/map-section.ts names it).
  copied: { 'app-map-worker': join(PROJECT_ROOT, 'node_modules', 'maplibre-gl', 'dist', 'maplibre-gl-worker.mjs') },
});
console.log(`built ${page.js} and ${page.css} into ${WEB_OUT} in ${Math.round(performance.now() - started)} ms`);
const embed = await buildEmbed(join(WEB_SRC, 'embed', 'sdk.ts'), WEB_OUT);
console.log(`built the embed SDK ${embed}`);
// The console (Preact) beside the page, with its own manifest; a build removes only the console's older files.
const admin = await bundleAssets({
  entryPoints: { admin: join(WEB_SRC, 'admin', 'main.tsx'), 'admin-style': join(WEB_SRC, 'admin', 'admin.css') },
  outDir: WEB_OUT,
  manifestName: CONSOLE_MANIFEST,
  ownFile: /^admin(-[\w-]+)?\.[\w-]+\.(js|css)$/,
  jsxImportSource: 'preact',
  // The Map tab's map (MapLibre, about 1 MB) is imported when the tab opens: a chunk of its own, with its worker.
  chunkNames: 'admin-[name].[hash]',
  copied: { 'admin-map-worker': join(PROJECT_ROOT, 'node_modules', 'maplibre-gl', 'dist', 'maplibre-gl-worker.mjs') },
});
console.log(`built the console's ${admin.js} and ${admin.css} into ${WEB_OUT}`);
