import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BOTH,
  close,
  floors,
  leads,
  namespace,
  noise,
  openPage,
  openUnit,
  patchProject,
  patchUnit,
  shot,
  skip,
  t,
  texts,
  units,
  usePresentation,
  type Size,
} from './presentation-fixture.ts';

/** The buyer's page: the one contact form, holds, custom fields and the waitlist, at a phone's size and a desktop's. */
usePresentation();

describe('the presentation page in Chromium: the contact form, holds, custom fields, the waitlist', { skip }, () => {
  test('one contact form for enquiry and hold: a half-written enquiry survives placing a hold, and the next unit finds the form prefilled', async () => {
    const cases: [Size, string, string][] = [
      ['phone', 'A1', 'A2'],
      ['desktop', 'A3', 'B1'],
    ];
    for (const [size, unit, next] of cases) {
      const page = await openPage(size);
      await openUnit(page, size, unit);
      assert.equal(await page.locator('dialog[open] input[name="email"]').count(), 1, 'one form asks for the e-mail');
      const type = async (id: string, text: string) => {
        const el = page.locator(id);
        await (size === 'phone' ? el.tap() : el.click());
        await el.pressSequentially(text);
      };
      await type('#contact-firstName', 'Nora');
      await type('#contact-lastName', 'Buyer');
      await type('#contact-email', 'nora@example.com');
      await type('#contact-phone', '+1 555 0199');
      await type('#contact-message', 'Half written, about the view');
      await (size === 'phone' ? page.locator('#act-hold').tap() : page.click('#act-hold'));
      await page.waitForFunction(() => document.getElementById('contact-form')?.dataset.mode === 'hold');
      assert.equal(await page.inputValue('#contact-email'), 'nora@example.com', 'the same fields, still filled');
      await shot(page, 'hold-form', size);
      await (size === 'phone' ? page.locator('#contact-submit').tap() : page.click('#contact-submit'));
      await page.waitForFunction(() => /Held for you for \d+:\d\d/.test(document.getElementById('hold-countdown')?.textContent ?? ''));
      await page.waitForFunction(() => document.getElementById('contact-form')?.dataset.mode === 'enquire');
      assert.equal(await page.inputValue('#contact-message'), 'Half written, about the view', 'the enquiry being written is still there');
      assert.equal(await page.locator('#act-hold').count(), 0);
      await shot(page, 'held', size);
      await (size === 'phone' ? page.locator('#contact-submit').tap() : page.click('#contact-submit'));
      await page.waitForFunction(() => /Thank you/.test(document.getElementById('contact-status')?.textContent ?? ''));
      const mine = (await leads()).filter((l) => l.unit === units[unit]);
      assert.deepEqual(mine.map((l) => l.source).sort(), ['hold', 'presentation']);
      assert.equal(mine.find((l) => l.source === 'presentation')!.message, 'Half written, about the view');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !document.querySelector('dialog[open]'));
      await openUnit(page, size, next);
      assert.equal(await page.inputValue('#contact-firstName'), 'Nora', 'prefilled after the first use');
      assert.equal(await page.inputValue('#contact-phone'), '+1 555 0199');
      assert.equal(await page.inputValue('#contact-message'), '', 'a new message for a new unit');
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
  });
  test("an enquiry with a bad e-mail shows the server's words by the field; custom form fields (customFormEnabled) reach the lead; formsRedirectURL is followed", async () => {
    await patchProject({
      customFormEnabled: true,
      customFormFields: [
        { key: 'budget', label: 'Budget', type: 'select', options: ['< 500k', '500k+'], required: true },
        { key: 'visit', label: 'I would like a visit', type: 'checkbox' },
        { key: 'notes', label: 'Anything else', type: 'textarea' },
      ],
      formsRedirectURL: `/p/${namespace}?thanks=1`,
    });
    try {
      const page = await openPage('desktop');
      await openUnit(page, 'desktop', 'C1');
      for (const [id, text] of [
        ['#contact-firstName', 'Cy'],
        ['#contact-lastName', 'Form'],
        ['#contact-email', 'not-an-email'],
        ['#contact-phone', '+1 555 0142'],
      ]) {
        await page.click(id!);
        await page.keyboard.type(text!);
      }
      await page.click('#contact-submit');
      await page.waitForFunction(() => (document.getElementById('custom-0-error')?.textContent ?? '') !== '', undefined);
      assert.equal(await page.getAttribute('#custom-0', 'aria-invalid'), 'true', 'a required custom field is asked for first');
      await page.selectOption('#custom-0', '500k+');
      await page.check('#custom-1');
      await page.click('#custom-2');
      await page.keyboard.type('South light please');
      await page.click('#contact-submit');
      await page.waitForFunction(() => (document.getElementById('contact-email-error')?.textContent ?? '') !== '');
      await page.fill('#contact-email', '');
      await page.locator('#contact-email').pressSequentially('cy@example.com');
      await shot(page, 'enquiry-custom', 'desktop');
      await page.click('#contact-submit');
      await page.waitForURL(/thanks=1/);
      const lead = (await leads()).find((l) => l.email === 'cy@example.com');
      assert.ok(lead);
      assert.deepEqual(lead.customFields, [
        { key: 'budget', value: '500k+' },
        { key: 'visit', value: 'Yes' },
        { key: 'notes', value: 'South light please' },
      ]);
      await close(page);
    } finally {
      await patchProject({ customFormEnabled: false, formsRedirectURL: '' });
    }
  });
  test('hideSold: a sold room stays on the plan as a nameless sold shape; a shown sold unit offers the waitlist, which sends a "waitlist" lead', async () => {
    await patchUnit('C2', { availability: 'sold' });
    await patchProject({ hideSold: true, waitlistEnabled: true });
    try {
      for (const size of BOTH) {
        const hidden = await openPage(size, `/p/${namespace}?view=plan&floor=${floors['Level 3']}`);
        await hidden.waitForSelector('path.shape.stub[data-availability="sold"]');
        assert.deepEqual(await texts(hidden, 'text.shape-label'), ['C1', 'C3', 'C4'], 'the sold room is drawn, unnamed');
        assert.equal(await hidden.locator(`#shape-${units.C2}`).count(), 0);
        assert.ok(!(await hidden.content()).includes(units.C2!), 'the page names the hidden sold unit nowhere');
        assert.ok((await texts(hidden, '.legend li')).includes('Sold'));
        await (size === 'phone' ? hidden.locator('#view-list').tap() : hidden.click('#view-list'));
        await hidden.waitForSelector('#results[data-view="list"]');
        assert.equal(await hidden.locator(`#unit-${units.C2}`).count(), 0, 'hidden from the list');
        assert.deepEqual(noise.get(hidden), []);
        await close(hidden);
      }
      await patchProject({ hideSold: false });
      for (const size of BOTH) {
        const page = await openPage(size, `/p/${namespace}?view=plan&floor=${floors['Level 3']}`);
        await page.waitForSelector(`#shape-${units.C2}[data-availability="sold"]`);
        assert.deepEqual(await texts(page, 'text.shape-label'), ['C1', 'C2', 'C3', 'C4'], 'no blank room');
        const shape = page.locator(`#shape-${units.C2}`);
        if (size === 'phone') {
          await shape.tap();
          await page.locator('#plan-card-view').tap();
        } else await shape.click();
        await page.waitForSelector('dialog[open] #act-waitlist');
        assert.equal(await page.locator('#act-hold').count(), 0);
        assert.equal(await page.getAttribute('#contact-form', 'data-mode'), 'waitlist');
        assert.equal(await page.locator('#contact-phone-req').isVisible(), false, 'phone optional on the waitlist');
        for (const [id, text] of [
          ['#contact-firstName', 'Wren'],
          ['#contact-lastName', size],
          ['#contact-email', `wren-${size}@example.com`],
        ]) {
          const el = page.locator(id!);
          await (size === 'phone' ? el.tap() : el.click());
          await el.pressSequentially(text!);
        }
        await shot(page, 'waitlist', size);
        await (size === 'phone' ? page.locator('#contact-submit').tap() : page.click('#contact-submit'));
        await page.waitForFunction(() => /waitlist/.test(document.getElementById('contact-status')?.textContent ?? ''));
        const lead = (await leads()).find((l) => l.email === `wren-${size}@example.com`);
        assert.equal(lead?.source, 'waitlist');
        assert.equal(lead?.unit, units.C2);
        assert.deepEqual(noise.get(page), []);
        await close(page);
      }
    } finally {
      await patchProject({ hideSold: false, waitlistEnabled: false });
      await patchUnit('C2', { availability: 'available' });
    }
  });
  test('the hold limit is said in words (not "too many requests"); one visitor holds, a second browser is told someone else got it first', async () => {
    // Free every unit, then fill this address's hold allowance (3) through the API as the same client.
    for (const name of Object.keys(units)) await patchUnit(name, { availability: 'available' });
    const holdAsThisAddress = async (name: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/public/units/${units[name]}/hold`,
        payload: { firstName: 'Al', lastName: 'Lot', email: 'al@example.com', phone: '+1 555 0110' },
        remoteAddress: '127.0.0.1',
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    await holdAsThisAddress('A1');
    const second = await openPage('desktop', `/p/${namespace}/units/${units.A3}?refresh=600000&live=0`, { ready: 'dialog[open] #act-hold' });
    const first = await openPage('phone', `/p/${namespace}/units/${units.A3}`, { ready: 'dialog[open] #act-hold' });
    for (const page of [first, second]) {
      await page.click('#act-hold');
      for (const [id, text] of [
        ['#contact-firstName', 'Sam'],
        ['#contact-lastName', 'Early'],
        ['#contact-email', 'sam@example.com'],
        ['#contact-phone', '+1 555 0101'],
      ]) {
        await page.locator(id!).fill('');
        await page.locator(id!).pressSequentially(text!);
      }
    }
    await first.locator('#contact-submit').tap();
    await first.waitForFunction(() => /Held for you for \d+:\d\d/.test(document.getElementById('hold-countdown')?.textContent ?? ''));
    await second.click('#contact-submit');
    // Said at the top of the form, which now offers an enquiry (docs/presentation.md, "Holds explain themselves").
    await second.waitForFunction(() => /Someone else held this home a moment before you/.test(document.getElementById('contact-notice')?.textContent ?? ''));
    assert.match((await second.textContent('#hold-until')) ?? '', /On hold until \d/);
    await shot(second, 'taken', 'desktop');
    // The fourth hold from this address: over the limit.
    await holdAsThisAddress('A2');
    await first.keyboard.press('Escape');
    await first.waitForFunction(() => !document.querySelector('dialog[open]'));
    await openUnit(first, 'phone', 'B1');
    await first.locator('#act-hold').tap();
    await first.locator('#contact-submit').tap();
    await first.waitForFunction(() => /already hold as many homes/.test(document.getElementById('hold-notice')?.textContent ?? ''));
    assert.match((await first.textContent('#hold-notice')) ?? '', /hold another in about \d+ min, or send an enquiry now/);
    await shot(first, 'hold-limit', 'phone');
    for (const page of [first, second]) {
      assert.deepEqual(
        (noise.get(page) ?? []).filter((m) => !/status of (409|429)/.test(m)),
        [],
        'only the refused POSTs',
      );
      await close(page);
    }
    for (const name of ['A1', 'A2', 'A3']) await patchUnit(name, { availability: 'available' });
  });
});
