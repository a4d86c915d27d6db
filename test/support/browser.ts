import { existsSync, mkdirSync } from 'node:fs';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../helpers.ts';

/** Debian's Chromium: the browser every browser test (*.e2e.test.ts) drives; `npx playwright install` cannot download here. */
export const CHROMIUM = '/usr/bin/chromium';
/** Where browser tests save their screenshots, for a person to look at. */
export const SHOTS = 'test-results';
/** The reason to skip a browser test, or false when Chromium is there. */
export const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`;

/** A headless Chromium as every browser test runs it (and the screenshot folder made). */
export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/**
 * One port, two origins, as `npm start` serves them: the console and the API at `http://localhost:<port>`, the buyer's
 * pages at `http://127.0.0.1:<port>`. `env` goes to buildTestApp; the app then listens on `port` (127.0.0.1).
 */
export async function twoOrigins() {
  const port = await freePort();
  const consoleBase = `http://localhost:${port}`;
  const pagesBase = `http://127.0.0.1:${port}`;
  return { port, consoleBase, pagesBase, pagesHost: `127.0.0.1:${port}`, env: { PUBLIC_URL: consoleBase, PAGES_URL: pagesBase } };
}

/** The sizes the console's screenshots are taken at. */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * `page` at a desktop's size and then a phone's, saved as `test-results/<file>-desktop.png` and `…-phone.png` for a
 * person to look at, then back at the desktop's size. On the phone nothing may push the page sideways (a wide table
 * scrolls in its own box): a page wider than the screen fails the test. `at` scrolls that element into view first;
 * `fullPage` takes the whole page.
 */
export async function shotsAtBothSizes(page: Page, file: string, opts: { fullPage?: boolean; at?: string; desktop?: { width: number; height: number } } = {}) {
  const inView = async () => (opts.at ? page.locator(opts.at).scrollIntoViewIfNeeded() : undefined);
  await inView();
  await page.screenshot({ path: `${SHOTS}/${file}-desktop.png`, fullPage: opts.fullPage ?? false });
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(50);
  await inView();
  await page.screenshot({ path: `${SHOTS}/${file}-phone.png`, fullPage: opts.fullPage ?? false });
  const width = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: innerWidth }));
  assert.ok(width.page <= width.view, `${file}: the page is ${width.page} px wide on a ${width.view} px phone`);
  await page.setViewportSize(opts.desktop ?? DESKTOP);
}
