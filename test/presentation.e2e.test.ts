import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { newObjectId } from '../src/lib/object-id.ts';
import { buildTestApp, createFloor, createProject, createUnit, ENGINE, userWithToken, type TestApp } from './helpers.ts';

/** The presentation page in a real headless Chromium, against the real service on a real socket. */
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = 'test-results';
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`;

let t: TestApp;
let base: string;
let browser: Browser;
let owner: Awaited<ReturnType<typeof userWithToken>>;
let namespace: string;
let projectId: string;
const units: Record<string, string> = {};

let hostName: string;

before(async () => {
  t = await buildTestApp({ env: { HOLD_SWEEP_SEC: '0' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
  owner = await userWithToken(t);
  namespace = `e2e-${newObjectId().slice(-10)}`;
  hostName = `${namespace}.homes.example.com`;
  const p = await createProject(t.app, owner.auth, {
    name: 'Quayside Lofts',
    query: { namespace, hostName },
    body: { enableForms: true, onHoldExperienceEnabled: true, onHoldMinsDuration: 10, showPrices: true, hideSold: false, initialView: 'List', areaUnit: 'm²', colorAvailable: '#1b5e20' },
  });
  projectId = p._id;
  const l1 = await createFloor(t.app, owner.auth, projectId, { name: 'Level 1', position: 1, body: { floorplanUrl: '/p/assets/demo-floorplan.svg' } });
  const l2 = await createFloor(t.app, owner.auth, projectId, { name: 'Level 2', position: 2, body: { floorplanUrl: '/p/assets/demo-floorplan.svg' } });
  const specs: [string, string, string, number][] = [
    ['A1', l1._id, '1', 0], ['A2', l1._id, '2', 1], ['A3', l1._id, '2', 2],
    ['B1', l2._id, '3', 0], ['B2', l2._id, '1', 1], ['B3', l2._id, '2', 2],
  ];
  for (const [name, floor, bedrooms, i] of specs) {
    const x = 20 + (i % 3) * 190;
    const u = await createUnit(t.app, owner.auth, projectId, { name, floor, position: i, body: { bedrooms, squareFeet: 50 + Number(bedrooms) * 25, price: 300000 + Number(bedrooms) * 100000, bathrooms: 1, path: `M${x} 20 h170 v120 h-170 Z`, description: `Unit ${name}` } });
    units[name] = u._id;
  }
  if (skip) return;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await t?.close();
});

async function openPage(opts: { width?: number; height?: number; refresh?: number } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
  await page.goto(`${base}/p/${namespace}${opts.refresh ? `?refresh=${opts.refresh}` : ''}`);
  await page.waitForSelector('.card');
  return page;
}

const cardCount = (page: Page) => page.locator('.card').count();

// These need no browser: they run even where Chromium is missing.
describe('the presentation page, as served', () => {
  test('HTML: no-cache, a CSP allowing only its own script and style, embeddable, namespace on <body>; hashed assets cached for a year', async () => {
    const res = await fetch(`${base}/p/${namespace}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('x-frame-options'), null, 'embeddable in an iframe');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors \*/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const html = await res.text();
    assert.match(html, new RegExp(`<body data-namespace="${namespace}"`));
    assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script');
    const js = /src="(\/p\/assets\/app\.[\w-]+\.js)"/.exec(html)?.[1];
    const css = /href="(\/p\/assets\/app\.[\w-]+\.css)"/.exec(html)?.[1];
    assert.ok(js && css, html);
    for (const [url, type] of [[js, /javascript/], [css, /text\/css/]] as const) {
      const asset = await fetch(`${base}${url}`);
      assert.equal(asset.status, 200, url);
      assert.match(asset.headers.get('content-type') ?? '', type);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    }
    assert.equal((await fetch(`${base}/p/assets/app.NOSUCH.js`)).status, 404);
  });

  test('the demo floor plan drawing is at /p/assets/demo-floorplan.svg, 600×300', async () => {
    const res = await fetch(`${base}/p/assets/demo-floorplan.svg`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /image\/svg\+xml/);
    assert.match(await res.text(), /viewBox="0 0 600 300"/);
  });

  test("unknown namespace → 404 problem; a project's own host name (any case, any port) serves its page at /", async () => {
    const missing = await fetch(`${base}/p/no-such-${namespace}`);
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /application\/problem\+json/);
    const byHost = await t.app.inject({ method: 'GET', url: '/', headers: { host: `${hostName.toUpperCase()}:8443` } });
    assert.equal(byHost.statusCode, 200, byHost.body);
    assert.match(byHost.headers['content-type'] as string, /text\/html/);
    const bundleUrl = /data-bundle="([^"]+)"/.exec(byHost.body)?.[1];
    assert.equal(bundleUrl, `/public/hosts/${hostName}`);
    const bundle = await t.app.inject({ method: 'GET', url: bundleUrl! });
    assert.equal(bundle.json().project._id, projectId);
    const unknown = await t.app.inject({ method: 'GET', url: '/', headers: { host: 'unknown.example.com' } });
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.headers['content-type'] as string, /application\/problem\+json/);
  });
});

