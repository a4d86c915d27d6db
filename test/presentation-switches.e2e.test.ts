import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  browser,
  close,
  namespace,
  noise,
  openPage,
  openUnit,
  patchProject,
  patchUnit,
  shot,
  SIZES,
  skip,
  units,
  usePresentation,
  type Size,
} from './presentation-fixture.ts';
import { STATUS_COLOURS } from '../web/status-colours.ts';

/**
 * The project's display switches and content fields on the buyer's page (CONTRACT §19), each set to a marked value
 * through the API and looked for where a buyer looks, at a desktop's size (1440×900) and a phone's.
 */
usePresentation();

const SIZE: Record<Size, Parameters<typeof browser.newContext>[0]> = { desktop: { viewport: { width: 1440, height: 900 } }, phone: SIZES.phone };
const open = async (size: Size, path = '') => openPage(size, path, { context: await browser.newContext(SIZE[size]) });
const BOTH: Size[] = ['desktop', 'phone'];

/** Every status word a buyer could read or hear, in the page's three languages' English (the project is English). */
const STATUS_WORDS = /\b(available|availability|on hold|reserved|sold|leased|unavailable|waitlist)\b/i;

/** What the page says: its text, and every label a screen reader says (aria-label, title, alt, options). */
const said = (page: Page) =>
  page.evaluate(() => {
    const labels = [...document.querySelectorAll('[aria-label], [title], [alt], option')].map(
      (el) => `${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('title') ?? ''} ${el.getAttribute('alt') ?? ''} ${el.textContent ?? ''}`,
    );
    return `${document.body.innerText}\n${labels.join('\n')}`;
  });

/** Computed colours of what the page draws per unit, as `rgb(...)`. */
const colours = (page: Page, selector: string, property: 'backgroundColor' | 'fill' | 'borderTopColor') =>
  page.$$eval(selector, (els, p) => els.map((el) => getComputedStyle(el)[p]), property);

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

async function press(page: Page, size: Size, selector: string) {
  await (size === 'phone' ? page.locator(selector).tap() : page.click(selector));
}

describe('display switches on the buyer’s page (CONTRACT §19)', { skip }, () => {
  test('showAvailability false: no status word, colour, mark, legend, filter or waitlist anywhere; on, they are there', async () => {
    await patchUnit('A1', { availability: 'sold' });
    await patchUnit('A2', { availability: 'reserved' });
    await patchUnit('B1', { availability: 'leased' });
    await patchUnit('B2', { availability: 'unavailable' });
    await patchProject({ showAvailability: false, waitlistEnabled: true, colorSold: '#aa0000', colorReserved: '#0000aa' });
    const statusColours = [...Object.values(STATUS_COLOURS), '#1b5e20', '#aa0000', '#0000aa'].map(rgb);
    try {
      for (const size of BOTH) {
        // The building: one neutral colour, no marks, no legend, no "N available" per floor.
        const page = await open(size, `/p/${namespace}?status=sold`);
        await page.waitForSelector('#building');
        assert.equal(await page.locator('.legend:visible, .fcount, .cell .mark, #f-availability, .badge').count(), 0);
        const cells = await colours(page, '.cell', 'backgroundColor');
        assert.equal(cells.length, 12, 'the address’s status filter is ignored: every unit is drawn');
        assert.equal(await page.locator('#clear-filters:visible').count(), 0, 'and no filter is on');
        assert.equal(new Set(cells).size, 1, `one colour for every cell: ${cells.join(' ')}`);
        assert.ok(!statusColours.includes(cells[0]!), `${cells[0]} is no status's colour`);
        assert.doesNotMatch(await said(page), STATUS_WORDS);
        await shot(page, 'no-availability-building', size);
        // The plan (and, on a desktop, its list beside it) and the hover/tap card.
        await press(page, size, '#view-plan');
        await page.waitForSelector('#results[data-view="plan"] path.shape');
        const shapes = await colours(page, 'path.shape', 'fill');
        assert.equal(new Set(shapes).size, 1, `one colour for every shape: ${shapes.join(' ')}`);
        assert.ok(!statusColours.includes(shapes[0]!));
        assert.equal(await page.locator('.shape-mark').count(), 0);
        await (size === 'phone' ? page.locator(`#shape-${units.A1}`).tap() : page.hover(`#shape-${units.A1}`));
        await page.waitForSelector('#plan-card:not([hidden])');
        assert.doesNotMatch(await said(page), STATUS_WORDS);
        await shot(page, 'no-availability-plan', size);
        // The list: no badge, one border colour, no availability filter or sort word.
        await press(page, size, '#view-list');
        await page.waitForSelector('#results[data-view="list"] .card');
        const borders = await colours(page, '.card', 'borderTopColor');
        assert.equal(new Set(borders).size, 1);
        assert.ok(!statusColours.includes(borders[0]!));
        if (size === 'phone') {
          await page.locator('#filters-toggle').tap();
          await page.waitForSelector('#filter-sheet.open');
        }
        assert.doesNotMatch(await said(page), STATUS_WORDS);
        await shot(page, 'no-availability-list', size);
        await close(page);
        // A sold unit's sheet: no badge, no waitlist (it would say the home is taken); an enquiry is offered.
        const sheet = await open(size, `/p/${namespace}?view=list`);
        await openUnit(sheet, size, 'A1');
        assert.equal(await sheet.locator('#act-waitlist, #act-hold, #held-badge, #hold-until').count(), 0);
        assert.equal(await sheet.locator('#act-enquire').count(), 1);
        assert.doesNotMatch(await said(sheet), STATUS_WORDS);
        await shot(sheet, 'no-availability-sheet', size);
        assert.deepEqual(noise.get(sheet), []);
        await close(sheet);
        // The comparison table: no availability row.
        const compare = await open(size, `/p/${namespace}?view=list&compare=${units.A1},${units.A2}`);
        await compare.waitForSelector('#compare-dialog[open] #compare-table');
        assert.doesNotMatch(await said(compare), STATUS_WORDS);
        await shot(compare, 'no-availability-compare', size);
        await close(compare);
      }
      // The same scan finds the words, colours and legend when the switch is on (so it looks where they would be).
      await patchProject({ showAvailability: true });
      const on = await open('desktop', `/p/${namespace}`);
      await on.waitForSelector('#building-legend');
      assert.match(await said(on), STATUS_WORDS);
      assert.ok((await colours(on, '.cell', 'backgroundColor')).includes(rgb('#aa0000')));
      await close(on);
    } finally {
      await patchProject({ showAvailability: true, waitlistEnabled: false });
      for (const name of ['A1', 'A2', 'B1', 'B2']) await patchUnit(name, { availability: 'available' });
    }
  });

  test('the default description names only what the switches show', async () => {
    await patchProject({ showAvailability: false, showPrices: false });
    try {
      const page = await open('desktop', `/p/${namespace}`);
      const description = (await page.getAttribute('meta[name="description"]', 'content')) ?? '';
      assert.match(description, /floor plans of every home/);
      assert.doesNotMatch(description, STATUS_WORDS);
      await close(page);
    } finally {
      await patchProject({ showAvailability: true, showPrices: true });
    }
  });
});
