import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { browser, noise, openPage, projectId, SIZES, skip, t, units, usePresentation } from './presentation-fixture.ts';

/** The buyer's page reports what visitors do (POST /public/events) without ever waiting on it. */
usePresentation();

// Headless Chromium says so in its user agent, which the service (rightly) does not count; a person's browser does not.
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

async function counts(): Promise<Record<string, number>> {
  const r = await sql<{ type: string; n: number }>`
    select type, count(*)::int as n from insight_events where project_id = ${projectId} group by type`.execute(t.db.kysely);
  return Object.fromEntries(r.rows.map((row) => [row.type, row.n]));
}

async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
}

describe("beacons from the buyer's page", { skip }, () => {
  test('page, view, unit, filter (once for a typed value), share and gallery beacons arrive as rows', async () => {
    const context = await browser.newContext({ ...SIZES.desktop, userAgent: PERSON });
    const page = await openPage('desktop', '', { context });
    await page.click('#view-list');
    await page.waitForSelector('#results[data-view="list"]');
    await page.locator('#f-priceMin').pressSequentially('300000', { delay: 30 });
    await page.click(`#unit-${units.A2}`);
    await page.waitForSelector('dialog[open]');
    await page.click('#share-unit');
    await page.waitForSelector('#share-link');
    // A gallery picture opens in the lightbox.
    await page.locator('#unit-gallery .thumb').first().click();
    await page.waitForSelector('#lightbox[open]');
    await until(async () => {
      const c = await counts();
      return !!(c.page_view && c.list_view && c.unit_view && c.filter && c.share && c.gallery);
    });
    const c = await counts();
    assert.equal(c.page_view, 1);
    assert.ok(c.building_view === 1, `the first screen (building): ${JSON.stringify(c)}`);
    assert.equal(c.list_view, 1);
    assert.equal(c.unit_view, 1);
    assert.equal(c.filter, 1, 'six key presses are one filter event');
    assert.equal(c.share, 1);
    assert.equal(c.gallery, 1);
    const unit = await sql<{ unit_id: string }>`select unit_id from insight_events where project_id = ${projectId} and type = 'unit_view'`.execute(t.db.kysely);
    assert.equal(unit.rows[0]?.unit_id, units.A2);
    assert.deepEqual(noise.get(page), []);
    await context.close();
  });

  test('an events endpoint that fails or never answers changes nothing the visitor sees', async () => {
    for (const broken of ['abort', 'hang', '500'] as const) {
      const context = await browser.newContext({ ...SIZES.phone, userAgent: PERSON });
      // The types of the beacons held open ('hang'): each stays unanswered to the end of the visit.
      const held: string[] = [];
      await context.route('**/public/events', async (route) => {
        if (broken === 'abort') await route.abort();
        else if (broken === '500') await route.fulfill({ status: 500, body: 'down' });
        else held.push((JSON.parse(route.request().postData() ?? '{}') as { type?: string }).type ?? '?');
      });
      const page = await openPage('phone', '', { context });
      page.on('response', (r) => {
        if (r.status() >= 400 && !r.url().includes('/public/events')) noise.get(page)?.push(`answer ${r.status()}: ${r.url()}`);
      });
      await page.locator('#view-list').tap();
      await page.waitForSelector('#results[data-view="list"]');
      await page.locator(`#unit-${units.B1}`).tap();
      await page.waitForSelector('dialog[open] #unit-title');
      if (broken === 'hang') {
        // What the visitor saw (the first screen, the list, the unit's sheet) was drawn while the first screen's
        // beacons were held open, and the unit's own beacon still went out behind them: nothing waits on an answer.
        await until(async () => held.includes('unit_view'));
        assert.ok(held.includes('page_view') && held.includes('building_view') && held.includes('unit_view'), held.join());
        assert.equal(await page.locator('#app').getAttribute('aria-busy'), 'false');
        assert.equal(await page.locator('#results').getAttribute('data-view'), 'list');
        assert.ok(await page.locator('dialog[open] #unit-title').isVisible());
      }
      // The browser reports each refused beacon in the console (without its address) and as a failed request (with it).
      const heard = noise.get(page) ?? [];
      const refused = heard.filter((line) => line.startsWith('request failed:') && line.includes('/public/events')).length;
      const resourceLines = heard.filter((line) => line.startsWith('console error: Failed to load resource')).length;
      assert.ok(resourceLines <= Math.max(refused, broken === '500' ? 10 : 0), heard.join('\n'));
      const errors = heard.filter((line) => !line.includes('/public/events') && !line.startsWith('console error: Failed to load resource'));
      assert.deepEqual(errors, [], broken);
      await context.close();
    }
  });
});
