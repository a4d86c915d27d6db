// `npx tsx scripts/layout-shifts.ts <url> [runs]`: the layout shifts a phone sees while the page loads (Chromium, a
// 412 × 823 screen, 4× CPU slowdown): each shift's score and time, and the elements that moved, from where to where.
// What to look at when Lighthouse's cumulative layout shift is above 0.
import { chromium, devices } from 'playwright-core';

const url = process.argv[2];
if (!url) throw new Error('usage: npx tsx scripts/layout-shifts.ts <url> [runs]');
const runs = Number(process.argv[3] ?? 1);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
try {
  for (let run = 1; run <= runs; run++) {
    const context = await browser.newContext({ ...devices['Moto G4'], viewport: { width: 412, height: 823 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.addInitScript(() => {
      const shifts: unknown[] = ((window as unknown as { __shifts: unknown[] }).__shifts = []);
      const describe = (n: Node | null) => {
        if (!(n instanceof Element)) return n?.nodeName ?? '?';
        return `${n.tagName.toLowerCase()}${n.id ? `#${n.id}` : ''}${n.classList.length ? `.${[...n.classList].join('.')}` : ''}`;
      };
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as (PerformanceEntry & {
          value: number;
          hadRecentInput: boolean;
          sources: { node: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
        })[]) {
          shifts.push({
            at: Math.round(e.startTime),
            value: e.value.toFixed(4),
            input: e.hadRecentInput,
            sources: e.sources.map((s) => ({
              node: describe(s.node),
              from: [s.previousRect.x, s.previousRect.y, s.previousRect.width, s.previousRect.height].map(Math.round).join(','),
              to: [s.currentRect.x, s.currentRect.y, s.currentRect.width, s.currentRect.height].map(Math.round).join(','),
            })),
          });
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(4000);
    const shifts = (await page.evaluate(() => (window as unknown as { __shifts: unknown[] }).__shifts)) as {
      at: number;
      value: string;
      sources: { node: string; from: string; to: string }[];
    }[];
    const total = shifts.reduce((n, s) => n + Number(s.value), 0);
    console.log(`run ${run}: ${shifts.length} shifts, total ${total.toFixed(4)}`);
    for (const s of shifts) console.log(`  ${s.value} at ${s.at} ms: ${s.sources.map((x) => `${x.node} (${x.from} → ${x.to})`).join('; ')}`);
    await context.close();
  }
} finally {
  await browser.close();
}
