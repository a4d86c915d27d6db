import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { close, namespace, noise, openPage, patchProject, shot, skip, units, usePresentation } from './presentation-fixture.ts';

/** The page's parts loaded on demand (web/parts.ts): none with the first load, each when used, and a failed one said. */
usePresentation();

/** The page's own chunks (`/p/assets/app-<name>.<hash>.js`) the page has requested, by name. */
function chunksOf(page: Page): Set<string> {
  const seen = new Set<string>();
  page.on('request', (r) => {
    const m = /\/p\/assets\/app-([a-z0-9-]+)\.[A-Z0-9]+\.js$/.exec(r.url());
    if (m?.[1] && m[1] !== 'chunk') seen.add(m[1]);
  });
  return seen;
}

const ON_DEMAND = ['detail', 'compare', 'realtor', 'fr', 'es', 'map-view', 'site-plan', 'model-viewer', 'unit-more'];

describe('the presentation page in Chromium: parts loaded on demand', { skip }, () => {
  test('the first load fetches no part; the realtor dialog, the comparison and the unit sheet each load when opened', async () => {
    await patchProject({ allocations: [{ name: 'North Realty', password: 'north-pass-1', allocation: 'C1, C2' }] });
    const page = await openPage('phone', `/p/${namespace}?view=list`, { context: undefined });
    const seen = chunksOf(page);
    await page.reload();
    await page.waitForSelector('#app[aria-busy="false"]');
    await page.waitForTimeout(500);
    assert.deepEqual(
      [...seen].filter((c) => ON_DEMAND.includes(c)),
      [],
      'nothing on demand in the first load',
    );

    await page.locator('#realtor-entry').tap();
    await page.waitForSelector('#realtor[open] #realtor-password');
    assert.ok(seen.has('realtor'), 'the realtor dialog when its entry is opened');
    await page.keyboard.press('Escape');

    await page.locator('#shortlist-open').tap();
    await page.waitForSelector('#compare-dialog[open]');
    assert.ok(seen.has('compare'), 'the comparison when it is opened');
    await page.keyboard.press('Escape');

    const card = page.locator(`#unit-${units.A1}`);
    await card.scrollIntoViewIfNeeded();
    await card.tap();
    await page.waitForSelector('#unit-dialog[open] #unit-title');
    assert.ok(seen.has('detail'), 'the unit sheet when a unit is opened');
    assert.ok(!seen.has('fr') && !seen.has('es'), 'no other language on an English page');
    // (The reload ended the first load's live stream: its one aborted request.)
    assert.deepEqual(
      noise.get(page)?.filter((n) => !/\/events net::ERR_ABORTED$/.test(n)),
      [],
    );
    await close(page);
    await patchProject({ allocations: [] });
  });

  test('a French page fetches its words beside the script and draws in French from the first frame', async () => {
    await patchProject({ projectLang: 'fr' });
    try {
      const page = await openPage('phone', `/p/${namespace}`);
      const seen = chunksOf(page);
      // What the toolbar says when the results first appear.
      await page.addInitScript(() => {
        new MutationObserver((_, observer) => {
          if (!document.querySelector('#results > *')) return;
          observer.disconnect();
          (window as unknown as { firstWords: string }).firstWords = `${document.documentElement.lang} ${document.getElementById('view-list')?.textContent}`;
        }).observe(document, { childList: true, subtree: true });
      });
      await page.reload();
      await page.waitForSelector('#app[aria-busy="false"]');
      assert.equal(await page.evaluate(() => (window as unknown as { firstWords: string }).firstWords), 'fr Liste');
      assert.deepEqual(
        [...seen].filter((c) => ON_DEMAND.includes(c)),
        ['fr'],
      );
      await shot(page, 'parts-french', 'phone');
      await close(page);
    } finally {
      await patchProject({ projectLang: 'en' });
    }
  });

  test('a part that cannot be fetched is said to the visitor, and the next try loads it', async () => {
    const page = await openPage('phone', `/p/${namespace}?view=list`);
    await page.route(/\/p\/assets\/app-compare\./, (route) => route.abort());
    await page.locator('#shortlist-open').tap();
    await page.waitForSelector('#part-failed:not([hidden])');
    assert.match((await page.textContent('#part-failed')) ?? '', /could not be loaded/);
    assert.equal(await page.locator('#compare-dialog').count(), 0);
    await shot(page, 'parts-failed', 'phone');
    await page.unroute(/\/p\/assets\/app-compare\./);
    await page.locator('#shortlist-open').tap();
    await page.waitForSelector('#compare-dialog[open]');
    await close(page);
  });
});
