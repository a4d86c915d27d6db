// `npm run build:web`: the presentation page's hashed assets into public-build/.
import { buildWeb, WEB_OUT } from '../src/presentation/build.ts';
import { buildAdmin } from '../src/admin/build.ts';

const started = performance.now();
const manifest = await buildWeb();
console.log(`built ${manifest.js} and ${manifest.css} into ${WEB_OUT} in ${Math.round(performance.now() - started)} ms`);
const admin = await buildAdmin();
console.log(`built the console's ${admin.js} and ${admin.css} into ${WEB_OUT}`);
