// `npx tsx scripts/longtasks.ts [runs] [url]`: the demo page's long tasks in Chromium with a 4× CPU slowdown (what
// Lighthouse's mobile profile applies), on a freshly started service (embedded database, demo seed) or the given URL.
// Prints, per run, each task over 50 ms (start, duration) from the page's PerformanceObserver('longtask'), their
// blocking time (the part of each beyond 50 ms) and first contentful paint; then the median and the least of the
// runs' longest tasks (the least is what a busy machine inflates least). A steadier comparison than Lighthouse on a
// shared machine: run it before and after a change, many times, and compare the longest task.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoService } from './demo-service.ts';
import { chromium } from 'playwright-core';

/** The kinds of work a task did, longest first (e.g. "style 12 ms, layout 9 ms"). */
const KINDS: Record<string, string> = {
  'v8.evaluateModule': 'script evaluation',
  TimerFire: 'timer callback',
  FunctionCall: 'script callback',
  RunMicrotasks: 'promise callbacks',
  ParseHTML: 'HTML parsing',
  UpdateLayoutTree: 'style',
  Layout: 'layout',
  Paint: 'paint',
  'SVGImage::DataChanged': 'SVG image document',
  'Decode Image': 'image decoding',
  'DocumentLoader::CommitNavigation': 'document commit (script contexts)',
  MajorGC: 'garbage collection',
  MinorGC: 'garbage collection',
};
function whatRan(events: { name: string; ts: number; dur?: number }[], task: { ts: number; dur?: number }): string {
  const end = task.ts + (task.dur ?? 0);
  const totals = new Map<string, number>();
  let coveredUntil = 0;
  for (const e of events) {
    const kind = KINDS[e.name];
    // Outermost occurrences only: a layout inside a script callback counts once, as the callback's.
    if (!kind || e.ts < task.ts || e.ts >= end || e.ts < coveredUntil) continue;
    coveredUntil = e.ts + (e.dur ?? 0);
    totals.set(kind, (totals.get(kind) ?? 0) + (e.dur ?? 0) / 1000);
  }
  return (
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([kind, ms]) => `${kind} ${Math.round(ms)} ms`)
      .join(', ') || 'browser work'
  );
}

const runs = Number(process.argv[2] ?? 5);
const dataDir = mkdtempSync(join(tmpdir(), 'showsuite-longtasks-'));
const service = process.argv[3] ? undefined : await startDemoService(dataDir);
const target = process.argv[3] ?? service!.url;
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  await fetch(target);
  const longest: number[] = [];
  const tbts: number[] = [];
  const ownLongest: number[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1.75 });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.addInitScript(() => {
      const w = window as unknown as { __long: { start: number; duration: number }[] };
      w.__long = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__long.push({ start: Math.round(e.startTime), duration: Math.round(e.duration) });
      }).observe({ type: 'longtask', buffered: true });
    });
    await browser.startTracing(page, {
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing', 'loading'],
    });
    await page.goto(target, { waitUntil: 'load' });
    // Nothing injected into the page until it has settled (Playwright's own helpers would be long tasks too).
    await new Promise((r) => setTimeout(r, 3000));
    // The page's own tasks: those running its script (evaluating it, a callback of it, or the microtasks that draw).
    type Event = { name: string; ph: string; ts: number; dur?: number; tdur?: number; pid: number; tid: number; args?: unknown };
    const trace = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: Event[] }).traceEvents;
    const events = trace.filter((e) => e.ph === 'X');
    const mine = (e: Event) => JSON.stringify(e.args ?? {}).includes('/p/assets/app.');
    const script = events.find((e) => (e.name === 'v8.compileModule' || e.name === 'FunctionCall') && mine(e));
    // In time order, an enclosing event before the ones inside it.
    const main = events.filter((e) => e.pid === script?.pid && e.tid === script.tid).sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    const own = main
      .filter((task) => task.name === 'RunTask')
      .filter((task) =>
        main.some(
          (e) =>
            e.ts >= task.ts &&
            e.ts < task.ts + (task.dur ?? 0) &&
            (mine(e) || e.name === 'v8.evaluateModule' || (e.name === 'RunMicrotasks' && (e.dur ?? 0) > 1000) || e.name === 'TimerFire'),
        ),
      )
      .map((e) => Math.round((e.dur ?? 0) / 1000));
    ownLongest.push(Math.max(0, ...own));
    // What each long task of the main thread was, from the trace: its wall time (slowed down 4×), its CPU time,
    // and the work inside it that took longest.
    const navigation = trace.find((e) => e.name === 'navigationStart' && JSON.stringify(e.args ?? {}).includes(target.split('?')[0] ?? target));
    const origin = navigation?.ts ?? main[0]?.ts ?? 0;
    const described = main
      .filter((task) => task.name === 'RunTask' && (task.dur ?? 0) >= 50_000 && task.ts >= origin)
      .map(
        (task) =>
          `${Math.round((task.dur ?? 0) / 1000)} ms at ${Math.round((task.ts - origin) / 1000)} (cpu ${Math.round((task.tdur ?? 0) / 1000)} ms: ${whatRan(main, task)})`,
      );
    console.log(`run ${i + 1} main-thread tasks over 50 ms: ${described.join('; ') || 'none'}`);
    const { tasks, fcp } = await page.evaluate(() => ({
      tasks: (window as unknown as { __long: { start: number; duration: number }[] }).__long,
      fcp: Math.round(performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1),
    }));
    const tbt = tasks.reduce((sum, x) => sum + Math.max(0, x.duration - 50), 0);
    longest.push(Math.max(0, ...tasks.map((x) => x.duration)));
    tbts.push(tbt);
    console.log(
      `run ${i + 1}: fcp ${fcp} ms, long tasks ${tasks.map((x) => `${x.duration} ms at ${x.start}`).join(', ') || 'none'}; blocking ${tbt} ms; the page script's longest task ${ownLongest[i]} ms`,
    );
    await context.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `median longest task ${median(longest)} ms, median blocking ${median(tbts)} ms; shortest longest task ${Math.min(...longest)} ms, least blocking ${Math.min(...tbts)} ms; the page script's longest task: median ${median(ownLongest)} ms, least ${Math.min(...ownLongest)} ms (load average ${(
      await import('node:os')
    )
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})`,
  );
} finally {
  await browser.close();
  if (service) {
    const exited = new Promise((r) => service.child.once('exit', r));
    service.child.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}
