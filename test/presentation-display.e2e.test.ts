import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createProject } from './helpers.ts';
import { newObjectId } from '../src/lib/object-id.ts';
import {
  base,
  BOTH,
  close,
  consoleBase,
  namespace,
  owner,
  openPage,
  openUnit,
  patchProject,
  patchUnit,
  shot,
  showFilters,
  skip,
  t,
  texts,
  units,
  usePresentation,
  type Size,
} from './presentation-fixture.ts';

/**
 * The project's remaining display switches on the buyer's page, each set through the API and looked for where a
 * buyer looks, on a phone and a desktop: `hideArea`, `showTaxes` with `priceBeforeTax`, `deliveryDates`,
 * `showAvailableFirst`, `showPriceFilter` and `showAreaFilter`; the wording and layout fields; the console preview’s messages.
 */
usePresentation();

const list = (size: Size) => openPage(size, `/p/${namespace}?view=list`, { ready: '#results[data-view="list"] .card' });
const cardText = (page: Page, name: string) => page.locator(`#unit-${units[name]}`).innerText();
const sheetText = (page: Page) => page.locator('dialog[open]').innerText();
const order = async (page: Page) => (await page.$$eval('#results .card', (els) => els.map((el) => el.id))).map((id) => id.slice('unit-'.length));

