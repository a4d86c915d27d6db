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
});
console.log(`built ${page.js} and ${page.css} into ${WEB_OUT} in ${Math.round(performance.now() - started)} ms`);
const embed = await buildEmbed(join(WEB_SRC, 'embed', 'sdk.ts'), WEB_OUT);
console.log(`built the embed SDK ${embed}`);
// The console (Preact) beside the page, with its own manifest; a build removes only the console's older files.
const admin = await bundleAssets({
  entryPoints: { admin: join(WEB_SRC, 'admin', 'main.tsx'), 'admin-style': join(WEB_SRC, 'admin', 'admin.css') },
  outDir: WEB_OUT,
  manifestName: CONSOLE_MANIFEST,
  ownFile: /^admin(-style)?\.[\w-]+\.(js|css)$/,
  jsxImportSource: 'preact',
});
console.log(`built the console's ${admin.js} and ${admin.css} into ${WEB_OUT}`);
