import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browser, close, namespace, noise, openPage, patchProject, shot, skip, units, usePresentation, type Size } from './presentation-fixture.ts';

/** Realtor access kept for the browser session: a new tab does not ask again; prices in the realtor's list. */
usePresentation({ env: () => ({ ALLOCATION_OPENS_PER_MINUTE: '100' }) });

const press = (page: Page, size: Size, selector: string) => (size === 'phone' ? page.locator(selector).tap() : page.click(selector));
const allocated = (page: Page, id: string) => page.waitForFunction((id) => document.getElementById(`unit-${id}`)?.dataset.allocated === 'true', id);

describe('the presentation page in Chromium: a realtor’s session across tabs', { skip }, () => {
  test('signed in once, a new tab of the same browser session opens signed in; signing out there signs out every tab; prices in the list', async () => {
    await patchProject({ allocations: [{ name: 'North Realty', password: 'north-pass-1', allocation: 'C1, C2' }] });
    for (const size of ['desktop', 'phone'] as Size[]) {
      // A desktop of 1440 × 900 and a phone of 390 × 844.
      const context = size === 'desktop' ? await browser.newContext({ viewport: { width: 1440, height: 900 } }) : undefined;
      const first = await openPage(size, `/p/${namespace}?view=list`, context ? { context } : {});
      await press(first, size, '#realtor-entry');
      await first.locator('#realtor-password').fill('north-pass-1');
      await press(first, size, '#realtor-open');
      await first.waitForSelector('#realtor-units');
      // The realtor's list: each unit with its price, as the page formats prices.
      assert.deepEqual(await first.locator('#realtor-units li').evaluateAll((li) => li.map((l) => l.querySelector('.price')?.textContent)), [
        '$420,000',
        '$520,000',
      ]);
      assert.match((await first.locator('#choice-1 option').nth(1).textContent()) ?? '', /\$\d{3},000/);
      await shot(first, 'realtor-prices', size);
      await first.keyboard.press('Escape');

      // A new tab (not a copy of this one: its sessionStorage starts empty) in the same browser session.
      const second = await openPage(size, `/p/${namespace}?view=list`, { context: first.context() });
      await allocated(second, units.C1!);
      await press(second, size, '#realtor-entry');
      await second.waitForSelector('#realtor-name');
      assert.match((await second.locator('#realtor-name').textContent()) ?? '', /North Realty/);
      assert.equal(await second.locator('#realtor-password').count(), 0, 'no password asked');
      await shot(second, 'realtor-new-tab', size);

      // Signing out in one tab ends the session in the other too.
      await press(second, size, '#realtor-leave');
      await second.waitForSelector('#realtor-password');
      await first.waitForFunction((id) => document.getElementById(`unit-${id}`)?.dataset.availability === 'unavailable', units.C1!);
      assert.equal(await first.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('showsuite:realtor')).length), 0);
      assert.deepEqual(noise.get(first), []);
      assert.deepEqual(noise.get(second), []);
      await close(first);

      // A browser session with no tab left open (a new context): the password is asked again.
      const later = await openPage(
        size,
        `/p/${namespace}?view=list`,
        size === 'desktop' ? { context: await browser.newContext({ viewport: { width: 1440, height: 900 } }) } : {},
      );
      await press(later, size, '#realtor-entry');
      await later.waitForSelector('#realtor-password');
      await close(later);
    }
  });
});
