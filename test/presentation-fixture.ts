import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { CHROMIUM, launchBrowser, SHOTS, skip, twoOrigins } from './support/browser.ts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newObjectId } from '../src/lib/object-id.ts';
import { startSmtp, type Smtp } from './smtp.ts';
import { buildTestApp, createFloor, createProject, createUnit, ENGINE, userWithToken, type TestApp } from './helpers.ts';

/**
 * Shared by the buyer's page tests (presentation*.test.ts): the buyer's page in a real headless Chromium, against the real service on a real socket, at a phone's size (with
 * touch) and a desktop's. Inputs are typed key by key, shapes are tapped and hovered, sheets are scrolled, as a
 * person does. One browser for the file; each test opens the contexts it needs. Screenshots of every state go to
 * test-results/ (page-<state>-<size>-<engine>.png).
 */
export { CHROMIUM, SHOTS, skip };

export type Size = 'phone' | 'desktop';
export const SIZES: Record<Size, Parameters<Browser['newContext']>[0]> = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
};
export const BOTH: Size[] = ['phone', 'desktop'];

export let t: TestApp;
/** The pages origin (http://127.0.0.1:<port>), where the buyer's pages are served. */
export let base: string;
/** Its Host header, for requests injected as if sent to the pages host. */
export let pagesHost: string;
/** The console's and the API's origin (http://localhost:<port>). */
export let consoleBase: string;
export let browser: Browser;
export let owner: Awaited<ReturnType<typeof userWithToken>>;
export let namespace: string;
export let projectId: string;
export let hostName: string;
export const floors: Record<string, string> = {};
export const units: Record<string, string> = {};
export const PROJECT = {
  enableForms: true,
  onHoldExperienceEnabled: true,
  onHoldMinsDuration: 10,
  showPrices: true,
  hideSold: false,
  initialView: 'Building',
  areaUnit: 'm²',
  colorAvailable: '#1b5e20',
  projectImageUrl: '/p/assets/demo-hero.webp',
  sharePageLogo: '/p/assets/demo-logo.svg',
  alternativeCovers: ['/p/assets/demo-living.webp', '/p/assets/demo-view.webp'],
  address: '3 Quay Lane',
  showTaxes: false,
  waitlistEnabled: false,
};
// Four shapes of the demo drawing.
export const SHAPES = ['M15 15 h190 v115 h-190 Z', 'M205 15 h190 v115 h-190 Z', 'M395 15 h190 v115 h-190 Z', 'M15 170 h200 v115 h-200 Z'];

/** The SMTP server the service mails through, when the file asked for one (`usePresentation({ mail: true })`). */
export let smtp: Smtp;

/**
 * Registers the file's set-up: the service on a socket, a project with three floors of four units, one browser.
 * `env`: more settings, read when it starts; `mail`: an SMTP server of the file's own that the service sends to, its
 * outbox drained by the test (`mailedHoldLink`) rather than polled.
 */
export function usePresentation(opts: { env?: () => Record<string, string>; mail?: boolean } = {}) {
  before(async () => {
    if (opts.mail) smtp = await startSmtp();
    const origins = await twoOrigins();
    const mail: Record<string, string> = opts.mail ? { SMTP_URL: smtp.url, OUTBOX_POLL_MS: '0' } : {};
    t = await buildTestApp({ env: { HOLD_SWEEP_SEC: '0', HOLDS_PER_CLIENT: '3', ...origins.env, ...mail, ...opts.env?.() } });
    await t.app.listen({ port: origins.port, host: '127.0.0.1' });
    base = origins.pagesBase;
    pagesHost = origins.pagesHost;
    consoleBase = origins.consoleBase;
    owner = await userWithToken(t);
    namespace = `e2e-${newObjectId().slice(-10)}`;
    hostName = `${namespace}.homes.example.com`;
    const p = await createProject(t.app, owner.auth, { name: 'Quayside Lofts', query: { namespace, hostName }, body: PROJECT });
    projectId = p._id;
    for (const [i, name] of ['Level 1', 'Level 2', 'Level 3'].entries()) {
      const f = await createFloor(t.app, owner.auth, projectId, { name, position: i + 1, body: { floorplanUrl: '/p/assets/demo-floorplan.svg' } });
      floors[name] = f._id;
      for (let u = 0; u < 4; u++) {
        const unitName = `${'ABC'[i]}${u + 1}`;
        const bedrooms = String([1, 2, 2, 3][u]);
        const made = await createUnit(t.app, owner.auth, projectId, {
          name: unitName,
          floor: f._id,
          position: u,
          body: {
            bedrooms,
            squareFeet: 50 + Number(bedrooms) * 25 + i,
            price: 300000 + Number(bedrooms) * 100000 + i * 10000,
            bathrooms: 1,
            path: SHAPES[u],
            description: `Unit ${unitName}`,
            layoutUrl: `/p/assets/demo-plan-${bedrooms}bed.svg`,
            images: ['/p/assets/demo-living.webp', '/p/assets/demo-kitchen.webp'],
          },
        });
        units[unitName] = made._id;
      }
    }
    if (skip) return;
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.stop();
  });
}

