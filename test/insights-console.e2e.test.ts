import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { launchBrowser, SHOTS, skip, twoOrigins } from './support/browser.ts';
import type { Browser, Page } from 'playwright-core';
import { createFloor, createProject, createUnit, createUser, ENGINE, HIGH_RATE_LIMITS, login, type TestApp, type TestUser, buildTestApp } from './helpers.ts';

/** The console's Insights tab in Chromium: charts with their tables, the funnel, sources, top units and the interest map, at both sizes. */
let t: TestApp;
let base: string;
let browser: Browser;
let user: TestUser;
let projectId = '';
const units: Record<string, string> = {};
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const SHAPES = [
  'M15 15 L205 15 L205 130 L15 130 Z',
  'M205 15 L395 15 L395 130 L205 130 Z',
  'M395 15 L585 15 L585 130 L395 130 Z',
  'M15 170 L215 170 L215 285 L15 285 Z',
  'M215 170 L585 170 L585 285 L215 285 Z',
];
const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  const origins = await twoOrigins();
  t = await buildTestApp({ env: { ...HIGH_RATE_LIMITS, HOLD_SWEEP_SEC: '0', ...origins.env } });
  await t.app.listen({ port: origins.port, host: '127.0.0.1' });
  base = origins.consoleBase;
  user = await createUser(t.db, { username: `insights-${Date.now()}@example.com` });
  const auth = { authorization: `Bearer ${(await login(t.app, user)).token}` };
  const namespace = `ins-${Date.now()}`;
  const p = await createProject(t.app, auth, {
    name: 'Quayside Lofts',
    query: { namespace },
    body: { enableForms: true, reportSendTo: 'sales@quayside.test' },
  });
  projectId = p._id;
  const floor = await createFloor(t.app, auth, projectId, { name: 'Level 1' });
  for (const [i, name] of ['A1', 'A2', 'A3', 'A4', 'A5'].entries()) {
    units[name] = (await createUnit(t.app, auth, projectId, { name, floor: floor._id, position: i, body: { path: SHAPES[i] } }))._id;
  }
  // Today through the service; the month before as daily totals (what the service would have kept).
  for (let v = 0; v < 6; v++) {
    const remoteAddress = `198.51.100.${v + 1}`;
    const send = (payload: object) => t.app.inject({ method: 'POST', url: '/public/events', payload, headers: { 'user-agent': BROWSER }, remoteAddress });
    await send({ namespace, type: 'page_view', ...(v % 2 ? { utm: { source: 'newsletter' } } : { referrer: 'https://search.example/' }) });
    await send({ namespace, type: 'unit_view', unit: units[v < 4 ? 'A2' : 'A4'] });
  }
  await t.app.inject({
    method: 'POST',
    url: '/public/leads',
    payload: { namespace, firstName: 'Ana', lastName: 'B', email: 'ana@buyer.test', phone: '+1 555 0100', unit: units.A2 },
  });
  for (let back = 1; back < 30; back++) {
    const visitors = 20 + Math.round(15 * Math.sin(back / 3)) + (back % 7 === 0 ? 25 : 0);
    await sql`insert into insight_daily (project_id, day, visitors, unit_viewers, page_views, unit_views)
      values (${projectId}, ${day(back)}::date, ${visitors}, ${Math.round(visitors / 2)}, ${visitors * 2}, ${Math.round(visitors * 0.7)})`.execute(t.db.kysely);
    await sql`insert into insight_daily_units (project_id, day, unit_id, views) values
      (${projectId}, ${day(back)}::date, ${units.A1}, ${back % 5}), (${projectId}, ${day(back)}::date, ${units.A3}, ${back % 11}), (${projectId}, ${day(back)}::date, ${units.A5}, 1)`.execute(
      t.db.kysely,
    );
    await sql`insert into insight_daily_sources (project_id, day, source, visitors) values
      (${projectId}, ${day(back)}::date, 'direct', ${Math.round(visitors / 2)}), (${projectId}, ${day(back)}::date, 'instagram.com', ${Math.round(visitors / 3)})`.execute(
      t.db.kysely,
    );
  }
  if (skip) return;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await t?.close();
});

async function signIn(page: Page) {
  await page.goto(`${base}/admin/login`);
  await page.getByLabel('E-mail', { exact: true }).pressSequentially(user.username);
  await page.getByLabel('Password', { exact: true }).pressSequentially(user.password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
}

describe(`the console's Insights tab (${ENGINE})`, { skip }, () => {
  for (const size of [
    { name: 'desktop', viewport: { width: 1280, height: 800 } },
    { name: 'phone', viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
  ]) {
    test(`${size.name}: totals, charts with a table behind each, funnel, sources, top units and the plan coloured by interest`, async () => {
      const context = await browser.newContext(size);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await signIn(page);
      await page.goto(`${base}/admin/projects/${projectId}/insights`);
      await page.getByRole('heading', { level: 1, name: 'Insights' }).waitFor();
      await page.locator('.kpis').waitFor();
      await page.locator('#chart-traffic canvas').waitFor();
      await page.locator('#interest-map g[data-unit]').first().waitFor();
      // What a screen reader reads: the totals, and the table behind each chart.
      const kpis = await page.locator('.kpis li').allTextContents();
      assert.ok(
        kpis.some((k) => /^6\d*Visitors$/.test(k.replace(/,/g, '')) || k.endsWith('Visitors')),
        kpis.join('|'),
      );
      const traffic = page.getByRole('table', { name: /Visitors and views, per day/ });
      assert.equal(await traffic.locator('tbody tr').count(), 30);
      assert.deepEqual(await traffic.locator('tbody tr').last().locator('td').allTextContents(), ['6', '6', '6']);
      assert.equal(await page.locator('#chart-traffic').getAttribute('aria-hidden'), 'true');
      assert.deepEqual(await page.locator('#funnel tbody th').allTextContents(), ['Visitors', 'Viewed a unit', 'Enquired', 'Held a unit']);
      assert.ok((await page.locator('#sources tbody th').allTextContents()).includes('newsletter'));
      assert.equal(await page.locator('.top-units tbody th').first().textContent(), 'A3');
      const map = page.getByRole('table', { name: /Views per unit on Level 1/ });
      assert.equal(await map.locator('tbody tr').count(), 5);
      const a2 = await page.locator(`#interest-map g[data-unit="${units.A2}"]`).getAttribute('data-value');
      assert.equal(a2, '4');
      // The plan by enquiries: A2 is the one enquired about.
      await page.getByLabel('Colour by').selectOption('enquiries');
      await page.getByRole('table', { name: /Enquiries per unit on Level 1/ }).waitFor({ state: 'attached' });
      assert.equal(await page.locator(`#interest-map g[data-unit="${units.A2}"]`).getAttribute('data-value'), '1');
      await page.getByLabel('Colour by').selectOption('views');
      await page.screenshot({ path: `${SHOTS}/console-insights-${size.name}.png`, fullPage: true });
      await page.locator('#interest-map').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/console-insights-map-${size.name}.png` });
      // Nothing wider than the screen.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(
        overflow <= 0,
        `the page scrolls sideways by ${overflow}px: ${await page.evaluate(() =>
          [...document.querySelectorAll('main *')]
            .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .slice(0, 5)
            .map((e) => `${e.tagName}.${e.className}`)
            .join(', '),
        )}`,
      );
      if (size.name === 'desktop') {
        await page.getByRole('button', { name: 'Send the weekly report now' }).click();
        await page.getByRole('status').filter({ hasText: 'on its way to sales@quayside.test' }).waitFor();
      }
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
});
