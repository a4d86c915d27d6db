import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import {
  base,
  BOTH,
  close,
  consoleBase,
  namespace,
  openWide,
  openUnit,
  owner,
  patchProject,
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
import { createGroup } from './helpers.ts';
import { newObjectId } from '../src/lib/object-id.ts';

/**
 * The units' fields on the buyer's page: each set to a marked value through the API and looked for where a buyer
 * looks (the list, the unit sheet, the building, the group page), and gone with its switch off, at a phone's size
 * (390×844) and a desktop's (1440×900). The embed code and the button's snippet are looked for inside their sandboxed
 * frames, and their absence from the page's own document checked.
 */
usePresentation();

const open = openWide;
const OWN_SHOTS = '/work/wt/unitfields-shots';
mkdirSync(OWN_SHOTS, { recursive: true });
const ownShot = (page: Page, name: string, size: Size, fullPage = false) => page.screenshot({ path: `${OWN_SHOTS}/${name}-${size}.png`, fullPage });

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
const listPage = (size: Size) => open(size, `/p/${namespace}?view=list`, '#results[data-view="list"]');
const sheetText = (page: Page) => page.locator('dialog[open] #detail-info').innerText();
/** The names of the cards of the homes' grid, in order. */
const homeNames = (page: Page) => texts(page, '#results > ul.grid .card .name, #results > .list-parts > ul.grid .card .name');

describe('units’ extras on the buyer’s page', { skip }, () => {
  test('isFeatured: a Featured mark in colorFeatured (else the accent) on the card and the sheet, featured homes first; off, neither', async () => {
    await patchUnit('C2', { isFeatured: true });
    await patchProject({ colorFeatured: '#6a1b9a', colorAccent: '#00695c' });
    try {
      for (const size of BOTH) {
        const page = await listPage(size);
        assert.equal((await homeNames(page))[0], 'C2', 'the featured home comes first in the default order');
        const mark = page.locator(`#unit-${units.C2} .featured-badge`);
        assert.equal(await mark.textContent(), 'Featured');
        assert.equal(await mark.evaluate((el) => getComputedStyle(el).backgroundColor), rgb('#6a1b9a'));
        assert.equal(await page.locator('.card .featured-badge').count(), 1, 'only the featured unit is marked');
        await openUnit(page, size, 'C2');
        assert.equal(await page.locator('#unit-title .featured-badge').textContent(), 'Featured');
        await shot(page, 'units-featured', size);
        await close(page);
      }
      // No colorFeatured: the accent paints it.
      await patchProject({ colorFeatured: '' });
      const page = await listPage('desktop');
      assert.equal(await page.locator(`#unit-${units.C2} .featured-badge`).evaluate((el) => getComputedStyle(el).backgroundColor), rgb('#00695c'));
      await close(page);
      await patchUnit('C2', { isFeatured: false });
      for (const size of BOTH) {
        const off = await listPage(size);
        assert.equal(await off.locator('.featured-badge').count(), 0);
        assert.equal((await homeNames(off))[0], 'A1', 'back to the floors’ order');
        await close(off);
      }
    } finally {
      await patchUnit('C2', { isFeatured: false });
      await patchProject({ colorFeatured: '', colorAccent: '' });
    }
  });

  test('type and specificType: the layout’s name on card and sheet; parking, amenities and storage under their own headings, never counted as homes', async () => {
    await patchUnit('A1', { type: 'Model Aster (marked)' });
    // The cheapest unit, with a bedroom count no home has: neither may reach the homes' from-price or filters.
    await patchUnit('B4', { specificType: 'parking', price: 1000, bedrooms: '9' });
    await patchUnit('C4', { specificType: 'amenities' });
    await patchUnit('A4', { specificType: 'Storage' });
    await patchProject({ pricesStartingAt: true });
    const gns = `g-${newObjectId().slice(-10)}`;
    const g = await createGroup(t.app, owner.auth, { name: 'Spaces Group', query: { namespace: gns } });
    const res = await t.app.inject({ method: 'PATCH', url: `/groups/${g._id}`, headers: owner.auth, payload: { projects: [projectId] } });
    assert.equal(res.statusCode, 200, res.body);
    try {
      for (const size of BOTH) {
        const page = await listPage(size);
        assert.equal(await page.textContent('#result-count'), '9 homes', 'twelve units, three of them no homes');
        assert.equal(await page.textContent('#spaces-parking h2'), 'Parking');
        assert.equal(await page.textContent('#spaces-amenities h2'), 'Amenities');
        assert.equal(await page.textContent('#spaces-storage h2'), 'Storage');
        assert.equal(await page.locator(`#spaces-parking #unit-${units.B4}`).count(), 1);
        assert.ok(!(await homeNames(page)).some((n) => ['A4', 'B4', 'C4'].includes(n)), 'not among the homes');
        assert.equal(await page.textContent(`#unit-${units.A1} .unit-type`), 'Model Aster (marked)');
        const hero = (await page.textContent('#project-from')) ?? '';
        assert.match(hero, /From \$400,000/, `the lowest home's price, not the parking's: ${hero}`);
        const beds = await page.locator('#f-bedrooms option').allTextContents();
        assert.ok(!beds.includes('9'), `no bedroom count of a parking space among the filters: ${beds.join(',')}`);
        // A filter leaves the other spaces listed, and they are not in its count.
        await page.evaluate(() => history.replaceState(null, '', `${location.pathname}?view=list&beds=2`));
        await page.reload();
        await page.waitForSelector('#app[aria-busy="false"]');
        assert.equal(await page.textContent('#result-count'), '6 homes');
        assert.equal(await page.locator(`#spaces-parking #unit-${units.B4}`).count(), 1);
        await page.evaluate(() => history.replaceState(null, '', `${location.pathname}?view=list`));
        await page.reload();
        await page.waitForSelector('#app[aria-busy="false"]');
        await shot(page, 'units-spaces', size, true);
        await openUnit(page, size, 'A1');
        assert.match(await sheetText(page), /Layout type\s+Model Aster \(marked\)/);
        await close(page);
        // The building: each floor's available count is of its homes.
        const building = await open(size, `/p/${namespace}?view=building`, '#building');
        const counts = await texts(building, '.floor-row .fcount');
        assert.deepEqual(counts, ['3 available', '3 available', '3 available'], counts.join(' | '));
        await close(building);
      }
      // In the page's language: French headings.
      await patchProject({ projectLang: 'fr' });
      const fr = await listPage('phone');
      assert.equal(await fr.textContent('#spaces-parking h2'), 'Stationnement');
      assert.equal(await fr.textContent('#spaces-amenities h2'), 'Espaces communs');
      await close(fr);
      await patchProject({ projectLang: 'en' });
      // The group page counts homes only (the server's count).
      const group = await open('desktop', `/g/${gns}`, '.projects');
      assert.match((await group.textContent('.projects .card .count')) ?? '', /^9 available/);
      await close(group);
    } finally {
      await patchUnit('A1', { type: '' });
      await patchUnit('B4', { specificType: 'unit', price: 730000, bedrooms: '3' });
      await patchUnit('C4', { specificType: 'unit' });
      await patchUnit('A4', { specificType: 'unit' });
      await patchProject({ pricesStartingAt: false, projectLang: 'en' });
    }
  });

  test('showInclusions, showUnitFinishes, showUnitCustomFinishes: the unit’s inclusions, finishes and the packages’ tabs with its choice marked; off, none', async () => {
    const tab = (label: string, pic: string) => ({ label, cover: `/p/assets/${pic}`, thumbnail: '/p/assets/demo-living.webp' });
    await patchProject({
      showInclusions: true,
      showUnitFinishes: true,
      showUnitCustomFinishes: true,
      customFinishes: {
        name: 'Urban (marked)',
        options: {
          kitchen: { tabs: [tab('Walnut cabinets', 'demo-kitchen.webp')] },
          bathroom: { tabs: [tab('Marble tiles', 'demo-view.webp')] },
          general: { tabs: [tab('Oak floors', 'demo-living.webp')] },
        },
      },
    });
    await patchUnit('B1', {
      inclusions: 'Dishwasher (marked)\nWasher and dryer',
      finishes: ['Quartz counters (marked)'],
      clonedFinishes: ['Brass fixtures (cloned)'],
      customFinishes: { type: { name: 'Urban (marked)' }, default: {} },
    });
    try {
      for (const size of BOTH) {
        const page = await listPage(size);
        await openUnit(page, size, 'B1');
        assert.deepEqual(await texts(page, '#unit-inclusions li'), ['Dishwasher (marked)', 'Washer and dryer']);
        assert.deepEqual(await texts(page, '#unit-finishes li'), ['Quartz counters (marked)', 'Brass fixtures (cloned)']);
        const pkg = page.locator('#unit-packages .pkg');
        await pkg.first().waitFor();
        assert.equal(await pkg.count(), 1);
        assert.equal(await pkg.getAttribute('aria-current'), 'true', 'the unit’s own choice is marked');
        assert.match((await pkg.locator('h4').textContent()) ?? '', /Urban \(marked\).*This home’s choice/);
        assert.deepEqual(await texts(page, '#unit-packages .pkg-rooms button'), ['Kitchen', 'Bathroom', 'General']);
        assert.deepEqual(await texts(page, '#unit-packages .pkg-tab figcaption'), ['Walnut cabinets']);
        const bathroom = page.locator('#unit-packages [data-room="bathroom"]');
        await bathroom.scrollIntoViewIfNeeded();
        await (size === 'phone' ? bathroom.tap() : bathroom.click());
        assert.deepEqual(await texts(page, '#unit-packages .pkg-tab figcaption'), ['Marble tiles']);
        assert.match((await page.getAttribute('#unit-packages .pkg-cover', 'src')) ?? '', /demo-view\.webp$/);
        assert.match((await page.getAttribute('#unit-packages .pkg-thumb', 'src')) ?? '', /demo-living\.webp$/);
        await page.locator('#unit-packages').scrollIntoViewIfNeeded();
        await shot(page, 'units-finishes', size);
        await close(page);
      }
      await patchProject({ showInclusions: false, showUnitFinishes: false, showUnitCustomFinishes: false });
      for (const size of BOTH) {
        const page = await listPage(size);
        await openUnit(page, size, 'B1');
        await page.waitForSelector('#unit-more');
        assert.equal(await page.locator('#unit-inclusions, #unit-finishes, #unit-packages').count(), 0);
        assert.doesNotMatch(await sheetText(page), /marked|cloned/);
        await close(page);
      }
    } finally {
      await patchProject({ showInclusions: false, showUnitFinishes: false, showUnitCustomFinishes: false });
      await patchUnit('B1', { inclusions: '', finishes: [], clonedFinishes: [], customFinishes: {} });
    }
  });

  test('showVariants: other homes of the same layout; similarSortingBy orders the similar homes (default, price, area, floor)', async () => {
    for (const name of ['A1', 'B1', 'C1']) await patchUnit(name, { type: 'Model Aster' });
    // Two-bedroom homes: A2 500k/100, A3 500k/100, B2 510k/101, B3 510k/101, C2 520k/102, C3 520k/102; made apart.
    await patchUnit('C3', { price: 450000 });
    await patchUnit('C2', { squareFeet: 60 });
    const similar = async (page: Page) => {
      await page.waitForSelector('#unit-similar');
      return texts(page, '#unit-similar .mini-home strong');
    };
    try {
      await patchProject({ showVariants: true, similarSortingBy: 'default' });
      for (const size of BOTH) {
        const page = await listPage(size);
        await openUnit(page, size, 'A1');
        await page.waitForSelector('#unit-variants');
        assert.deepEqual(await texts(page, '#unit-variants .mini-home strong'), ['B1', 'C1']);
        assert.equal(await page.textContent('#unit-variants h3'), 'Other homes of this layout');
        await page.locator('#unit-variants').scrollIntoViewIfNeeded();
        await shot(page, 'units-variants', size);
        // A variant opens its own sheet.
        const b1 = page.locator(`#unit-variants [data-unit="${units.B1}"]`);
        await (size === 'phone' ? b1.tap() : b1.click());
        await page.waitForFunction(() => (document.querySelector('dialog[open] #unit-title')?.textContent ?? '').startsWith('B1'));
        await close(page);
        const two = await listPage(size);
        await openUnit(two, size, 'A2');
        assert.deepEqual(await similar(two), ['A3', 'B2', 'B3', 'C2', 'C3'], 'default: the floors’ order');
        await close(two);
      }
      const order = async (by: string) => {
        await patchProject({ similarSortingBy: by });
        const page = await listPage('desktop');
        await openUnit(page, 'desktop', 'A2');
        const names = await similar(page);
        await close(page);
        return names;
      };
      assert.deepEqual((await order('price'))[0], 'C3', 'price: the cheapest first');
      assert.deepEqual((await order('area'))[0], 'C2', 'area: the smallest first');
      assert.deepEqual(await order('floor'), ['A3', 'B2', 'B3', 'C2', 'C3']);
      await patchProject({ showVariants: false });
      for (const size of BOTH) {
        const page = await listPage(size);
        await openUnit(page, size, 'A1');
        await page.waitForSelector('#unit-more');
        assert.equal(await page.locator('#unit-variants').count(), 0);
        // Without variants, homes of the layout may be among the similar ones (one bedroom, like A1).
        assert.deepEqual((await similar(page)).slice(0, 2), ['B1', 'C1']);
        await close(page);
      }
    } finally {
      for (const name of ['A1', 'B1', 'C1']) await patchUnit(name, { type: '' });
      await patchUnit('C3', { price: 520000 });
      await patchUnit('C2', { squareFeet: 102 });
      await patchProject({ showVariants: false, similarSortingBy: 'default' });
    }
  });

  test('downloadableAsset, clonedImages, additionalInfo, and embedCode run in a sandboxed frame of the pages origin, never in the page', async () => {
    const embed =
      '<p id="m">EMBED-MARK</p><script>var r;try{r=String(parent.document.title)}catch(e){r="parent-blocked"}' +
      'document.getElementById("m").textContent="EMBED-RAN:"+self.origin+":"+r;</script>';
    await patchProject({ showAdditionalInfo: true });
    await patchUnit('A2', {
      downloadableAsset: '/p/assets/demo-plan-2bed.svg',
      clonedImages: ['/p/assets/demo-view.webp'],
      additionalInfo: [{ label: 'Ceiling height', value: '2.9 m (marked)' }],
      embedCode: embed,
    });
    try {
      for (const size of BOTH) {
        const page = await listPage(size);
        await openUnit(page, size, 'A2');
        assert.equal(await page.getAttribute('#unit-download', 'href'), `${base}/p/assets/demo-plan-2bed.svg`);
        assert.equal(await page.textContent('#unit-download'), 'Download: demo-plan-2bed.svg');
        const gallery = await page.locator('#unit-gallery img').evaluateAll((els) => els.map((el) => el.getAttribute('src')));
        assert.ok(
          gallery.some((src) => src?.endsWith('/demo-view.webp')),
          `the cloned picture is in the gallery: ${gallery.join(' ')}`,
        );
        assert.match(await sheetText(page), /Ceiling height\s+2\.9 m \(marked\)/);
        const frameEl = page.locator('iframe#unit-embed');
        assert.equal(await frameEl.getAttribute('sandbox'), 'allow-scripts allow-popups allow-popups-to-escape-sandbox allow-forms allow-presentation');
        assert.equal(await frameEl.getAttribute('src'), `/p/${namespace}/units/${units.A2}/embed`);
        await frameEl.scrollIntoViewIfNeeded();
        const inFrame = page.frameLocator('iframe#unit-embed').locator('#m');
        await inFrame.waitFor();
        const frame = page.frames().find((f) => f.url().endsWith(`/units/${units.A2}/embed`));
        assert.ok(frame, 'the frame loaded its document');
        assert.equal(new URL(frame.url()).origin, base, 'served by the pages origin');
        await frame.waitForFunction(() => document.getElementById('m')?.textContent?.startsWith('EMBED-RAN'));
        assert.equal(await inFrame.textContent(), 'EMBED-RAN:null:parent-blocked', 'an opaque origin that cannot reach the page');
        assert.equal(await page.locator('#m').count(), 0, 'nothing of the code in the page’s own document');
        await ownShot(page, 'unit-embed', size);
        await close(page);
      }
      // The frame's document: sandboxed by its own policy, whoever loads it; on the console's host, sent to the pages host.
      const direct = await fetch(`${base}/p/${namespace}/units/${units.A2}/embed`);
      assert.equal(direct.status, 200);
      assert.match(direct.headers.get('content-security-policy') ?? '', /^sandbox allow-scripts /);
      assert.doesNotMatch(direct.headers.get('content-security-policy') ?? '', /allow-same-origin/);
      assert.match(await direct.text(), /EMBED-MARK/);
      const onConsole = await fetch(`${consoleBase}/p/${namespace}/units/${units.A2}/embed`, { redirect: 'manual' });
      assert.equal(onConsole.status, 308);
      assert.equal(onConsole.headers.get('location'), `${base}/p/${namespace}/units/${units.A2}/embed`);
      // Without them: no download, no cloned picture, no frame; the frame's address answers 404.
      await patchUnit('A2', { downloadableAsset: '', clonedImages: [], embedCode: '' });
      await patchProject({ showAdditionalInfo: false });
      for (const size of BOTH) {
        const page = await listPage(size);
        await openUnit(page, size, 'A2');
        assert.equal(await page.locator('#unit-download, iframe#unit-embed').count(), 0);
        assert.doesNotMatch(await sheetText(page), /Ceiling height/);
        await close(page);
      }
      assert.equal((await fetch(`${base}/p/${namespace}/units/${units.A2}/embed`)).status, 404);
    } finally {
      await patchUnit('A2', { downloadableAsset: '', clonedImages: [], additionalInfo: [], embedCode: '' });
      await patchProject({ showAdditionalInfo: false });
    }
  });

  test('the custom button: url (http(s) only, same or new tab) and snippet (in a sandboxed frame in the sheet, or its own tab); off, none', async () => {
    const snippet = '<p id="s">SNIPPET-MARK</p><script>document.getElementById("s").textContent="SNIPPET-RAN:"+self.origin;</script>';
    await patchProject({
      customButtonEnabled: true,
      customButtonText: 'Book a visit (marked)',
      customButtonIcon: '/p/assets/demo-logo.svg',
      customButtonOpensAt: 'new_tab',
      customButtonActionType: 'url',
    });
    await patchUnit('B2', { customButtonUrl: 'https://example.com/book?unit=B2', customButtonSnippet: snippet });
    await patchUnit('B3', { customButtonUrl: 'javascript:alert(1)' });
    try {
      for (const size of BOTH) {
        const page = await listPage(size);
        await openUnit(page, size, 'B2');
        const button = page.locator('#action-bar #unit-custom-button');
        assert.equal(await button.textContent(), 'Book a visit (marked)');
        assert.equal(await button.getAttribute('href'), 'https://example.com/book?unit=B2');
        assert.equal(await button.getAttribute('target'), '_blank');
        assert.match((await button.locator('img').getAttribute('src')) ?? '', /demo-logo\.svg$/);
        await page.keyboard.press('Escape');
        await page.waitForFunction(() => !document.querySelector('dialog[open]'));
        await openUnit(page, size, 'B3');
        assert.equal(await page.locator('#unit-custom-button').count(), 0, 'no javascript: address');
        await close(page);
      }
      // The snippet, opened in the sheet.
      await patchProject({ customButtonActionType: 'snippet', customButtonOpensAt: 'same_tab' });
      for (const size of BOTH) {
        const page = await listPage(size);
        await openUnit(page, size, 'B2');
        const button = page.locator('#action-bar #unit-custom-button');
        assert.equal(await button.evaluate((el) => el.tagName), 'BUTTON');
        await (size === 'phone' ? button.tap() : button.click());
        const frameEl = page.locator('iframe#unit-snippet');
        await frameEl.waitFor();
        assert.equal(await frameEl.getAttribute('src'), `/p/${namespace}/units/${units.B2}/button`);
        assert.doesNotMatch((await frameEl.getAttribute('sandbox')) ?? '', /allow-same-origin/);
        await frameEl.scrollIntoViewIfNeeded();
        const inFrame = page.frameLocator('iframe#unit-snippet').locator('#s');
        await inFrame.waitFor();
        const frame = page.frames().find((f) => f.url().endsWith(`/units/${units.B2}/button`));
        assert.ok(frame);
        await frame.waitForFunction(() => document.getElementById('s')?.textContent?.startsWith('SNIPPET-RAN'));
        assert.equal(await inFrame.textContent(), 'SNIPPET-RAN:null');
        assert.equal(new URL(frame.url()).origin, base);
        assert.equal(await page.locator('#s').count(), 0, 'the snippet is not in the page’s document');
        await ownShot(page, 'unit-snippet', size);
        await close(page);
      }
      // In a tab of its own: the frame's document, still sandboxed by its policy.
      await patchProject({ customButtonOpensAt: 'new_tab' });
      const page = await listPage('desktop');
      await openUnit(page, 'desktop', 'B2');
      const link = page.locator('#action-bar a#unit-custom-button');
      assert.equal(await link.getAttribute('target'), '_blank');
      const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
      await tab.waitForLoadState();
      assert.equal(new URL(tab.url()).origin, base);
      await tab.waitForFunction(() => document.getElementById('s')?.textContent?.startsWith('SNIPPET-RAN'));
      assert.equal(await tab.textContent('#s'), 'SNIPPET-RAN:null');
      await close(page);
      // Off: no button, and the snippet's address answers 404.
      await patchProject({ customButtonEnabled: false });
      for (const size of BOTH) {
        const off = await listPage(size);
        await openUnit(off, size, 'B2');
        assert.equal(await off.locator('#unit-custom-button').count(), 0);
        await close(off);
      }
      assert.equal((await fetch(`${base}/p/${namespace}/units/${units.B2}/button`)).status, 404);
    } finally {
      await patchProject({
        customButtonEnabled: false,
        customButtonText: '',
        customButtonIcon: '',
        customButtonActionType: 'url',
        customButtonOpensAt: 'same_tab',
      });
      await patchUnit('B2', { customButtonUrl: '', customButtonSnippet: '' });
      await patchUnit('B3', { customButtonUrl: '' });
    }
  });

  test('a unit with every field filled, at both sizes (screenshots)', async () => {
    await patchProject({
      colorFeatured: '#6a1b9a',
      showInclusions: true,
      showUnitFinishes: true,
      showUnitCustomFinishes: true,
      showVariants: true,
      showAdditionalInfo: true,
      similarSortingBy: 'price',
      customButtonEnabled: true,
      customButtonText: 'Book a visit',
      customButtonActionType: 'url',
      customFinishes: {
        name: 'Urban',
        options: {
          kitchen: { tabs: [{ label: 'Walnut cabinets', cover: '/p/assets/demo-kitchen.webp', thumbnail: '/p/assets/demo-living.webp' }] },
          bathroom: { tabs: [{ label: 'Marble tiles', cover: '/p/assets/demo-view.webp', thumbnail: '/p/assets/demo-view.webp' }] },
          general: { tabs: [{ label: 'Oak floors', cover: '/p/assets/demo-living.webp', thumbnail: '/p/assets/demo-living.webp' }] },
        },
      },
    });
    for (const name of ['B2', 'C2', 'A2']) await patchUnit(name, { type: 'Model Birch' });
    await patchUnit('B2', {
      isFeatured: true,
      inclusions: 'Dishwasher\nWasher and dryer',
      finishes: ['Quartz counters'],
      clonedFinishes: ['Brass fixtures'],
      customFinishes: { type: { name: 'Urban' }, default: {} },
      downloadableAsset: '/p/assets/demo-plan-2bed.svg',
      clonedImages: ['/p/assets/demo-view.webp'],
      additionalInfo: [{ label: 'Ceiling height', value: '2.9 m' }],
      embedCode: '<div style="display:grid;place-items:center;height:100%;background:#123;color:#fff;font:20px sans-serif">Video tour</div>',
      customButtonUrl: 'https://example.com/book',
    });
    await patchUnit('A4', { specificType: 'parking' });
    try {
      for (const size of BOTH) {
        const page = await listPage(size);
        await ownShot(page, 'list-all-fields', size, true);
        await openUnit(page, size, 'B2');
        await page.waitForSelector('#unit-similar');
        await page.frameLocator('iframe#unit-embed').locator('div').waitFor();
        await ownShot(page, 'sheet-all-fields-top', size);
        const body = page.locator('#sheet-body');
        const height = await body.evaluate((el) => el.scrollHeight);
        for (let y = 1, i = 1; y < height && i < 8; i++) {
          y = await body.evaluate((el) => {
            el.scrollTop += el.clientHeight * 0.9;
            return el.scrollTop + el.clientHeight;
          });
          await ownShot(page, `sheet-all-fields-${i}`, size);
          if (y >= height) break;
        }
        await close(page);
      }
    } finally {
      for (const name of ['B2', 'C2', 'A2']) await patchUnit(name, { type: '' });
      await patchUnit('B2', {
        isFeatured: false,
        inclusions: '',
        finishes: [],
        clonedFinishes: [],
        customFinishes: {},
        downloadableAsset: '',
        clonedImages: [],
        additionalInfo: [],
        embedCode: '',
        customButtonUrl: '',
      });
      await patchUnit('A4', { specificType: 'unit' });
    }
  });
});