describe('display switches on the buyer’s page', { skip }, () => {
  test('hideArea: no area on cards, the sheet or the filters; off, the area is everywhere', async () => {
    await patchProject({ hideArea: true });
    try {
      for (const size of BOTH) {
        const page = await list(size);
        // A1 is 75 m²; the unit of area appears nowhere on the page.
        assert.doesNotMatch(await page.locator('#results').innerText(), /m²/);
        await openUnit(page, size, 'A1');
        assert.doesNotMatch(await sheetText(page), /m²/);
        await shot(page, 'hide-area-sheet', size);
        await page.keyboard.press('Escape');
        await showFilters(page, size);
        assert.equal(await page.locator('#f-areaMin, #f-areaMax').count(), 0);
        await close(page);
      }
      await patchProject({ hideArea: false });
      const page = await list('desktop');
      assert.match(await cardText(page, 'A1'), /75 m²/);
      assert.equal(await page.locator('#f-areaMin').count(), 1);
      await close(page);
    } finally {
      await patchProject({ hideArea: false });
    }
  });

  test('showTaxes with priceBeforeTax: "+ taxes" or "taxes included" beside every price; off, no tax word', async () => {
    try {
      await patchProject({ showTaxes: true, priceBeforeTax: true });
      for (const size of BOTH) {
        const page = await list(size);
        assert.match(await cardText(page, 'A1'), /\$400,000 \+ taxes/);
        await openUnit(page, size, 'A1');
        assert.match(await sheetText(page), /\$400,000 \+ taxes/);
        await shot(page, 'taxes-sheet', size);
        await close(page);
      }
      await patchProject({ priceBeforeTax: false });
      let page = await list('phone');
      assert.match(await cardText(page, 'A1'), /\$400,000 taxes included/);
      await close(page);
      await patchProject({ showTaxes: false });
      page = await list('phone');
      assert.doesNotMatch(await page.locator('#results').innerText(), /tax/i);
      await close(page);
    } finally {
      await patchProject({ showTaxes: false, priceBeforeTax: true });
    }
  });

  test('deliveryDates: the unit’s delivery date on its sheet in words; off, no delivery row', async () => {
    await patchUnit('A2', { deliveryDate: '2027-06' });
    try {
      await patchProject({ deliveryDates: true });
      for (const size of BOTH) {
        const page = await list(size);
        await openUnit(page, size, 'A2');
        assert.match(await sheetText(page), /Delivery\s+June 2027/);
        await shot(page, 'delivery-sheet', size);
        await close(page);
      }
      await patchProject({ deliveryDates: false });
      const page = await list('desktop');
      await openUnit(page, 'desktop', 'A2');
      assert.doesNotMatch(await sheetText(page), /Delivery|June 2027/);
      await close(page);
    } finally {
      await patchProject({ deliveryDates: true });
      await patchUnit('A2', { deliveryDate: '' });
    }
  });

  test('showAvailableFirst: homes on offer lead the default order; off, the project’s order', async () => {
    for (const name of ['A1', 'A2', 'A3']) await patchUnit(name, { availability: 'sold' });
    try {
      await patchProject({ showAvailableFirst: true });
      for (const size of BOTH) {
        const page = await list(size);
        const ids = await order(page);
        const sold = [units.A1, units.A2, units.A3].map((id) => ids.indexOf(id!));
        const offered = ids.indexOf(units.A4!);
        assert.ok(
          sold.every((i) => i > offered && i >= ids.length - 3),
          `sold homes last: ${sold.join(',')} of ${ids.length}`,
        );
        await shot(page, 'available-first', size);
        await close(page);
      }
      await patchProject({ showAvailableFirst: false });
      const page = await list('desktop');
      const ids = await order(page);
      assert.ok(ids.indexOf(units.A1!) < ids.indexOf(units.B1!), 'Level 1 first again, sold or not');
      await close(page);
    } finally {
      await patchProject({ showAvailableFirst: false });
      for (const name of ['A1', 'A2', 'A3']) await patchUnit(name, { availability: 'available' });
    }
  });

  test('showPriceFilter and showAreaFilter: each filter only with its switch', async () => {
    try {
      await patchProject({ showPriceFilter: false, showAreaFilter: true });
      for (const size of BOTH) {
        const page = await list(size);
        await showFilters(page, size);
        assert.equal(await page.locator('#f-priceMin, #f-priceMax').count(), 0);
        assert.equal(await page.locator('#f-areaMin').count(), 1);
        await shot(page, 'no-price-filter', size);
        await close(page);
      }
      await patchProject({ showPriceFilter: true, showAreaFilter: false });
      const page = await list('phone');
      await showFilters(page, 'phone');
      assert.equal(await page.locator('#f-priceMin').count(), 1);
      assert.equal(await page.locator('#f-areaMin, #f-areaMax').count(), 0);
      assert.ok((await texts(page, '#filter-sheet label')).some((l) => /price/i.test(l)));
      await close(page);
    } finally {
      await patchProject({ showPriceFilter: true, showAreaFilter: true });
    }
  });

  test('rentalObject: rents "per month", "Apply" rather than "Enquire", no price per area and no purchase calculator', async () => {
    await patchProject({ rentalObject: true });
    try {
      for (const size of BOTH) {
        const page = await list(size);
        assert.match(await cardText(page, 'A1'), /\$400,000 \/ month/);
        assert.doesNotMatch(await cardText(page, 'A1'), /\/ m²/);
        await openUnit(page, size, 'A1');
        assert.equal((await page.textContent('#act-enquire'))?.trim(), 'Apply');
        assert.equal(await page.locator('#calculator').count(), 0);
        assert.match(await sheetText(page), /\$400,000 \/ month/);
        await shot(page, 'rental-sheet', size);
        await close(page);
      }
      await patchProject({ rentalObject: false });
      const page = await list('desktop');
      await openUnit(page, 'desktop', 'A1');
      assert.equal((await page.textContent('#act-enquire'))?.trim(), 'Enquire');
      assert.equal(await page.locator('#calculator').count(), 1);
      await close(page);
    } finally {
      await patchProject({ rentalObject: false });
    }
  });

  test('landOnly: lots show their lot area, no bedrooms or bathrooms and no bedrooms filter', async () => {
    await patchProject({ landOnly: true });
    try {
      for (const size of BOTH) {
        const page = await list(size);
        assert.doesNotMatch(await page.locator('#results').innerText(), /\bbed|\bbath/i);
        await openUnit(page, size, 'A3');
        const sheet = await sheetText(page);
        assert.match(sheet, /Lot area\s+100 m²/);
        assert.doesNotMatch(sheet, /Bedrooms|Bathrooms/);
        await shot(page, 'land-sheet', size);
        await page.keyboard.press('Escape');
        await showFilters(page, size);
        assert.equal(await page.locator('#f-bedrooms').count(), 0);
        await close(page);
      }
      await patchProject({ landOnly: false });
      const page = await list('desktop');
      assert.match(await cardText(page, 'A3'), /2 bed · 1 bath/);
      await close(page);
    } finally {
      await patchProject({ landOnly: false });
    }
  });

  test('phasePrefix: before every unit’s name on cards, the sheet and the plan, and found by the search', async () => {
    await patchProject({ phasePrefix: 'P2-' });
    try {
      for (const size of BOTH) {
        const page = await list(size);
        assert.match(await cardText(page, 'A1'), /^P2-A1/);
        await page.fill('#f-search', 'p2-b3');
        await page.waitForFunction(() => document.querySelectorAll('#results .card').length === 1);
        assert.match(await page.locator('#results .card').innerText(), /^P2-B3/);
        await page.click('#results .card');
        await page.waitForFunction(() => (document.querySelector('dialog[open] #unit-title')?.textContent ?? '').startsWith('P2-B3'));
        await shot(page, 'phase-sheet', size);
        await close(page);
      }
      await patchProject({ phasePrefix: 'Phase 2' });
      const page = await openPage('desktop', `/p/${namespace}?view=plan`, { ready: 'path.shape' });
      assert.equal(await page.getAttribute(`#shape-${units.A1}`, 'data-name'), 'Phase 2 A1');
      await close(page);
    } finally {
      await patchProject({ phasePrefix: '' });
    }
  });

  test('styleNavigation side, styleFilter panel, invertNav and styleBranding dark: where a desktop draws them; a phone keeps its layout', async () => {
    const box = async (page: Page, selector: string) => (await page.locator(selector).boundingBox())!;
    await patchProject({ styleNavigation: 'side', styleFilter: 'panel', styleBranding: 'dark' });
    try {
      const page = await openPage('desktop', `/p/${namespace}?view=list`, { ready: '#results[data-view="list"] .card' });
      // The floors: a column left of the homes.
      const [floorsBox, results] = [await box(page, '#floors'), await box(page, '#results')];
      assert.ok(floorsBox.x + floorsBox.width <= results.x, `floors ${JSON.stringify(floorsBox)} left of the homes ${JSON.stringify(results)}`);
      assert.ok(floorsBox.height > floorsBox.width, 'a column');
      // The filters: behind the button, in a panel at the right edge.
      assert.equal(await page.locator('#f-priceMin:visible').count(), 0);
      await page.click('#filters-toggle');
      await page.waitForSelector('#filter-sheet.open #f-priceMin:visible');
      const panel = await box(page, '#filter-sheet .filters');
      const vp = page.viewportSize()!;
      assert.ok(Math.abs(panel.x + panel.width - vp.width) <= 1 && panel.height >= vp.height - 1, JSON.stringify(panel));
      await shot(page, 'filter-panel', 'desktop');
      await page.keyboard.press('Escape');
      await page.waitForSelector('#filter-sheet:not(.open)', { state: 'attached' });
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'filters-toggle');
      // The service's line on a dark strip.
      const strip = await page.$eval('.brand', (el) => getComputedStyle(el).backgroundColor);
      assert.equal(strip, 'rgb(29, 35, 48)');
      await shot(page, 'side-floors', 'desktop', true);
      await close(page);
      // Mirrored: the floors on the right, the plan's list on the left of the plan.
      await patchProject({ invertNav: true });
      const mirrored = await openPage('desktop', `/p/${namespace}?view=plan`, { ready: '#side-list .side-row' });
      const [floorsRight, side, plan] = [await box(mirrored, '#floors'), await box(mirrored, '#side-list'), await box(mirrored, '.plan-main')];
      assert.ok(floorsRight.x >= plan.x + plan.width, 'floors right of the plan');
      assert.ok(side.x + side.width <= plan.x, 'the list left of the plan');
      await shot(mirrored, 'inverted', 'desktop');
      await close(mirrored);
      // A phone: floors in a row above the homes, filters in its own sheet, as without the styles.
      const phone = await openPage('phone', `/p/${namespace}?view=list`, { ready: '#results[data-view="list"] .card' });
      const [row, homes] = [await box(phone, '#floors'), await box(phone, '#results')];
      assert.ok(row.y + row.height <= homes.y && row.width > row.height, 'a row above');
      await shot(phone, 'styles-phone', 'phone');
      await close(phone);
    } finally {
      await patchProject({ styleNavigation: '', styleFilter: '', styleBranding: '', invertNav: false });
    }
  });

  test('framed by the console, the page draws the unsaved settings it is sent; framed by anyone else, it ignores them', async () => {
    // The host: a real page of that origin, given a frame of the project's page and a script that sends the frame a
    // draft once the page says it is ready (the console's shell allows frames from the pages origin).
    const framedBy = async (host: string) => {
      const page = await openPage('desktop', `/p/${namespace}`);
      await page.goto(host);
      await page.evaluate(
        ({ src }) => {
          addEventListener('message', (e) => {
            if ((e.data as { type?: string } | null)?.type === 'showsuite:ready')
              (e.source as Window).postMessage({ type: 'showsuite:draft', settings: { colorAccent: '#ff0000', styleFilter: 'panel', phasePrefix: 'Z-' } }, '*');
          });
          const f = document.createElement('iframe');
          f.id = 'f';
          f.src = src;
          f.width = '800';
          f.height = '600';
          document.body.append(f);
        },
        { src: `${base}/p/${namespace}?view=list` },
      );
      const frame = (await (await page.waitForSelector('#f')).contentFrame())!;
      await frame.waitForSelector('#app[aria-busy="false"]');
      return { page, frame };
    };
    const console_ = await framedBy(`${consoleBase}/admin`);
    await console_.frame.waitForFunction(() => document.documentElement.style.getPropertyValue('--accent') === '#ff0000');
    assert.equal(await console_.frame.evaluate(() => document.documentElement.dataset.filter), 'panel');
    await console_.frame.waitForSelector(`#unit-${units.A1} >> text=Z-A1`);
    await close(console_.page);
    const stranger = await framedBy(`${base}/p/${namespace}`);
    // The stranger's message came (its page answered the ready message) and changed nothing.
    await stranger.page.waitForTimeout(500);
    assert.equal(await stranger.frame.evaluate(() => document.documentElement.style.getPropertyValue('--accent')), '');
    assert.equal(await stranger.frame.evaluate(() => document.documentElement.dataset.filter), undefined);
    await close(stranger.page);
  });

  test('an empty list says why: no homes yet on a project without any; none matching when the filters leave none', async () => {
    const ns = `empty-${newObjectId().slice(-10)}`;
    await createProject(t.app, owner.auth, { name: 'Empty Lot', query: { namespace: ns } });
    const empty = await openPage('phone', `/p/${ns}?view=list`, { ready: '#no-units' });
    assert.equal(await empty.locator('#no-units').innerText(), 'No homes are listed here yet.');
    await shot(empty, 'empty-project', 'phone');
    await close(empty);
    const page = await list('phone');
    await showFilters(page, 'phone');
    await page.locator('#f-priceMin').pressSequentially('99000000');
    await page.waitForSelector('#no-units');
    assert.equal(await page.locator('#no-units').innerText(), 'No units match these filters.');
    await close(page);
  });
});
