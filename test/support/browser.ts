import { existsSync, mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';

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
