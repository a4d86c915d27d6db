// `npm run lighthouse [-- <url>]`: Lighthouse 12 (the npm package's command, lighthouse@12.8.2, fetched by npx into
// the npm cache, not a dependency of the service) against Debian's Chromium with phone emulation (Lighthouse's
// default mobile profile: a Moto G Power screen, 4× CPU slowdown, simulated slow 4G) on the demo presentation of
// a freshly started service (embedded database in a temporary directory, demo seed), or on the given URL. Prints
// the four category scores and the paint timings; exits 1 when a category is below 100.
// Not a test: scores move with the machine's load (run it on a quiet machine).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

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

async function startService(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'true' };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('Showsuite ready on')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the service exited (${code}) before it was ready:\n${out}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/p/harbourview` };
}

const dataDir = mkdtempSync(join(tmpdir(), 'showsuite-lighthouse-'));
const service = process.argv[2] ? undefined : await startService(dataDir);
const target = process.argv[2] ?? service!.url;
let failed = true;
try {
  // One unmeasured visit first, as earlier visitors would have made: the service builds and caches the bundle, and
  // compresses each asset the page names on its first request (brotli at its highest quality: tens of ms of CPU a
  // file, which would otherwise land on the measured load, on the same cores as the browser).
  const encoding = { 'accept-encoding': 'br, gzip' };
  const html = await (await fetch(target, { headers: encoding })).text();
  const assets = new Set([...html.matchAll(/\b(?:src|href)="(\/[^"]+)"/g)].map((m) => new URL(m[1] ?? '', target).href));
  await Promise.all([...assets].map(async (url) => (await fetch(url, { headers: encoding })).arrayBuffer()));
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
  if (service) {
    const exited = new Promise((r) => service.child.once('exit', r));
    service.child.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
