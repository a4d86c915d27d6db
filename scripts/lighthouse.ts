// `npm run lighthouse [-- <url> | --units=200 [--full] [--places] [--serve]]`: Lighthouse 12 (the npm package's command, lighthouse@12.8.2, fetched by npx into
// the npm cache, not a dependency of the service) against Debian's Chromium with phone emulation (Lighthouse's
// default mobile profile: a Moto G Power screen, 4× CPU slowdown, simulated slow 4G) on the demo presentation of
// a freshly started service (embedded database in a temporary directory, demo seed), or on the given URL. With
// `--units=<n>` it measures instead a project of n units seeded through the API (see seedLarge). Prints
// the four category scores and the paint timings; exits 1 when a category is below 100.
// Not a test: scores move with the machine's load (run it on a quiet machine).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoService } from './demo-service.ts';
import { DEMO_PASSWORD, DEMO_USERNAME } from '../src/seed/demo.ts';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const LIGHTHOUSE = 'lighthouse@12.8.2';
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

interface Audit {
  id: string;
  score: number | null;
  displayValue?: string;
}
interface Report {
  lighthouseVersion: string;
  configSettings: { formFactor: string };
  runtimeError?: { code: string; message: string };
  categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, Audit>;
}

/**
 * Runs a command to its end; its standard output and exit code. (Lighthouse exits 1 when it could not measure,
 * NO_NAVSTART for one, but still writes its report: the caller reads the report to tell.)
 */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ out: string; code: number | null }> {
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ out, code })));
}

/** The demo's photographs (web/static), uploaded as anyone's would be: they get resized variants and a srcset. */
const PHOTOS = ['demo-hero.webp', 'demo-living.webp', 'demo-kitchen.webp', 'demo-view.webp'];
const UNITS_PER_FLOOR = 20;

/**
 * A project of `count` units through the public API, as the demo account: the demo's photographs uploaded with
 * POST /media (so the page draws them at the drawn width from `?w=` variants), floors of 20 units on the demo's
 * floor plan (a 5 × 4 grid over its 600 × 300 drawing), every unit with a layout drawing, two or three photos and a
 * price. Returns the page's address.
 */
/**
 * `--full`: every content field of the project filled (gallery, layouts, downloads, sponsors, Walk Score, the custom
 * button, units' extras, taxes and from-prices, a location with its map and site plan), to measure the page with
 * everything on.
 */
const EVERY_CONTENT_FIELD = {
  propertyType: 'Condominium',
  websiteURL: 'https://developer.example.com/',
  enterpriseAddressDisplay: 'Corner of Quay and Main',
  areaDescription: 'interior',
  downloadableAssets: '/p/assets/demo-floorplan.svg\nhttps://files.example.com/docs/Price%20list.pdf',
  sponsorsEnabled: true,
  sponsors: 'Acme Bank\n/p/assets/demo-logo.svg',
  walkscoreEnabled: true,
  walkscore: '87',
  crfMessage: 'Our sales centre is open at weekends.',
  customButtonEnabled: true,
  customButtonText: 'Book a visit',
  customButtonOpensAt: 'new_tab',
  customButtonActionType: 'url',
  layouts: '/p/assets/demo-plan-1bed.svg\n/p/assets/demo-plan-2bed.svg',
  floorplans: 'https://files.example.com/plans/Level%201.pdf',
  brochureAssets: ['https://files.example.com/brochure.pdf'],
  brochureButtonEnabled: true,
  showInclusions: true,
  showUnitFinishes: true,
  showVariants: true,
  showFloorOverview: true,
  pricesStartingAt: true,
  showTaxes: true,
  deliveryDates: true,
  lat: 43.6426,
  lon: -79.3871,
  zoomLevel: 16,
  mapDirections: true,
  perimeter: '43.6430,-79.3880 43.6430,-79.3862 43.6420,-79.3862 43.6420,-79.3880',
  layoutImageUrl: '/p/assets/demo-floorplan.svg',
  mapLayoutWidth: 120,
};

/**
 * `--places` (with `--full`): the map and the flat site plan both (`lotsLayout` `plan`: the site plan in a section of
 * its own below the map) and 3D on (the project's model, the building's and the floor selector's, a model per unit),
 * to measure that the map's and the viewer's code stay off the first load.
 */
const PLACES_AND_3D = {
  lotsLayout: 'plan',
  enable3d: true,
  _3dModelUrl: '/p/assets/demo-model.glb',
  _3dBuildingModelUrl: '/p/assets/demo-model.glb',
  _3dFloorSelectorModelUrl: '/p/assets/demo-floors.glb',
};

