import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import {
  BOTH,
  close,
  inViewport,
  namespace,
  noise,
  openWide,
  owner,
  patchProject,
  projectId,
  skip,
  t,
  units,
  usePresentation,
  type Size,
} from './presentation-fixture.ts';
import { createFloor, createGroup, createProject, createUnit, ENGINE } from './helpers.ts';
import { newObjectId } from '../src/lib/object-id.ts';

/**
 * The group page as a buyer sees it, at a phone's size (390×844) and a desktop's (1440×900): each of the group's
 * settings set to a marked value through the API, and found (or found absent) where a buyer looks.
 */
usePresentation();

const SHOTS = '/work/wt/grouppage-shots';
const open = (size: Size, path: string) => openWide(size, path, 'main.group');
const shot = async (page: Page, state: string, size: Size) => {
  mkdirSync(SHOTS, { recursive: true });
  // What the buyer sees where the page stands, and the whole page.
  await page.screenshot({ path: `${SHOTS}/group-${state}-${size}-${ENGINE}.png` });
  await page.screenshot({ path: `${SHOTS}/group-${state}-${size}-${ENGINE}-full.png`, fullPage: true });
};
/** Everything the page says: its text and what a screen reader reads of its labels. */
const said = (page: Page) =>
  page.evaluate(
    () =>
      `${document.body.innerText}\n${[...document.querySelectorAll('[aria-label], [alt]')].map((el) => `${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('alt') ?? ''}`).join('\n')}`,
  );

let gns: string;
let groupId: string;
let otherNs: string;
const setGroup = async (body: Record<string, unknown>) => {
  const res = await t.app.inject({ method: 'PATCH', url: `/groups/${groupId}`, headers: owner.auth, payload: body });
  assert.equal(res.statusCode, 200, res.body);
};