/** The hold link in the mail to `email` that the outbox sends next (a hold's own mail, or a priority offer's). */
export async function mailedHoldLink(email: string): Promise<string> {
  const before = smtp.received.length;
  const attempts = await t.app.outbox.drain();
  await smtp.waitFor(before + attempts);
  const mail = smtp.received.find((m) => m.rcptTo.includes(email));
  assert.ok(mail, `a mail to ${email}`);
  const link = /https?:\/\/\S+\?hold=[A-Za-z0-9_-]{43}/.exec(mail.parsed.text ?? '')?.[0];
  assert.ok(link, mail.parsed.text);
  return link;
}

export const patchProject = async (payload: Record<string, unknown>) => {
  const res = await t.app.inject({ method: 'PATCH', url: `/project/${projectId}`, headers: owner.auth, payload });
  assert.equal(res.statusCode, 200, res.body);
};
export const patchUnit = async (name: string, payload: Record<string, unknown>) => {
  const res = await t.app.inject({ method: 'PATCH', url: `/units/${units[name]}`, headers: owner.auth, payload });
  assert.equal(res.statusCode, 200, res.body);
};
export const leads = async () =>
  (await t.app.inject({ method: 'GET', url: `/leads?project=${projectId}`, headers: owner.auth })).json() as Record<string, any>[];

/** Everything a page says in its console, and every request that failed: a clean page has none. */
export const noise = new WeakMap<Page, string[]>();

export async function openPage(size: Size, path = '', opts: { context?: BrowserContext; ready?: string } = {}): Promise<Page> {
  const context = opts.context ?? (await browser.newContext(SIZES[size]));
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const heard: string[] = [];
  noise.set(page, heard);
  page.on('pageerror', (err) => heard.push(`page error: ${err.message}`));
  page.on('console', (m) => heard.push(`console ${m.type()}: ${m.text()}`));
  page.on('requestfailed', (r) => heard.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(`${base}${path || `/p/${namespace}`}`);
  await page.waitForSelector(opts.ready ?? '#app[aria-busy="false"]');
  return page;
}

/** The sizes the settings' browser tests look at: a desktop at 1440×900 and the phone of SIZES. */
export const WIDE: Record<Size, Parameters<Browser['newContext']>[0]> = { desktop: { viewport: { width: 1440, height: 900 } }, phone: SIZES.phone };
/** The page at `size` (WIDE's), in a browser context of its own. */
export const openWide = async (size: Size, path = '', ready?: string) =>
  openPage(size, path, { context: await browser.newContext(WIDE[size]), ...(ready ? { ready } : {}) });

export const shot = (page: Page, state: string, size: Size, fullPage = false) =>
  page.screenshot({ path: `${SHOTS}/page-${state}-${size}-${ENGINE}.png`, fullPage });
export const close = (page: Page) => page.context().close();
export const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();
export const inViewport = async (page: Page, selector: string) => {
  const box = await page.locator(selector).boundingBox();
  const vp = page.viewportSize()!;
  return !!box && box.y >= 0 && box.x >= 0 && box.y + box.height <= vp.height + 1 && box.x + box.width <= vp.width + 1;
};

export async function showFilters(page: Page, size: Size) {
  if (size === 'phone') {
    await page.locator('#filters-toggle').tap();
    await page.waitForSelector('#filter-sheet.open');
  }
}

export async function openUnit(page: Page, size: Size, name: string) {
  const before = await page.locator('dialog[open]').count();
  if (!(await page.locator(`#unit-${units[name]}`).count())) {
    await (size === 'phone' ? page.locator('#view-list').tap() : page.click('#view-list'));
    await page.waitForSelector('#results[data-view="list"]');
  }
  const card = page.locator(`#unit-${units[name]}`);
  await card.scrollIntoViewIfNeeded();
  await (size === 'phone' ? card.tap() : card.click());
  await page.waitForFunction((n) => (document.querySelector('dialog[open] #unit-title')?.textContent ?? '').startsWith(n), name);
  assert.equal(before, 0);
}