async function seedLarge(page: string, count: number, full: boolean, places: boolean): Promise<string> {
  // The API is on the console's host name (the pages host answers the page's own routes only).
  const base = new URL(page);
  base.hostname = 'localhost';
  const call = async (method: string, path: string, init: { body?: unknown; form?: FormData; token?: string } = {}) => {
    const res = await fetch(new URL(path, base), {
      method,
      headers: {
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.form ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const { token } = (await call('POST', '/users/login', { body: { username: DEMO_USERNAME, password: DEMO_PASSWORD } })) as { token: string };
  const photos: string[] = [];
  for (const name of PHOTOS) {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(join('web/static', name))], { type: 'image/webp' }), name);
    photos.push((await call('POST', '/media', { form, token })).url as string);
  }
  const [hero, ...rooms] = photos as [string, ...string[]];
  const namespace = `tower-${count}`;
  const project = await call('POST', `/projects?${new URLSearchParams({ name: `Tower of ${count}`, namespace })}`, {
    token,
    body: {
      address: '1 Quay Street, Harbour District',
      areaUnit: 'sq ft',
      projectLang: 'en',
      enableForms: true,
      initialView: 'Building',
      projectImageUrl: hero,
      alternativeCovers: rooms,
      sharePageDescription: `Tower of ${count}: one- to three-bedroom homes with every floor plan, price and availability.`,
      ...(full ? EVERY_CONTENT_FIELD : {}),
      ...(places ? PLACES_AND_3D : {}),
    },
  });
  const availability = ['available', 'available', 'reserved', 'sold', 'available', 'available', 'unavailable'];
  for (let f = 0; f * UNITS_PER_FLOOR < count; f++) {
    const floor = await call('POST', `/floors?${new URLSearchParams({ project: project._id as string, name: `Level ${f + 1}`, position: String(f + 1) })}`, {
      token,
      body: { floorplanUrl: '/p/assets/demo-floorplan.svg', path: 'M0 0 H600 V300 H0 Z' },
    });
    for (let u = 0; u < UNITS_PER_FLOOR && f * UNITS_PER_FLOOR + u < count; u++) {
      const bedrooms = (u % 3) + 1;
      const query = new URLSearchParams({
        project: project._id as string,
        floor: floor._id as string,
        name: `${f + 1}${String(u + 1).padStart(2, '0')}`,
        position: String(u + 1),
      });
      await call('POST', `/units?${query}`, {
        token,
        body: {
          availability: availability[(f * UNITS_PER_FLOOR + u) % availability.length],
          bedrooms: String(bedrooms),
          bathrooms: bedrooms > 1 ? 2 : 1,
          squareFeet: 450 + bedrooms * 250 + u * 5,
          price: 300_000 + bedrooms * 110_000 + f * 9_000 + u * 1_000,
          orientation: ['North', 'East', 'South', 'West'][u % 4],
          description: `A ${bedrooms}-bedroom home on level ${f + 1}.`,
          path: `M${(u % 5) * 120} ${Math.floor(u / 5) * 75} h120 v75 h-120 Z`,
          layoutUrl: `/p/assets/demo-plan-${bedrooms}bed.svg`,
          images: rooms.slice(0, bedrooms + 1),
          ...(full
            ? {
                type: `Model ${['Aster', 'Birch', 'Cedar'][bedrooms - 1]}`,
                isFeatured: u === 0,
                inclusions: 'Dishwasher\nWasher and dryer',
                finishes: ['Quartz counters', 'Oak floors'],
                additionalInfo: [{ label: 'Ceiling height', value: '2.9 m' }],
                downloadableAsset: `/p/assets/demo-plan-${bedrooms}bed.svg`,
                customButtonUrl: 'https://developer.example.com/visit',
                lotPath: `M${(u % 5) * 120} ${Math.floor(u / 5) * 75} h120 v75 h-120 Z`,
              }
            : {}),
          ...(places ? { unitmodels: ['/p/assets/demo-model.glb'] } : {}),
        },
      });
    }
  }
  return new URL(`/p/${namespace}`, page).href;
}

const unitsArg = process.argv.slice(2).find((a) => a.startsWith('--units='));
const urlArg = process.argv.slice(2).find((a) => !a.startsWith('--'));
const dataDir = mkdtempSync(join(tmpdir(), 'showsuite-lighthouse-'));
const service = urlArg ? undefined : await startDemoService(dataDir);
let target = urlArg ?? service!.url;
let failed = true;
/** Stops the service this started and removes its data. */
async function stop() {
  if (service) {
    const exited = new Promise((r) => service.child.once('exit', r));
    service.child.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}
try {
  if (unitsArg)
    target = await seedLarge(
      target,
      Number(unitsArg.slice('--units='.length)),
      process.argv.includes('--full') || process.argv.includes('--places'),
      process.argv.includes('--places'),
    );
  // `--serve`: the seeded page stays up for other measurements (`npx tsx scripts/longtasks.ts 5 <url>`, Lighthouse
  // runs on its URL) until this process is stopped; nothing is measured here.
  if (process.argv.includes('--serve')) {
    console.log(`serving ${target}`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await stop();
    process.exit(0);
  }
  // One unmeasured visit first, as earlier visitors would have made: the service builds and caches the bundle, and
  // compresses each asset the page names on its first request (brotli at its highest quality: tens of ms of CPU a
  // file, which would otherwise land on the measured load, on the same cores as the browser).
  const encoding = { 'accept-encoding': 'br, gzip' };
  const html = await (await fetch(target, { headers: encoding })).text();
  const assets = new Set([...html.matchAll(/\b(?:src|href)="(\/[^"]+)"/g)].map((m) => new URL(m[1] ?? '', target).href));
  await Promise.all([...assets].map(async (url) => (await fetch(url, { headers: encoding })).arrayBuffer()));
  // What the bundle weighs on the wire, as the page fetches it and as a client asking for no coding gets it.
  const bundlePath = /\/public\/(?:projects|hosts)\/[^"?]+/.exec(html)?.[0];
  if (bundlePath) {
    const bytes = async (headers: Record<string, string>) => {
      const res = await fetch(new URL(bundlePath, target), { headers });
      await res.arrayBuffer();
      return `${res.headers.get('content-length')} B${res.headers.get('content-encoding') ? ` ${res.headers.get('content-encoding')}` : ''}`;
    };
    console.log(`bundle ${bundlePath}: ${await bytes({ 'accept-encoding': 'identity' })}, ${await bytes(encoding)}`);
  }
  // A seeded project's photographs: the sizes a phone asks for are made on the first request and kept (docs/media.md),
  // so a first visitor's wait for them is not counted either.
  if (unitsArg) {
    const images = [...html.matchAll(/\/media\/[0-9a-f]{32}\.webp\?w=(\d+)/g)].filter((m) => Number(m[1]) <= 960).map((m) => new URL(m[0], target).href);
    for (const url of new Set(images)) await (await fetch(url, { headers: { accept: 'image/avif,image/webp,image/*,*/*;q=0.8' } })).arrayBuffer();
  }
  // `LIGHTHOUSE_JSON=<file>` keeps the whole report there and, beside it, the trace Lighthouse measured
  // (`<file minus .json>-0.trace.json`, for the browser's performance panel or a script).
  const keep = process.env.LIGHTHOUSE_JSON;
  const args = [
    '--yes',
    LIGHTHOUSE,
    target,
    '--output=json',
    ...(keep ? [`--output-path=${keep}`, '--save-assets'] : ['--output-path=stdout']),
    '--quiet',
    `--only-categories=${CATEGORIES.join(',')}`,
    '--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-background-networking',
  ];
  // A run that could not record a trace (NO_NAVSTART, NO_FCP: a starved machine) is repeated, up to three times.
  let report: Report;
  for (let attempt = 1; ; attempt++) {
    const { out, code } = await run('npx', args, { ...process.env, CHROME_PATH: CHROMIUM });
    try {
      report = JSON.parse(keep ? readFileSync(keep, 'utf8') : out) as Report;
    } catch {
      throw new Error(`lighthouse exited ${code} without a report`);
    }
    if (!report.runtimeError || attempt === 3) break;
    console.log(`attempt ${attempt} could not measure (${report.runtimeError.code}); again`);
  }
  const { categories, audits } = report;
  if (report.runtimeError) console.log(`Lighthouse could not measure: ${report.runtimeError.code} ${report.runtimeError.message}`);
  const score = (id: string) => Math.round((categories[id]?.score ?? 0) * 100);
  const value = (id: string) => audits[id]?.displayValue ?? '?';
  console.log(`Lighthouse ${report.lighthouseVersion}, ${report.configSettings.formFactor} emulation, ${target}`);
  console.log(`performance ${score('performance')}, accessibility ${score('accessibility')}, best practices ${score('best-practices')}, SEO ${score('seo')}`);
  console.log(
    `first contentful paint ${value('first-contentful-paint')}, largest contentful paint ${value('largest-contentful-paint')}, total blocking time ${value('total-blocking-time')}, ` +
      `cumulative layout shift ${value('cumulative-layout-shift')}, speed index ${value('speed-index')}`,
  );
  // The tasks Lighthouse counted as long (its simulated phone: a task's time ×4, or ×2 when it laid out the page),
  // with when they started in the simulated load: what the blocking time is made of. "Unattributable" is the
  // browser's own work, mostly the document's commit (see docs/presentation.md).
  const long =
    (audits['long-tasks'] as (Audit & { details?: { items?: { url: string; duration: number; startTime: number }[] } }) | undefined)?.details?.items ?? [];
  console.log(
    `long tasks (simulated): ${long.map((x) => `${Math.round(x.duration)} ms at ${Math.round(x.startTime)} (${x.url.replace(/^https?:\/\/[^/]+/, '')})`).join(', ') || 'none'}`,
  );
  // What cost points, if anything did.
  for (const [id, category] of Object.entries(categories)) {
    for (const ref of category.auditRefs) {
      const audit = audits[ref.id];
      if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) console.log(`  ${id}: ${audit.id} ${audit.score} ${audit.displayValue ?? ''}`);
    }
  }
  failed = CATEGORIES.some((id) => score(id) < 100);
} finally {
  await stop();
}
process.exit(failed ? 1 : 0);