describe('the presentation page in Chromium', { skip }, () => {

  test('shows every unit, floors in order, and filters by bedrooms; screenshots at phone and desktop sizes', async () => {
    const page = await openPage();
    assert.equal(await cardCount(page), 6);
    const floors = await page.locator('nav.floors button').allTextContents();
    assert.deepEqual(floors.slice(1), ['Level 1', 'Level 2']);
    await page.selectOption('#f-bedrooms', '2');
    await page.waitForFunction(() => document.querySelectorAll('.card').length === 3);
    await page.selectOption('#f-bedrooms', '');
    await page.click('#floor-' + (await page.locator('nav.floors button').nth(2).getAttribute('id'))!.slice('floor-'.length));
    await page.waitForFunction(() => document.querySelectorAll('.card').length === 3);
    await page.click('#view-plan');
    await page.waitForSelector('path.shape');
    assert.equal(await page.locator('path.shape').count(), 3);
    assert.deepEqual(await page.locator('text.shape-label').allTextContents(), ['B1', 'B2', 'B3']);
    assert.deepEqual(await page.locator('.legend li').allTextContents(), ['Available']);
    await page.screenshot({ path: `${SHOTS}/presentation-desktop-${ENGINE}.png`, fullPage: true });
    await page.context().close();

    const phone = await openPage({ width: 390, height: 844 });
    await phone.screenshot({ path: `${SHOTS}/presentation-phone-${ENGINE}.png`, fullPage: true });
    await phone.context().close();
  });

  test('filters by price range; a unit whose price is to be determined says so', async () => {
    const tbd = await t.app.inject({ method: 'PATCH', url: `/units/${units.B3}`, headers: owner.auth, payload: { unitPriceTBD: true } });
    assert.equal(tbd.statusCode, 200);
    const page = await openPage();
    assert.match(await page.locator(`#unit-${units.B3} .price`).textContent() ?? '', /Price to be determined/);
    await page.fill('#f-priceMax', '400000');
    await page.waitForFunction(() => document.querySelectorAll('.card').length === 2);
    assert.deepEqual(await page.locator('.card .name').allTextContents(), ['A1', 'B2']);
    await page.fill('#f-priceMax', '');
    await page.fill('#f-priceMin', '450000');
    await page.waitForFunction(() => document.querySelectorAll('.card').length === 3);
    assert.deepEqual(await page.locator('.card .name').allTextContents(), ['A2', 'A3', 'B1'], 'B3 has no price yet');
    await page.fill('#f-areaMax', '100');
    await page.waitForFunction(() => document.querySelectorAll('.card').length === 2);
    await page.context().close();
    await t.app.inject({ method: 'PATCH', url: `/units/${units.B3}`, headers: owner.auth, payload: { unitPriceTBD: false } });
  });

  test('keyboard only: Tab reaches the floor-plan shapes, Enter opens the unit, Escape closes it and focus returns', async () => {
    const page = await openPage();
    await page.click('#view-plan');
    await page.waitForSelector('path.shape');
    let focused = '';
    for (let i = 0; i < 40 && !focused.startsWith('shape-'); i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.id ?? '');
    }
    assert.equal(focused, `shape-${units.A1}`, 'the first shape is reachable with Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).strokeWidth);
    assert.equal(outline, '5px', 'a focused shape is visibly highlighted');
    await page.keyboard.press('Enter');
    await page.waitForSelector('dialog[open] #unit-title');
    assert.match(await page.locator('#unit-title').textContent() ?? '', /^A1/);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
    assert.equal(await page.evaluate(() => document.activeElement?.id), focused);
    await page.context().close();
  });

  test('the default colours pass WCAG AA contrast for the text drawn on them', async () => {
    const page = await openPage();
    // The project's own colours off: the stylesheet's defaults only. (Computed here, not in the page: the test
    // runner's transform would add helpers the page does not have.)
    const v = await page.evaluate(() => {
      document.documentElement.removeAttribute('style');
      const css = getComputedStyle(document.documentElement);
      return Object.fromEntries([...document.styleSheets[0]!.cssRules].flatMap((r) => [...((r as CSSStyleRule).style ?? [])]).filter((p) => p.startsWith('--')).map((p) => [p, css.getPropertyValue(p).trim()]));
    });
    const lum = (hex: string) => {
      const n = hex.replace('#', '');
      const full = n.length === 3 ? [...n].map((c) => c + c).join('') : n;
      const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const ratio = (a: string, b: string) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return (x! + 0.05) / (y! + 0.05);
    };
    const c = (name: string) => {
      assert.match(v[name] ?? '', /^#[0-9a-f]{3,6}$/i, `${name} is a hex colour`);
      return v[name]!;
    };
    const pairs: [string, string, string][] = [
      ['text on page', c('--text'), c('--page')],
      ['muted on page', c('--muted'), c('--page')],
      ['muted on surface', c('--muted'), c('--surface')],
      ['base on surface', c('--base'), c('--surface')],
      ['white on base (pressed chip)', '#ffffff', c('--base')],
      ['button text on button', c('--button-text'), c('--button')],
      ['button text on hover', c('--button-text'), c('--hover')],
      ['available text on surface', c('--available'), c('--surface')],
      ...['--available', '--on-hold', '--reserved', '--sold', '--leased', '--unavailable'].map((k): [string, string, string] => [`white on ${k} badge`, '#ffffff', c(k)]),
    ];
    const failures = pairs.map(([name, fg, bg]) => [name, ratio(fg, bg)] as const).filter(([, r]) => r < 4.5).map(([name, r]) => `${name}: ${r.toFixed(2)}`);
    assert.deepEqual(failures, []);
    await page.context().close();
  });

  test("a project's own light colours still leave readable text (white or near-black, as reads better)", async () => {
    const light = { colorBase: '#ffe082', colorButton: '#ffeb3b', colorButtonText: '#ffffff', colorAvailable: '#8bc34a' };
    assert.equal((await t.app.inject({ method: 'PATCH', url: `/project/${projectId}`, headers: owner.auth, payload: light })).statusCode, 200);
    try {
      const page = await openPage();
      await page.click(`#unit-${units.A1}`);
      await page.waitForSelector('dialog[open] #enquiry-submit');
      const seen = await page.evaluate(() =>
        [
          ['heading', 'h1', false],
          ['pressed chip', '.chip[aria-pressed="true"]', true],
          ['unpressed chip', '.chip[aria-pressed="false"]', false],
          ['badge', '.card .badge', true],
          ['price', '.card .price', false],
          ['button', '#enquiry-submit', true],
        ].map(([name, selector, own]) => {
          const el = document.querySelector(selector as string)!;
          const style = getComputedStyle(el);
          return [name, style.color, own ? style.backgroundColor : 'rgb(255, 255, 255)'] as [string, string, string];
        }),
      );
      const lum = (rgb: string) => {
        const [r, g, b] = (rgb.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number).map((c) => c / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const failures = seen
        .map(([name, fg, bg]) => {
          const [x, y] = [lum(fg), lum(bg)].sort((p, q) => q - p);
          return [`${name} ${fg} on ${bg}`, (x! + 0.05) / (y! + 0.05)] as const;
        })
        .filter(([, r]) => r < 4.5)
        .map(([name, r]) => `${name}: ${r.toFixed(2)}`);
      assert.deepEqual(failures, []);
      await page.context().close();
    } finally {
      await t.app.inject({ method: 'PATCH', url: `/project/${projectId}`, headers: owner.auth, payload: { colorBase: '#1f2a44', colorButton: '#1f2a44', colorButtonText: '#ffffff', colorAvailable: '#1b5e20' } });
    }
  });

  test('unit detail: images, price, facts, additional info, brochure and layout links (only http(s) or relative addresses)', async () => {
    const details = {
      parking: 1, orientation: 'South-west', additionalInfo: [{ label: 'Balcony', value: '12 m²' }],
      brochurePDF: 'https://example.com/a2.pdf', layoutUrl: '/p/assets/demo-floorplan.svg', images: ['/p/assets/demo-floorplan.svg'],
    };
    assert.equal((await t.app.inject({ method: 'PATCH', url: `/units/${units.A2}`, headers: owner.auth, payload: details })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'PATCH', url: `/units/${units.A1}`, headers: owner.auth, payload: { brochurePDF: 'javascript:alert(1)' } })).statusCode, 200);
    const page = await openPage();
    await page.click(`#unit-${units.A2}`);
    await page.waitForSelector('dialog[open] #unit-title');
    const dialog = page.locator('dialog[open]');
    assert.match(await dialog.locator('#unit-price').textContent() ?? '', /\$500,000/);
    const facts = await dialog.locator('dl.facts').textContent() ?? '';
    for (const text of ['100 m²', 'Bedrooms2', 'Bathrooms1', 'Parking1', 'South-west', 'Balcony12 m²']) assert.ok(facts.includes(text), `${text} in ${facts}`);
    assert.equal(await dialog.locator('.description').textContent(), 'Unit A2');
    assert.equal(await dialog.locator('.gallery img').count(), 1);
    assert.equal(await dialog.locator('#unit-brochure').getAttribute('href'), 'https://example.com/a2.pdf');
    assert.equal(await dialog.locator('#unit-layout').getAttribute('href'), `${base}/p/assets/demo-floorplan.svg`);
    await page.click('#close-dialog');
    await page.click(`#unit-${units.A1}`);
    await page.waitForFunction(() => /^A1/.test(document.querySelector('dialog[open] #unit-title')?.textContent ?? ''));
    assert.equal(await page.locator('#unit-brochure').count(), 0, 'a javascript: address is not a link');
    await page.context().close();
  });

  test('a visitor opens a unit and sends an enquiry; bad input is shown by the field; the lead reaches GET /leads', async () => {
    const page = await openPage();
    await page.click(`#unit-${units.A2}`);
    await page.waitForSelector('dialog[open] #enquiry-form');
    assert.match(await page.locator('#unit-price').textContent() ?? '', /500,000/);
    await page.fill('#lead-firstName', 'Nora');
    await page.fill('#lead-lastName', 'Buyer');
    await page.fill('#lead-email', 'not-an-email');
    await page.fill('#lead-phone', '+1 555 0199');
    await page.click('#enquiry-submit');
    await page.waitForFunction(() => (document.getElementById('lead-email-error')?.textContent ?? '') !== '');
    await page.fill('#lead-email', 'nora@example.com');
    await page.fill('#lead-message', 'Can I visit on Saturday?');
    await page.click('#enquiry-submit');
    await page.waitForFunction(() => /Thank you/.test(document.getElementById('enquiry-status')?.textContent ?? ''));
    const leads = (await t.app.inject({ method: 'GET', url: `/leads?project=${projectId}`, headers: owner.auth })).json();
    const lead = leads.find((l: { email: string }) => l.email === 'nora@example.com');
    assert.ok(lead, JSON.stringify(leads));
    assert.equal(lead.unit, units.A2);
    assert.equal(lead.message, 'Can I visit on Saturday?');
    await page.context().close();
  });

  test('one visitor holds a unit and sees the countdown; a second browser gets the "taken" message', async () => {
    const second = await openPage({ refresh: 600_000 });
    const first = await openPage();
    for (const page of [first, second]) {
      await page.click(`#unit-${units.A3}`);
      await page.waitForSelector('dialog[open] #hold-form');
      await page.fill('#hold-firstName', 'Sam');
      await page.fill('#hold-lastName', 'Early');
      await page.fill('#hold-email', 'sam@example.com');
      await page.fill('#hold-phone', '+1 555 0101');
    }
    await first.click('#hold-submit');
    await first.waitForFunction(() => /Held for you for \d+:\d\d/.test(document.getElementById('hold-countdown')?.textContent ?? ''));
    await second.click('#hold-submit');
    await second.waitForFunction(() => /someone else got this unit first/.test(document.getElementById('hold-notice')?.textContent ?? ''));
    assert.match(await second.locator('#hold-until').textContent() ?? '', /On hold until \d/);
    assert.equal(await second.getAttribute(`#unit-${units.A3}`, 'data-availability'), 'on_hold');
    await first.context().close();
    await second.context().close();
  });

  test('a unit sold through the management API turns sold on an open page without a reload', async () => {
    const page = await openPage();
    assert.equal(await page.getAttribute(`#unit-${units.B1}`, 'data-availability'), 'available');
    const res = await t.app.inject({ method: 'PATCH', url: `/units/${units.B1}`, headers: owner.auth, payload: { availability: 'sold' } });
    assert.equal(res.statusCode, 200);
    await page.waitForSelector(`#unit-${units.B1}[data-availability="sold"]`, { timeout: 10_000 });
    assert.match(await page.locator(`#unit-${units.B1} .badge`).textContent() ?? '', /Sold/);
    await page.context().close();
  });

  test('lockScreen: the visitor introduces themselves first; the answer becomes a lead', async () => {
    await t.app.inject({ method: 'PATCH', url: `/project/${projectId}`, headers: owner.auth, payload: { lockScreen: true, lockScreenName: true, lockScreenEmail: true, lockScreenPhone: true } });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/p/${namespace}`);
    await page.waitForSelector('#lock-form');
    assert.equal(await page.locator('.card').count(), 0);
    await page.click('#lock-submit');
    await page.waitForFunction(() => (document.getElementById('lock-email-error')?.textContent ?? '') !== '');
    await page.fill('#lock-firstName', 'Lou');
    await page.fill('#lock-lastName', 'Gate');
    await page.fill('#lock-email', 'lou@example.com');
    await page.fill('#lock-phone', '+1 555 0142');
    await page.click('#lock-submit');
    await page.waitForSelector('.card');
    const leads = (await t.app.inject({ method: 'GET', url: `/leads?project=${projectId}`, headers: owner.auth })).json();
    assert.ok(leads.some((l: { email: string; source: string }) => l.email === 'lou@example.com' && l.source === 'lock-screen'));
    await context.close();
    await t.app.inject({ method: 'PATCH', url: `/project/${projectId}`, headers: owner.auth, payload: { lockScreen: false } });
  });

  test('the page speaks the project language (French)', async () => {
    await t.app.inject({ method: 'PATCH', url: `/project/${projectId}`, headers: owner.auth, payload: { projectLang: 'fr' } });
    const page = await openPage();
    assert.equal(await page.getAttribute('html', 'lang'), 'fr');
    assert.equal(await page.locator('#view-plan').textContent(), 'Plan d’étage');
    await page.context().close();
    await t.app.inject({ method: 'PATCH', url: `/project/${projectId}`, headers: owner.auth, payload: { projectLang: 'en' } });
  });
});
