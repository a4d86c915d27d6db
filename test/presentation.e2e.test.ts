import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base,
  BOTH,
  browser,
  close,
  floors,
  inViewport,
  namespace,
  noise,
  openPage,
  openUnit,
  shot,
  showFilters,
  SIZES,
  skip,
  texts,
  units,
  usePresentation,
} from './presentation-fixture.ts';

/** The buyer's page: its first screen, filters, plan and unit sheet, at a phone's size and a desktop's. */
usePresentation();

// ---------- as served: no browser needed ----------

describe('the presentation page in Chromium', { skip }, () => {
  test('first screen: hero, logo and name, a compact toolbar and the building; on a phone the filters wait behind one button; aria-busy ends false; images load', async () => {
    for (const size of BOTH) {
      const page = await openPage(size);
      assert.equal(await page.getAttribute('#app', 'aria-busy'), 'false');
      assert.equal(await page.locator('#results[data-view="building"]').count(), 1, 'initialView Building');
      for (const img of ['.hero-img', '.logo']) {
        await page.waitForFunction((sel) => ((document.querySelector(sel) as HTMLImageElement | null)?.naturalWidth ?? 0) > 0, img);
      }
      assert.equal(await page.locator('#filter-sheet input').first().isVisible(), size === 'desktop', 'filters: open on a desktop, in a sheet on a phone');
      assert.ok(await inViewport(page, '#view-building'));
      const building = await page.locator('#building .floor-row').first().boundingBox();
      assert.ok(building && building.y < page.viewportSize()!.height, 'the building starts on the first screen');
      assert.deepEqual(await texts(page, '.floor-name .fname'), ['Level 3', 'Level 2', 'Level 1'], 'top floor first');
      assert.deepEqual(await texts(page, '.floor-name .fcount'), ['4 available', '4 available', '4 available']);
      await shot(page, 'building', size);
      await shot(page, 'building-full', size, true);
      // The project gallery, lazy, loads when scrolled to.
      await page.locator('.project-gallery').scrollIntoViewIfNeeded();
      await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.project-gallery img')].every((i) => i.complete && i.naturalWidth > 0));
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
  });

  test('price and area filters typed key by key keep every digit in order (no caret jump); count, sort, clear; the address keeps them', async () => {
    for (const size of BOTH) {
      const page = await openPage(size);
      await (size === 'phone' ? page.locator('#view-list').tap() : page.click('#view-list'));
      await page.waitForSelector('#results[data-view="list"]');
      assert.equal(await page.textContent('#result-count'), '12 homes');
      await showFilters(page, size);
      const min = page.locator('#f-priceMin');
      await (size === 'phone' ? min.tap() : min.click());
      await min.pressSequentially('610000');
      assert.equal(await min.inputValue(), '610000', 'every keystroke lands after the last');
      await page.waitForFunction(() => document.getElementById('result-count')?.textContent === '2 homes');
      const area = page.locator('#f-areaMax');
      await area.click();
      await page.keyboard.type('126');
      assert.equal(await area.inputValue(), '126');
      await page.waitForFunction(() => document.getElementById('result-count')?.textContent === '1 home');
      assert.match(page.url(), /[?&]min=610000/);
      assert.match(page.url(), /[?&]amax=126/);
      // Mid-field edits keep the caret too: 610000 → 6100000 → back.
      await min.press('End');
      await min.press('Backspace');
      await min.press('Backspace');
      await page.keyboard.type('5000');
      assert.equal(await min.inputValue(), '61005000');
      await page.waitForFunction(() => document.getElementById('result-count')?.textContent === '0 homes');
      for (let i = 0; i < 4; i++) await min.press('Backspace');
      await page.keyboard.type('0');
      assert.equal(await min.inputValue(), '61000');
      if (size === 'phone') {
        await shot(page, 'filters-sheet', size);
        await page.locator('#filters-done').tap();
        await page.waitForFunction(() => !document.getElementById('filter-sheet')?.classList.contains('open'));
        assert.equal(
          await page.textContent('#filters-toggle-count'),
          '2',
          'the filter button counts the filters that are on (a price bound, an area bound), not the results',
        );
      }
      await page.waitForFunction(() => document.getElementById('result-count')?.textContent === '11 homes');
      await page.selectOption('#sort', 'price-desc');
      const prices = async () => (await texts(page, '.card .price')).map((p) => Number(p.replace(/[^\d]/g, '')));
      const desc = await prices();
      assert.deepEqual(
        desc,
        [...desc].sort((a, b) => b - a),
      );
      await page.selectOption('#sort', 'price-asc');
      await page.waitForFunction(() => /sort=price-asc/.test(location.search));
      const asc = await prices();
      assert.deepEqual(
        asc,
        [...asc].sort((a, b) => a - b),
      );
      assert.match((await texts(page, '.card .price'))[0]!, /^\$\d{3},\d{3}$/, 'dollars, grouped');
      assert.match((await texts(page, '.card .per-area'))[0]!, /^\$[\d,]+ \/ m²$/, 'price per area');
      await shot(page, 'list-filtered', size);
      // A reload keeps the view: the address carries it.
      await page.reload();
      await page.waitForSelector('#app[aria-busy="false"]');
      // A revalidation in flight when the visitor reloads is cut off by the reload itself, not by the page.
      const heard = noise.get(page)!;
      heard.splice(0, heard.length, ...heard.filter((m) => !/request failed: .*\/public\/projects\/.* net::ERR_ABORTED/.test(m)));
      assert.equal(await page.textContent('#result-count'), '11 homes');
      assert.equal(await page.inputValue('#f-priceMin'), '61000');
      assert.equal(await page.inputValue('#sort'), 'price-asc');
      await (size === 'phone' ? page.locator('#clear-filters').tap() : page.click('#clear-filters'));
      await page.waitForFunction(() => document.getElementById('result-count')?.textContent === '12 homes');
      assert.equal(await page.inputValue('#f-priceMin'), '');
      assert.equal(await page.locator('#clear-filters').isVisible(), false);
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
  });

  test('plan: one floor at a time (no stacked "All floors"), fits the screen, a card on hover (desktop) and on tap (phone), wheel and button zoom, pinch zoom', async () => {
    for (const size of BOTH) {
      const page = await openPage(size);
      const row = page.locator(`#bfloor-${floors['Level 2']}`);
      await (size === 'phone' ? row.tap() : row.click());
      await page.waitForSelector('#results[data-view="plan"] path.shape');
      assert.match(page.url(), new RegExp(`view=plan&floor=${floors['Level 2']}`));
      assert.deepEqual(await texts(page, 'nav.floors button'), ['Level 1', 'Level 2', 'Level 3'], 'no "All floors" on the plan');
      assert.equal(await page.locator('figure.plan').count(), 1);
      // A drawing of other proportions is letterboxed as the console's editor places it, never stretched.
      assert.equal(await page.locator('img.plan-img').evaluate((el) => getComputedStyle(el).objectFit), 'contain');
      assert.deepEqual(await texts(page, 'text.shape-label'), ['B1', 'B2', 'B3', 'B4']);
      await page.locator('#plan-viewport').scrollIntoViewIfNeeded();
      assert.ok(await inViewport(page, '#plan-viewport'), 'the whole plan fits on the screen');
      const shape = page.locator(`#shape-${units.B2}`);
      if (size === 'desktop') {
        await shape.hover();
      } else {
        await shape.tap();
      }
      await page.waitForSelector('#plan-card:not([hidden])');
      assert.equal(await page.textContent('#plan-card-name'), 'B2');
      const card = (await page.textContent('#plan-card')) ?? '';
      for (const part of ['Available', '2 bed', '$', 'm²', 'View details']) assert.ok(card.includes(part), `${part} in ${card}`);
      await page.waitForFunction(() => ((document.querySelector('#plan-card img') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
      assert.equal(await page.locator('dialog[open]').count(), 0, 'a hover or a first tap only shows the card');
      await shot(page, 'plan-card', size);
      await (size === 'phone' ? page.locator('#plan-card-view').tap() : page.click('#plan-card-view'));
      await page.waitForSelector('dialog[open]');
      assert.match((await page.textContent('#unit-title')) ?? '', /^B2/);
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !document.querySelector('dialog[open]'));
      // Zoom: the wheel on a desktop; two fingers on a phone; the buttons on both.
      const vp = (await page.locator('#plan-viewport').boundingBox())!;
      if (size === 'desktop') {
        await page.mouse.move(vp.x + vp.width / 2, vp.y + vp.height / 2);
        await page.mouse.wheel(0, -400);
        await page.waitForFunction(() => Number(document.getElementById('plan-viewport')?.dataset.scale) > 1.5);
      } else {
        const cdp = await page.context().newCDPSession(page);
        const [cx, cy] = [vp.x + vp.width / 2, vp.y + vp.height / 2];
        const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', d: number) =>
          cdp.send('Input.dispatchTouchEvent', {
            type,
            touchPoints:
              type === 'touchEnd'
                ? []
                : [
                    { x: cx - d, y: cy, id: 1 },
                    { x: cx + d, y: cy, id: 2 },
                  ],
          });
        await touch('touchStart', 20);
        for (const d of [40, 60, 80]) await touch('touchMove', d);
        await touch('touchEnd', 80);
        await page.waitForFunction(() => Number(document.getElementById('plan-viewport')?.dataset.scale) > 2);
      }
      await shot(page, 'plan-zoomed', size);
      await (size === 'phone' ? page.locator('#zoom-reset').tap() : page.click('#zoom-reset'));
      await page.waitForFunction(() => document.getElementById('plan-viewport')?.dataset.scale === '1.00');
      await (size === 'phone' ? page.locator('#zoom-in').tap() : page.click('#zoom-in'));
      await page.waitForFunction(() => document.getElementById('plan-viewport')?.dataset.scale === '1.40');
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
  });

  test('the unit sheet: on a phone full height with the close button and the actions always on screen while it scrolls; a tap outside closes it on a desktop; images, layout, gallery', async () => {
    for (const size of BOTH) {
      const page = await openPage(size);
      await openUnit(page, size, 'A4');
      const dialog = (await page.locator('dialog[open]').boundingBox())!;
      const vp = page.viewportSize()!;
      assert.ok(dialog.height <= vp.height, `the sheet (${dialog.height}px) fits the screen (${vp.height}px)`);
      if (size === 'phone') assert.ok(dialog.height >= vp.height - 1 && dialog.width >= vp.width - 1, 'full screen on a phone');
      await page.waitForFunction(() => ((document.getElementById('unit-layout-img') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
      assert.equal(await page.locator('dialog[open] .gallery img').count(), 2);
      await shot(page, 'unit', size);
      // Scroll the sheet to its end, as a finger or a wheel does.
      const body = page.locator('#sheet-body');
      if (size === 'phone') {
        const box = (await body.boundingBox())!;
        const cdp = await page.context().newCDPSession(page);
        const x = box.x + box.width / 2;
        // A finger dragged up the sheet, several times.
        for (let swipe = 0; swipe < 4; swipe++) {
          await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y: box.y + box.height - 20 }] });
          for (let step = 1; step <= 8; step++)
            await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: box.y + box.height - 20 - step * 70 }] });
          await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
        }
      } else {
        await body.hover();
        await page.mouse.wheel(0, 3000);
      }
      await page.waitForFunction(() => {
        const el = document.getElementById('sheet-body')!;
        return el.scrollTop > 0 && el.scrollTop + el.clientHeight >= el.scrollHeight - 2;
      });
      assert.ok(await inViewport(page, '#close-dialog'), 'the close button stays on screen');
      assert.ok(await inViewport(page, '#act-hold'), 'the actions stay on screen');
      assert.ok(await inViewport(page, '#act-enquire'));
      await shot(page, 'unit-scrolled', size);
      if (size === 'desktop') {
        await page.mouse.click(10, 10);
        await page.waitForFunction(() => !document.querySelector('dialog[open]'));
        assert.equal(await page.evaluate(() => document.activeElement?.id), `unit-${units.A4}`, 'focus returns to the card');
      } else {
        await page.locator('#close-dialog').tap();
        await page.waitForFunction(() => !document.querySelector('dialog[open]'));
      }
      // Closing takes the unit out of the address (by going back to the entry before it).
      await page.waitForFunction(() => !location.pathname.includes('/units/'));
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
  });

  test('the first draw is the first screen only (toolbar and results, the page still busy); the gallery, footer and plan names follow, and the page then says it is ready; the unit sheet comes with the first touch', async () => {
    for (const path of [`/p/${namespace}`, `/p/${namespace}?view=plan&floor=${floors['Level 2']}`]) {
      const context = await browser.newContext(SIZES.phone);
      const page = await context.newPage();
      // What the document holds when the results first appear (a mutation observer's first report after that draw).
      await page.addInitScript(() => {
        const seen: Record<string, unknown>[] = [];
        (window as unknown as { firstScreen: typeof seen }).firstScreen = seen;
        new MutationObserver((_, observer) => {
          if (!document.querySelector('#results > *')) return;
          observer.disconnect();
          seen.push({
            busy: document.getElementById('app')?.getAttribute('aria-busy'),
            controls: !!document.getElementById('filters-toggle'),
            gallery: !!document.querySelector('.project-gallery'),
            footer: !!document.querySelector('footer.brand'),
            sheet: !!document.getElementById('unit-dialog'),
            labels: document.querySelectorAll('text.shape-label').length,
          });
        }).observe(document, { childList: true, subtree: true });
      });
      await page.goto(`${base}${path}`);
      await page.waitForSelector('#app[aria-busy="false"]');
      const first = await page.evaluate(() => (window as unknown as { firstScreen: Record<string, unknown>[] }).firstScreen);
      assert.deepEqual(first, [{ busy: 'true', controls: true, gallery: false, footer: false, sheet: false, labels: 0 }], path);
      // Once it says it is ready, everything is there, in its place.
      assert.deepEqual(await page.evaluate(() => [...document.getElementById('app')!.children].map((e) => e.className)), [
        'controls',
        'results',
        'project-gallery',
        'brand',
      ]);
      // The unit sheet (a chunk of its own) is not part of the load: fetched on the visitor's first touch or key.
      assert.equal(await page.locator('#unit-dialog').count(), 0, 'no unit sheet before the visitor acts');
      await page.locator('h1').tap();
      await page.locator('#unit-dialog form').waitFor({ state: 'attached' });
      if (path.includes('plan')) assert.deepEqual(await texts(page, 'text.shape-label'), ['B1', 'B2', 'B3', 'B4']);
      await close(page);
    }
  });
});
