import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  close,
  floors,
  namespace,
  noise,
  openWide,
  openUnit,
  pagesHost,
  patchProject,
  owner,
  patchUnit,
  projectId,
  shot,
  skip,
  t,
  texts,
  units,
  usePresentation,
  type Size,
} from './presentation-fixture.ts';
import { STATUS_COLOURS } from '../web/status-colours.ts';
import { createGroup } from './helpers.ts';
import { newObjectId } from '../src/lib/object-id.ts';

/**
 * The project's display switches and content fields on the buyer's page, each set to a marked value
 * through the API and looked for where a buyer looks, at a desktop's size (1440×900) and a phone's.
 */
usePresentation();

const open = openWide;
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

describe('display switches on the buyer’s page', { skip }, () => {
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

  test('content fields: property type, display address and website in the hero; area description; downloads, sponsors, Walk Score; the enquiry message; the custom button; the gallery', async () => {
    const content = {
      propertyType: 'Condominium (marked)',
      websiteURL: 'https://developer.example.com/',
      enterpriseAddressDisplay: 'Corner of Quay and Main (marked)',
      areaDescription: 'interior',
      downloadableAssets: '/p/assets/demo-floorplan.svg\nhttps://files.example.com/docs/Price%20list.pdf',
      sponsorsEnabled: true,
      sponsors: 'Acme Bank (marked)\n/p/assets/demo-logo.svg',
      walkscoreEnabled: true,
      walkscore: '87',
      crfMessage: 'Our sales centre is open at weekends (marked).',
      customButtonEnabled: true,
      customButtonText: 'Book a visit',
      customButtonOpensAt: 'new_tab',
      customButtonActionType: 'url',
      images: ['/p/assets/demo-kitchen.webp'],
      layouts: '/p/assets/demo-plan-1bed.svg\n/p/assets/demo-plan-2bed.svg',
      floorplans: 'https://files.example.com/plans/Level%201.pdf',
      brochureAssets: ['https://files.example.com/Quayside%20brochure.pdf'],
    };
    await patchProject(content);
    await patchUnit('A1', { customButtonUrl: 'https://book.example.com/a1' });
    try {
      for (const size of BOTH) {
        const page = await open(size, `/p/${namespace}?view=list`);
        assert.equal(await page.textContent('#hero .address'), content.enterpriseAddressDisplay);
        assert.equal(await page.textContent('#property-type'), content.propertyType);
        assert.equal(await page.getAttribute('#website-link', 'href'), content.websiteURL);
        assert.deepEqual(await texts(page, '#downloads a'), ['demo-floorplan.svg', 'Price list.pdf']);
        assert.deepEqual(await page.$$eval('#layouts img', (els) => els.map((el) => el.getAttribute('alt'))), ['demo-plan-1bed.svg', 'demo-plan-2bed.svg']);
        assert.deepEqual(await texts(page, '#floorplans a'), ['Level 1.pdf']);
        assert.equal(await page.textContent('#project-brochure-0'), 'Brochure');
        assert.equal(await page.getAttribute('#project-brochure-0', 'href'), content.brochureAssets[0]);
        assert.deepEqual(await texts(page, '#sponsors li'), ['Acme Bank (marked)', '']);
        assert.equal(await page.getAttribute('#sponsors img', 'alt'), 'demo-logo');
        assert.match((await page.textContent('#walkscore')) ?? '', /87 Very Walkable/);
        assert.equal(await page.getAttribute('#walkscore a', 'href'), 'https://www.walkscore.com/score/3-quay-lane');
        assert.match((await page.textContent(`#unit-${units.A1} .facts`)) ?? '', /75 m² \(interior\)/);
        // The gallery (the project's images first), then the downloads, then "Powered by" last.
        await page.waitForSelector('.project-gallery');
        assert.match((await page.getAttribute('.project-gallery a', 'href')) ?? '', /demo-kitchen\.webp$/);
        assert.ok(await page.evaluate(() => document.getElementById('project-info')!.compareDocumentPosition(document.querySelector('footer.brand')!) === 4));
        await page.locator('#downloads').scrollIntoViewIfNeeded();
        await shot(page, 'content-info', size);
        await page.evaluate(() => scrollTo(0, 0));
        await shot(page, 'content-hero', size);
        await openUnit(page, size, 'A1');
        assert.match((await page.textContent('#detail-info .facts')) ?? '', /75 m² \(interior\)/);
        assert.equal(await page.textContent('#contact-intro'), content.crfMessage);
        assert.equal(await page.getAttribute('#unit-custom-button', 'href'), 'https://book.example.com/a1');
        assert.equal(await page.getAttribute('#unit-custom-button', 'target'), '_blank');
        assert.equal(await page.textContent('#unit-custom-button'), 'Book a visit');
        await shot(page, 'content-sheet', size);
        assert.deepEqual(noise.get(page), []);
        await close(page);
      }
      // A unit without its own address has no custom button; the switches take the sponsors and the Walk Score away.
      const other = await open('desktop', `/p/${namespace}/units/${units.B1}`);
      await other.waitForSelector('dialog[open] #act-enquire');
      assert.equal(await other.locator('#unit-custom-button').count(), 0);
      await close(other);
      await patchProject({ sponsorsEnabled: false, walkscoreEnabled: false, customButtonEnabled: false, brochureButtonEnabled: false });
      const html = (await t.app.inject({ method: 'GET', url: `/p/${namespace}`, headers: { host: pagesHost } })).body;
      assert.doesNotMatch(html, /id="sponsors"|id="walkscore"|Acme Bank|project-brochure/);
      assert.match(html, /id="downloads"/);
    } finally {
      await patchProject({
        propertyType: '',
        websiteURL: '',
        enterpriseAddressDisplay: '',
        areaDescription: '',
        downloadableAssets: '',
        sponsors: '',
        walkscore: '',
        crfMessage: '',
        images: [],
        layouts: '',
        floorplans: '',
        brochureAssets: [],
        brochureButtonEnabled: true,
      });
    }
  });

  test("the group page follows the group's own switches: showPrices false hides prices the project shows; linkBehavior, websiteURL, the display address", async () => {
    const gns = `gs-${newObjectId().slice(-8)}`;
    const g = await createGroup(t.app, owner.auth, {
      name: 'Marked Group',
      query: { namespace: gns },
      body: { showPrices: false, pricesStartingAt: true, linkBehavior: 'Website', websiteURL: 'https://group.example.com/' },
    });
    const set = async (body: Record<string, unknown>) => {
      const res = await t.app.inject({ method: 'PATCH', url: `/groups/${g._id}`, headers: owner.auth, payload: body });
      assert.equal(res.statusCode, 200, res.body);
    };
    await set({ projects: [projectId] });
    await patchProject({ showPrices: true, websiteURL: 'https://quayside.example.com/', enterpriseAddressDisplay: 'Quay and Main (marked)' });
    try {
      for (const size of BOTH) {
        const page = await open(size, `/g/${gns}`, '.projects');
        assert.doesNotMatch(await page.evaluate(() => document.body.innerText), /From|\$\d/, 'no price though the project shows them');
        assert.equal(await page.getAttribute('#website-link', 'href'), 'https://group.example.com/');
        const link = page.locator('.projects .card h2 a');
        assert.equal(await link.getAttribute('href'), 'https://quayside.example.com/');
        assert.equal(await link.getAttribute('target'), '_blank');
        assert.equal(await page.textContent('.projects .card .address'), 'Quay and Main (marked)');
        await shot(page, 'group-switches', size);
        await close(page);
      }
      await set({ showPrices: true, linkBehavior: 'NewTab' });
      const page = await open('desktop', `/g/${gns}`, '.projects');
      assert.match((await page.textContent('.projects .card .summary')) ?? '', /From \$/);
      assert.equal(await page.getAttribute('.projects .card h2 a', 'href'), `/p/${namespace}`);
      assert.equal(await page.getAttribute('.projects .card h2 a', 'target'), '_blank');
      await close(page);
    } finally {
      await patchProject({ websiteURL: '', enterpriseAddressDisplay: '' });
    }
  });

  test('pricesStartingAt: "From <lowest price>" per floor in the building and for the project in the hero, among the homes on offer', async () => {
    await patchProject({ pricesStartingAt: true });
    await patchUnit('A1', { availability: 'sold' });
    try {
      for (const size of BOTH) {
        const page = await open(size, `/p/${namespace}`);
        await page.waitForSelector('#building');
        // A1 ($400,000) is sold: Level 1 starts at A2's $500,000; the project at B1's $410,000.
        assert.equal(await page.textContent(`#bfrom-${floors['Level 1']}`), 'From $500,000');
        assert.equal(await page.textContent(`#bfrom-${floors['Level 3']}`), 'From $420,000');
        assert.equal(await page.textContent('#project-from'), 'From $410,000');
        await shot(page, 'from-prices', size);
        await close(page);
      }
      // It follows the bundle (a sale, through the live feed), and goes with the switch.
      const page = await open('desktop', `/p/${namespace}`);
      await patchUnit('B1', { availability: 'sold' });
      await page.waitForFunction(() => document.getElementById('project-from')?.textContent === 'From $420,000');
      await patchProject({ pricesStartingAt: false });
      await page.reload();
      await page.waitForSelector('#building');
      assert.equal(await page.locator('#project-from:not(:empty)').count(), 0);
      assert.equal(await page.locator('[id^="bfrom-"]:not(:empty)').count(), 0);
      await close(page);
    } finally {
      await patchProject({ pricesStartingAt: false });
      for (const name of ['A1', 'B1']) await patchUnit(name, { availability: 'available' });
    }
  });
});
