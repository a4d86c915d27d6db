import { existsSync, mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
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
