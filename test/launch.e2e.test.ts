import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  browser,
  close,
  mailedHoldLink,
  namespace,
  noise,
  openPage,
  patchProject,
  patchUnit,
  projectId,
  owner,
  shot,
  SIZES,
  skip,
  t,
  units,
  usePresentation,
  type Size,
} from './presentation-fixture.ts';

/** Launch day on the buyer's page: a realtor's access and worksheet; a priority mail's link landing on the held unit. */
usePresentation({ mail: true, env: () => ({ ALLOCATION_OPENS_PER_MINUTE: '100' }) });

const press = (page: Page, size: Size, selector: string) => (size === 'phone' ? page.locator(selector).tap() : page.click(selector));
const type = async (page: Page, selector: string, text: string) => {
  const input = page.locator(selector);
  await input.fill('');
  await input.pressSequentially(text);
};

describe('the presentation page in Chromium: launch day', { skip }, () => {
  test('Realtor access: a wrong password is refused; the right one marks the realtor’s units theirs; one worksheet form submits', async () => {
    await patchProject({ allocations: [{ name: 'North Realty', password: 'north-pass-1', allocation: 'C1, C2' }] });
    for (const size of ['phone', 'desktop'] as Size[]) {
      const page = await openPage(size, `/p/${namespace}?view=list`);
      // To the public, the allocated units are not available.
      assert.equal(await page.getAttribute(`#unit-${units.C1}`, 'data-availability'), 'unavailable');
      await press(page, size, '#realtor-entry');
      await page.waitForSelector('#realtor[open] #realtor-password');
      await type(page, '#realtor-password', 'wrong-pass');
      await press(page, size, '#realtor-open');
      await page.waitForFunction(() => /does not open/.test(document.getElementById('realtor-status')?.textContent ?? ''));
      await type(page, '#realtor-password', 'north-pass-1');
      await press(page, size, '#realtor-open');
      await page.waitForSelector('#realtor-name');
      assert.match((await page.locator('#realtor-name').textContent()) ?? '', /North Realty/);
      assert.deepEqual(await page.locator('#realtor-units li').evaluateAll((li) => li.map((l) => l.getAttribute('data-unit'))), [units.C1, units.C2]);
      await shot(page, 'realtor-open', size);

      // Choices from their list (Add to worksheet) and from every unit (the selects), in order.
      await press(page, size, `#realtor-units li[data-unit="${units.C2}"] button`);
      await page.selectOption('#choice-2', units.A1!);
      await type(page, '#worksheet-form input[name="firstName"]', 'Bea');
      await type(page, '#worksheet-form input[name="lastName"]', `Buyer-${size}`);
      await type(page, '#worksheet-form input[name="email"]', 'bea@example.com');
      await type(page, '#worksheet-form input[name="phone"]', '+1 555 0102');
      await press(page, size, '#worksheet-submit');
      await page.waitForFunction(() => /Worksheet submitted/.test(document.getElementById('worksheet-status')?.textContent ?? ''));
      await page.locator('#worksheet-status').scrollIntoViewIfNeeded();
      await shot(page, 'worksheet-sent', size);
      const sheets = (await t.app.inject({ method: 'GET', url: `/projects/${projectId}/worksheets`, headers: owner.auth })).json();
      const mine = sheets.find((w: { buyer: { lastName: string } }) => w.buyer.lastName === `Buyer-${size}`);
      assert.deepEqual(mine.choices, [units.C2, units.A1]);
      assert.equal(mine.allocation, 'North Realty');

      // Closed: the list shows the realtor's units as they are, marked theirs.
      await page.keyboard.press('Escape');
      await page.waitForFunction((id) => document.getElementById(`unit-${id}`)?.dataset.allocated === 'true', units.C1);
      assert.equal(await page.getAttribute(`#unit-${units.C1}`, 'data-availability'), 'available');
      await page.locator(`#unit-${units.C1}`).scrollIntoViewIfNeeded();
      await shot(page, 'realtor-list', size);
      // The wrong password's 401 is the one failed request the browser reports.
      assert.deepEqual(
        noise.get(page)!.filter((n) => !/status of 401/.test(n)),
        [],
      );
      await close(page);
    }
  });

  test('a priority mail’s link opens the page on the held unit with its countdown', async () => {
    await patchProject({ waitlistEnabled: true, priorityList: true });
    const cases: [Size, string][] = [
      ['phone', 'B3'],
      ['desktop', 'B4'],
    ];
    for (const [size, name] of cases) {
      await patchUnit(name, { availability: 'sold' });
      const email = `first-${size}@example.com`;
      const joined = await t.app.inject({
        method: 'POST',
        url: '/public/waitlist',
        payload: { namespace, firstName: 'Fay', lastName: 'First', email, unit: units[name] },
      });
      assert.equal(joined.statusCode, 201);
      await patchUnit(name, { availability: 'available' });
      const link = await mailedHoldLink(email);
      const page = await browser.newContext(SIZES[size]).then((c) => c.newPage());
      await page.goto(link);
      await page.waitForSelector('dialog[open]');
      await page.waitForFunction(() => /Held for you for \d+:\d\d/.test(document.getElementById('hold-countdown')?.textContent ?? ''));
      assert.match((await page.locator('#unit-title').textContent()) ?? '', new RegExp(name));
      assert.equal(await page.locator('#hold-release').count(), 1);
      await shot(page, 'priority-held', size);
      await close(page);
    }
  });
});
