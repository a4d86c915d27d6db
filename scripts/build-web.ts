// `npm run build:web`: the presentation page's hashed assets into public-build/.
import { buildEmbed, buildWeb, WEB_OUT } from '../src/presentation/build.ts';
import { buildAdmin } from '../src/admin/build.ts';

const started = performance.now();
const manifest = await buildWeb();
console.log(`built ${manifest.js} and ${manifest.css} into ${WEB_OUT} in ${Math.round(performance.now() - started)} ms`);
await buildEmbed();
console.log(`built the embed SDK ${WEB_OUT}/embed.js`);
const admin = await buildAdmin();
console.log(`built the console's ${admin.js} and ${admin.css} into ${WEB_OUT}`);
