import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  base,
  BOTH,
  close,
  namespace,
  noise,
  openPage,
  openUnit,
  patchProject,
  projectId,
  shot,
  skip,
  units,
  usePresentation,
  type Size,
} from './presentation-fixture.ts';
import { CalPages } from './support/cal-server.ts';

/**
 * "Book a visit" on the buyer's page (docs/integrations.md), in Chromium at a phone's size and a desktop's: in the hero
 * and in the unit sheet when the project has a `calUsername`, opening the project's Cal.com booking page (here a local
 * one, CAL_URL) in a new tab, nothing of it loaded before; prefilled with what the visitor gave, the project and unit in
 * the note and the metadata; in the page's language. Screenshots in test-results/ (page-booking-*).
 */
let pages: CalPages;
before(async () => {
  pages = await new CalPages(['quayside-sales']).listen();
});
after(async () => {
  await pages.close();
});
usePresentation({ env: () => ({ CAL_URL: pages.url }) });

/** Every request the page's context made to Cal.com's origin. */
function callsToCal(page: Page): string[] {
  const seen: string[] = [];
  page.context().on('request', (r) => {
    if (r.url().startsWith(pages.url)) seen.push(r.url());
  });
  return seen;
}

const press = (page: Page, size: Size, selector: string) => (size === 'phone' ? page.locator(selector).tap() : page.click(selector));

describe('the buyer’s page in Chromium: Book a visit (Cal.com)', { skip }, () => {
  test('none without calUsername; with it, in the hero and the unit sheet, loading nothing of Cal.com until pressed', async () => {
    const plain = await openPage('desktop');
    assert.equal(await plain.locator('#book-visit').count(), 0);
    await close(plain);
    await patchProject({ calUsername: 'quayside-sales' });
    for (const size of BOTH) {
      const page = await openPage(size);
      const cal = callsToCal(page);
      const hero = page.locator('#book-visit');
      await hero.waitFor();
      assert.equal(await hero.textContent(), 'Book a visit');
      assert.equal(await hero.getAttribute('href'), `${pages.url}/quayside-sales`);
      assert.equal(await hero.getAttribute('target'), '_blank');
      assert.equal(await hero.getAttribute('rel'), 'noopener noreferrer');
      await shot(page, 'booking-hero', size);
      await openUnit(page, size, 'A2');
      const inSheet = page.locator('#action-bar #unit-book-visit');
      await inSheet.waitFor();
      assert.ok(await inSheet.isVisible());
      await shot(page, 'booking-sheet', size);
      assert.deepEqual(cal, [], 'nothing was asked of Cal.com before a press');
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
    // The page's policy is unchanged: no frame, no script, no connection to Cal.com's origin is allowed.
    const csp = (await fetch(`${base}/p/${namespace}`)).headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.ok(!csp.includes(new URL(pages.url).host), csp);
    assert.ok(!/frame-src/.test(csp), csp);
  });

  test('pressed: a new tab on the booking page, prefilled with the visitor, the project and the unit; it cannot reach the page', async () => {
    await patchProject({ calUsername: 'quayside-sales' });
    for (const [size, unit, who] of [
      ['phone', 'A1', 'Nora'],
      ['desktop', 'B2', 'Omar'],
    ] as [Size, string, string][]) {
      const page = await openPage(size);
      await openUnit(page, size, unit);
      // The visitor leaves an enquiry first: the booking page then knows them.
      await page.locator('#contact-firstName').fill(who);
      await page.locator('#contact-lastName').fill('Buyer');
      await page.locator('#contact-email').fill(`${who.toLowerCase()}@example.com`);
      await page.locator('#contact-phone').fill('+1 555 0199');
      await press(page, size, '#contact-submit');
      await page.waitForFunction(() => /Thank you/.test(document.getElementById('contact-status')?.textContent ?? ''));
      const asked = pages.asked.length;
      const [tab] = await Promise.all([page.context().waitForEvent('page'), press(page, size, '#unit-book-visit')]);
      await tab.waitForLoadState();
      const url = new URL(tab.url());
      assert.equal(`${url.origin}${url.pathname}`, `${pages.url}/quayside-sales`);
      assert.equal(url.searchParams.get('name'), `${who} Buyer`);
      assert.equal(url.searchParams.get('email'), `${who.toLowerCase()}@example.com`);
      assert.equal(url.searchParams.get('notes'), `Visit of Quayside Lofts, unit ${unit}`);
      assert.equal(url.searchParams.get('metadata[unit]'), units[unit]);
      assert.equal(url.searchParams.get('metadata[unitName]'), unit);
      assert.equal(url.searchParams.get('metadata[project]'), projectId);
      // The booking page, once, when pressed (the browser also asks the new tab's origin for its icon).
      assert.deepEqual(
        pages.asked.slice(asked).filter((path) => path !== 'favicon.ico'),
        ['quayside-sales'],
      );
      assert.equal(await tab.evaluate(() => document.referrer), '', 'no referrer: the page’s address stays with it');
      assert.equal(await tab.evaluate(() => window.opener), null, 'no opener: the booking page cannot reach the page');
      await tab.close();
      // From the hero: the project, no unit.
      await page.locator('#close-dialog').click();
      const [fromHero] = await Promise.all([page.context().waitForEvent('page'), press(page, size, '#book-visit')]);
      const heroUrl = new URL(fromHero.url());
      assert.equal(heroUrl.searchParams.get('notes'), 'Visit of Quayside Lofts');
      assert.equal(heroUrl.searchParams.get('metadata[unit]'), null);
      assert.equal(heroUrl.searchParams.get('email'), `${who.toLowerCase()}@example.com`);
      await fromHero.close();
      await close(page);
    }
  });

  test('in the page’s language', async () => {
    await patchProject({ calUsername: 'quayside-sales', projectLang: 'fr' });
    try {
      for (const size of BOTH) {
        const page = await openPage(size);
        await page.locator('#book-visit').waitFor();
        assert.equal(await page.textContent('#book-visit'), 'Réserver une visite');
        await openUnit(page, size, 'C1');
        // Beside "Réserver" (hold), the sheet says the short word.
        assert.equal(await page.textContent('#unit-book-visit'), 'Visiter');
        const [tab] = await Promise.all([page.context().waitForEvent('page'), press(page, size, '#unit-book-visit')]);
        assert.equal(new URL(tab.url()).searchParams.get('notes'), 'Visite de Quayside Lofts, lot C1');
        await tab.close();
        await shot(page, 'booking-sheet-fr', size);
        await close(page);
      }
    } finally {
      await patchProject({ projectLang: 'en' });
    }
  });
});
