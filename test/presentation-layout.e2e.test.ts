import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browser, close, floors, namespace, noise, openPage, patchUnit, shot, skip, units, usePresentation, type Size } from './presentation-fixture.ts';
import { layoutFaults } from './support/layout.ts';

/**
 * The page drawn right at a desktop's size (1440×900) and a phone's (390×844), measured in the page: the favourite's
 * heart never covers a card's status or facts (with a picture or without), the plan's hover card keeps its text on
 * whole lines, the comparison's row names and cells are never cut or broken mid-word. Each state is also saved as a
 * screenshot (test-results/page-layout-*).
 */
usePresentation();

const VIEWPORTS: Record<Size, { viewport: { width: number; height: number }; hasTouch?: boolean; isMobile?: boolean }> = {
  desktop: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
};
const SIZES_HERE: Size[] = ['desktop', 'phone'];

const open = async (size: Size, path = '', ready?: string) =>
  openPage(size, path, { context: await browser.newContext(VIEWPORTS[size]), ...(ready ? { ready } : {}) });

async function assertLaid(page: Page, what: string, checks: Parameters<typeof layoutFaults>[1]) {
  const { faults, counted } = await layoutFaults(page, checks);
  assert.ok(counted > 0, `${what}: nothing was measured`);
  assert.deepEqual(faults, [], what);
}

describe('the presentation page in Chromium: nothing covers or clips what it says', { skip }, () => {
  test('unit cards without a picture: the heart beside the status and area, not over them; with a picture as before', async () => {
    // Level 3's units lose their pictures (48 of 50 units of a real building have none).
    for (const name of ['C1', 'C2', 'C3', 'C4']) await patchUnit(name, { images: [], layoutUrl: '' });
    for (const size of SIZES_HERE) {
      const page = await open(size, `/p/${namespace}?view=list`);
      await page.waitForSelector(`#unit-${units.C1}`);
      const bare = await page.locator(`#unit-${units.C1} img`).count();
      assert.equal(bare, 0, 'C1 is drawn without a picture');
      await assertLaid(page, `cards (${size})`, {
        apart: [{ within: '.card-item', a: '.fav.on-card', b: ['.badge', '.facts', '.name', '.price', '.per-area'] }],
        unclipped: ['.card .name', '.card .facts', '.card .price', '.card .badge'],
      });
      await page.locator(`#unit-${units.C1}`).scrollIntoViewIfNeeded();
      await shot(page, 'layout-cards-bare', size);
      await page.locator(`#unit-${units.A1}`).scrollIntoViewIfNeeded();
      await shot(page, 'layout-cards-pictured', size);
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
  });

  test('the plan’s card, with and without a picture: whole words on whole lines, nothing under its close button', async () => {
    for (const size of SIZES_HERE) {
      for (const [floor, name] of [
        ['Level 3', 'C2'],
        ['Level 2', 'B2'],
      ] as const) {
        const page = await open(size, `/p/${namespace}?view=plan&floor=${floors[floor]}`);
        await page.waitForSelector('#results[data-view="plan"] path.shape');
        const shape = page.locator(`#shape-${units[name]}`);
        await shape.scrollIntoViewIfNeeded();
        await (size === 'phone' ? shape.tap() : shape.hover());
        await page.waitForSelector('#plan-card:not([hidden])');
        assert.equal(await page.textContent('#plan-card-name'), name);
        await assertLaid(page, `plan card ${name} (${size})`, {
          apart: [{ within: '#plan-card', a: '.pc-close', b: ['.pc-head strong', '.pc-head .badge'] }],
          unclipped: ['#plan-card .pc-head', '#plan-card .facts', '#plan-card .price', '#plan-card .badge', '#plan-card-view'],
        });
        // One line for the name and the status, whatever the card's width.
        const head = await page
          .locator('#plan-card .pc-head')
          .evaluate((el) => ({ h: el.getBoundingClientRect().height, line: parseFloat(getComputedStyle(el).lineHeight) || 0 }));
        assert.ok(head.line === 0 || head.h < head.line * 2, `the card's head is on one line (${head.h} px, line ${head.line} px)`);
        await shot(page, `layout-plan-card-${name}`, size);
        assert.deepEqual(noise.get(page), []);
        await close(page);
      }
    }
  });

  test('the comparison of three: row names and cells whole (no "Availabi-lity"), the table scrolls in its own box on a phone', async () => {
    for (const size of SIZES_HERE) {
      const ids = [units.A1, units.B2, units.C3].join(',');
      const page = await open(size, `/p/${namespace}?compare=${ids}`, '#compare-dialog[open] #compare-table');
      await assertLaid(page, `compare (${size})`, {
        unclipped: ['#compare-table th', '#compare-table td', '#compare-table .badge'],
      });
      // The row names are one line each: a header cell is as tall as one line of its text plus its padding.
      const tall = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('#compare-table tbody th')]
          .filter((th) => {
            const style = getComputedStyle(th);
            const inner = th.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
            return inner > parseFloat(style.lineHeight) * 1.5;
          })
          .map((th) => th.textContent),
      );
      assert.deepEqual(tall, [], 'row names on one line');
      const width = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: innerWidth }));
      assert.ok(width.page <= width.view, `the page is not pushed sideways (${width.page} px on ${width.view})`);
      await shot(page, 'layout-compare', size);
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
  });
});