describe(`the group page, as a buyer sees it (${ENGINE})`, { skip }, () => {
  before(async () => {
    gns = `grp-${newObjectId().slice(-8)}`;
    otherNs = `${gns}-harbour`;
    // A second project beside the fixture's Quayside Lofts: two homes, its own currency.
    const other = await createProject(t.app, owner.auth, {
      name: 'Harbour Rows',
      query: { namespace: otherNs },
      body: { showPrices: true, hideSold: false, payProviderCurrency: 'cad', projectImageUrl: '/p/assets/demo-view.webp', address: '9 Harbour Row' },
    });
    const f = await createFloor(t.app, owner.auth, other._id, { name: 'Row' });
    for (const [name, price] of [
      ['HR-1', 655000],
      ['HR-2', 689000],
    ] as const)
      await createUnit(t.app, owner.auth, other._id, {
        name,
        floor: f._id,
        body: { price, squareFeet: 88, bedrooms: '2', bathrooms: 2, layoutUrl: '/p/assets/demo-plan-2bed.svg' },
      });
    const g = await createGroup(t.app, owner.auth, {
      name: 'Waterfront Collection',
      query: { namespace: gns },
      body: { groupImageUrl: '/p/assets/demo-hero.webp', address: 'The Waterfront', colorBase: '#0b4f6c' },
    });
    groupId = g._id;
    await setGroup({ projects: [projectId, other._id] });
  });

  test('showPrices false while each project shows prices: no price anywhere; true with pricesStartingAt: "From" on the cards and a price on every home', async () => {
    await patchProject({ showPrices: true });
    await setGroup({ showPrices: false, pricesStartingAt: true, showAllUnits: true, showFloorOverview: true, showPriceFilter: true });
    for (const size of BOTH) {
      const page = await open(size, `/g/${gns}`);
      const text = await said(page);
      assert.match(text, /Quayside Lofts[\s\S]*Harbour Rows/);
      assert.match(text, /HR-1/, 'the homes are listed');
      assert.doesNotMatch(text, /\$|CA\$|From|Price\b/, 'no price, no "From", no price filter');
      await shot(page, 'no-prices', size);
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
    await setGroup({ showPrices: true });
    const page = await open('desktop', `/g/${gns}`);
    assert.match((await page.locator('.projects .card').first().locator('.summary').textContent()) ?? '', /From \$\d/);
    assert.equal(await page.locator('#group-units .g-unit .price').count(), 14, 'twelve homes of Quayside Lofts and two of Harbour Rows');
    assert.ok(await page.locator('#price-filter').isVisible());
    await close(page);
  });

  test('showAllUnits: every home of every project in one list, each naming its project; off: the project cards alone', async () => {
    await setGroup({ showAllUnits: true, hideSold: false, showAvailableFirst: false });
    for (const size of BOTH) {
      const page = await open(size, `/g/${gns}`);
      const names = await page.locator('#group-units .g-unit .name').allTextContents();
      assert.deepEqual(names, ['A1', 'A2', 'A3', 'A4', 'B1', 'B2', 'B3', 'B4', 'C1', 'C2', 'C3', 'C4', 'HR-1', 'HR-2']);
      assert.equal(await page.locator('#group-units .g-unit').last().locator('.g-unit-where').textContent(), 'Harbour Rows · Row');
      await page.locator('#group-units').scrollIntoViewIfNeeded();
      await shot(page, 'all-units', size);
      await close(page);
    }
    await setGroup({ showAllUnits: false });
    const page = await open('phone', `/g/${gns}`);
    assert.equal(await page.locator('#group-units, .g-unit').count(), 0);
    assert.equal(await page.locator('.projects .card').count(), 2);
    await close(page);
    await setGroup({ showAllUnits: true });
  });

  test('theme dark and groupLang: the page dark, in French', async () => {
    await setGroup({ theme: 'dark', groupLang: 'fr', showBranding: true });
    try {
      for (const size of BOTH) {
        const page = await open(size, `/g/${gns}`);
        assert.equal(await page.getAttribute('html', 'lang'), 'fr');
        assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(21, 24, 29)');
        const card = await page
          .locator('#group-units .g-unit')
          .first()
          .evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
        assert.deepEqual(card, ['rgb(31, 36, 44)', 'rgb(235, 232, 226)']);
        const text = await said(page);
        assert.match(text, /Projets[\s\S]*Logements/);
        assert.match(text, /Présentation par Showsuite/);
        assert.doesNotMatch(text, /\bSee the homes\b|\bHomes\b/);
        await shot(page, 'dark-fr', size);
        await close(page);
      }
    } finally {
      await setGroup({ theme: 'light', groupLang: 'en' });
    }
  });

  test('initialView and unitImageOnGrid: the grid shows the plan or the photo; the tabs switch views', async () => {
    await setGroup({ initialView: 'Grid', unitImageOnGrid: 'Unit Plan' });
    for (const size of BOTH) {
      const page = await open(size, `/g/${gns}`);
      assert.equal(await page.getAttribute('#view-grid', 'aria-current'), 'page');
      assert.match(
        (await page.locator(`#group-units a[href$="${units.A2}"]`).locator('xpath=ancestor::li').locator('img').getAttribute('src')) ?? '',
        /demo-plan-2bed\.svg$/,
      );
      await page.locator('#group-units').scrollIntoViewIfNeeded();
      await shot(page, 'grid-plans', size);
      // The list tab: rows without pictures.
      await (size === 'phone' ? page.locator('#view-list').tap() : page.click('#view-list'));
      await page.waitForSelector('#group-units.as-list');
      assert.equal(await page.locator('#group-units img').count(), 0);
      await close(page);
    }
    await setGroup({ unitImageOnGrid: 'Unit Image' });
    const page = await open('desktop', `/g/${gns}`);
    assert.match(
      (await page.locator(`#group-units a[href$="${units.A2}"]`).locator('xpath=ancestor::li').locator('img').getAttribute('src')) ?? '',
      /demo-living\.webp$/,
    );
    await close(page);
    // No map view on the group page yet: Map shows the list, and no Map tab is offered.
    await setGroup({ initialView: 'Map' });
    const map = await open('desktop', `/g/${gns}`);
    assert.equal(await map.getAttribute('#view-list', 'aria-current'), 'page');
    assert.equal(await map.locator('#view-map').count(), 0);
    await close(map);
    await setGroup({ initialView: 'List' });
  });

  test('the price filter: typed on a phone, the homes in range are left', async () => {
    await setGroup({ showPriceFilter: true, showAreaFilter: true, hideArea: false, showPrices: true });
    const page = await open('phone', `/g/${gns}`);
    await page.locator('#filter-minPrice').scrollIntoViewIfNeeded();
    await page.locator('#filter-minPrice').tap();
    await page.keyboard.type('650000');
    await page.locator('#filter-maxPrice').tap();
    await page.keyboard.type('700000');
    await page.locator('.g-filters button[type="submit"]').tap();
    await page.waitForURL(/minPrice=650000/);
    // Quayside Lofts' homes are $400,000 to $620,000; Harbour Rows' two are in range.
    assert.deepEqual(await page.locator('#group-units .g-unit .name').allTextContents(), ['HR-1', 'HR-2']);
    assert.equal(await page.inputValue('#filter-minPrice'), '650000');
    assert.ok(await inViewport(page, '#homes-title'), 'the answer opens at the homes');
    await shot(page, 'filtered', 'phone');
    await close(page);
  });

  test('linkBehavior: Service opens the project here, NewTab here in a new tab, Website the project’s own site', async () => {
    await setGroup({ linkBehavior: 'Service' });
    const here = await open('phone', `/g/${gns}`);
    await here.locator('.projects .card h2 a', { hasText: 'Quayside Lofts' }).tap();
    await here.waitForSelector('#app[aria-busy="false"]');
    assert.equal(new URL(here.url()).pathname, `/p/${namespace}`);
    await close(here);

    await setGroup({ linkBehavior: 'NewTab' });
    const tabbed = await open('desktop', `/g/${gns}`);
    const [popup] = await Promise.all([tabbed.context().waitForEvent('page'), tabbed.click(`#group-units a[href$="${units.B1}"]`)]);
    await popup.waitForSelector('dialog[open] #unit-title');
    assert.equal(new URL(popup.url()).pathname, `/p/${namespace}/units/${units.B1}`);
    assert.equal(new URL(tabbed.url()).pathname, `/g/${gns}`, 'the group page stays open');
    await close(tabbed);

    await patchProject({ websiteURL: 'https://quayside.example.com/' });
    try {
      await setGroup({ linkBehavior: 'Website' });
      for (const size of BOTH) {
        const page = await open(size, `/g/${gns}`);
        const card = page.locator('.projects .card h2 a', { hasText: 'Quayside Lofts' });
        assert.equal(await card.getAttribute('href'), 'https://quayside.example.com/');
        assert.equal(await card.getAttribute('target'), '_blank');
        assert.equal(
          await page.locator('.projects .card h2 a', { hasText: 'Harbour Rows' }).getAttribute('href'),
          `/p/${otherNs}`,
          'no website: its page here',
        );
        await close(page);
      }
    } finally {
      await patchProject({ websiteURL: '' });
      await setGroup({ linkBehavior: 'Service' });
    }
  });
});
