import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  base,
  browser,
  close,
  inViewport,
  mailedHoldLink,
  namespace,
  noise,
  openUnit,
  patchProject,
  shot,
  skip,
  smtp,
  t,
  units,
  usePresentation,
  type Size,
} from './presentation-fixture.ts';

/**
 * Holds explain themselves: the "Held for you" panel is in view once a hold is placed; a hold lost to someone else a
 * moment before is said at the top of the form; a hold whose time runs out says so on screen (when, in the visitor's
 * own time zone) with "Hold again", and so does its mailed link opened afterwards; the holder is mailed at expiry in
 * the project's time zone. At 1440×900 and 390×844.
 */
usePresentation({ mail: true });

const VIEWPORTS: Record<Size, { viewport: { width: number; height: number }; hasTouch?: boolean; isMobile?: boolean }> = {
  desktop: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
};
/** The visitor's browser is in Toronto; the project is in Paris (its mail reads in Paris time). */
const VISITOR_ZONE = 'America/Toronto';

async function open(size: Size, path = '') {
  const context = await browser.newContext({ ...VIEWPORTS[size], timezoneId: VISITOR_ZONE, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const heard: string[] = [];
  noise.set(page, heard);
  page.on('pageerror', (err) => heard.push(`page error: ${err.message}`));
  page.on('console', (m) => heard.push(`console ${m.type()}: ${m.text()}`));
  await page.goto(`${base}${path || `/p/${namespace}`}`);
  await page.waitForSelector('#app[aria-busy="false"]');
  return page;
}

const press = (page: Page, size: Size, selector: string) => (size === 'phone' ? page.locator(selector).tap() : page.click(selector));

async function fillHold(page: Page, size: Size, email: string) {
  await press(page, size, '#act-hold');
  await page.waitForFunction(() => document.getElementById('contact-form')?.dataset.mode === 'hold');
  for (const [id, text] of [
    ['#contact-firstName', 'Hana'],
    ['#contact-lastName', 'Holder'],
    ['#contact-email', email],
    ['#contact-phone', '+1 555 0142'],
  ] as const) {
    const input = page.locator(id);
    await input.fill('');
    await input.pressSequentially(text);
  }
}

/** 4xx answers the browser logs for requests the test provoked (a lost race's 409, an ended hold's 410). */
const expected = (line: string) => /status of (409|410)/.test(line);

describe('the presentation page in Chromium: holds that explain themselves', { skip }, () => {
  test('after holding, the "Held for you" panel is in view (a phone too)', async () => {
    for (const [size, name] of [
      ['phone', 'A1'],
      ['desktop', 'A2'],
    ] as const) {
      const page = await open(size);
      await openUnit(page, size, name);
      await fillHold(page, size, `inview-${size}@example.com`);
      await press(page, size, '#contact-submit');
      await page.waitForFunction(() => /Held for you for \d+:\d\d/.test(document.getElementById('hold-countdown')?.textContent ?? ''));
      // The panel is scrolled to smoothly: in view once the scroll ends (within 3 s).
      let shown = false;
      for (let i = 0; i < 30 && !shown; i++) {
        shown = await inViewport(page, '#hold-panel');
        if (!shown) await page.waitForTimeout(100);
      }
      assert.ok(shown, `${size}: the panel is in view`);
      await shot(page, 'story-held-in-view', size);
      // Released again, so this address may hold in the next tests (three holds at once per address).
      await press(page, size, '#hold-release');
      await page.waitForSelector('#hold-note');
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
  });

  test('a hold lost to someone else a moment before: said at the top of the form, in view, not a silent enquiry', async () => {
    // Two ways to lose: the live feed shows the unit held while the visitor types, or (no feed: `live=0`, polling
    // every 10 minutes) the hold is sent and answered 409.
    for (const [size, name, way] of [
      ['phone', 'A3', 'live'],
      ['desktop', 'A4', 'live'],
      ['phone', 'C1', '409'],
      ['desktop', 'C2', '409'],
    ] as const) {
      const page = await open(size, way === 'live' ? '' : `/p/${namespace}?live=0&refresh=600000`);
      await openUnit(page, size, name);
      await fillHold(page, size, `race-${size}@example.com`);
      // Someone else, elsewhere, holds it meanwhile.
      const other = await t.app.inject({
        method: 'POST',
        url: `/public/units/${units[name]}/hold`,
        payload: { firstName: 'Quick', lastName: 'Other', email: `quick-${size}@example.com`, phone: '+1 555 0199' },
        remoteAddress: `198.51.100.${name === 'A3' ? 21 : name === 'A4' ? 22 : name === 'C1' ? 23 : 24}`,
      });
      assert.equal(other.statusCode, 200);
      if (way === '409') await press(page, size, '#contact-submit');
      await page.waitForSelector('#contact-notice:not([hidden])');
      const notice = (await page.textContent('#contact-notice')) ?? '';
      assert.match(notice, /Someone else held this home a moment before you/);
      assert.match(notice, /You can still send an enquiry/);
      assert.equal(await page.getAttribute('#contact-form', 'data-mode'), 'enquire');
      assert.ok(await inViewport(page, '#contact-notice'), `${size}: the message is in view`);
      await shot(page, `story-lost-race-${way}`, size);
      // The hold was sent and refused (409) exactly when the test sent it; with the feed, the form changed before.
      assert.equal(noise.get(page)!.filter((l) => /status of 409/.test(l)).length, way === '409' ? 1 : 0);
      assert.deepEqual(
        noise.get(page)!.filter((l) => !expected(l)),
        [],
      );
      await close(page);
    }
  });

  test('a hold that runs out: the page says when (visitor’s zone) with "Hold again"; the holder is mailed (project’s zone); the mailed link says it ended', async () => {
    // A hold of 3 seconds, so that this one runs out while the page is open; the project keeps Paris time.
    await patchProject({ onHoldMinsDuration: 0.05, timeZone: 'Europe/Paris' });
    try {
      for (const [size, name] of [
        ['phone', 'B3'],
        ['desktop', 'B4'],
      ] as const) {
        const email = `lapse-${size}@example.com`;
        const page = await open(size);
        await openUnit(page, size, name);
        await fillHold(page, size, email);
        await press(page, size, '#contact-submit');
        await page.waitForSelector('#hold-countdown');
        const link = await mailedHoldLink(email);
        const until = (await t.app.inject({ method: 'GET', url: `/public/holds/${link.split('hold=')[1]}` })).json().expiresAt as string;
        // Its time runs out: the panel says so, when, in the visitor's own zone, and offers to hold it again.
        await page.waitForFunction(() => /Your hold ended at/.test(document.getElementById('hold-note')?.textContent ?? ''));
        const local = new Intl.DateTimeFormat('en-US', { hour: '2-digit', minute: '2-digit', timeZone: VISITOR_ZONE }).format(new Date(until));
        assert.equal(await page.textContent('#hold-note'), `Your hold ended at ${local}. The home is open to everyone again.`);
        await page.waitForSelector('#hold-again');
        assert.ok(await inViewport(page, '#hold-note'), `${size}: said in view`);
        await shot(page, 'story-expired', size);

        // At the sweep, the holder is mailed, with the time in the project's zone and the unit's page.
        await t.app.sweepHolds();
        const before = smtp.received.length;
        await smtp.waitFor(before + (await t.app.outbox.drain()));
        const ended = smtp.received.slice(before).find((m) => m.rcptTo.includes(email));
        assert.ok(ended, 'the expiry mail');
        const paris = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Paris' }).format(new Date(until));
        assert.ok(ended.parsed.text?.includes(`ended at ${paris} (Europe/Paris)`), ended.parsed.text);
        assert.ok(ended.parsed.text?.includes(`Hold it again: ${base}/p/${namespace}/units/${units[name]}`), ended.parsed.text);

        // The hold's own mailed link, opened afterwards in a fresh browser: it says the hold ended, with Hold again.
        const fresh = await open(size, link.slice(new URL(link).origin.length));
        await fresh.waitForSelector('dialog[open] #hold-note');
        assert.match((await fresh.textContent('#hold-note')) ?? '', /The hold this link was for has ended/);
        await shot(fresh, 'story-link-ended', size);
        await press(fresh, size, '#hold-again');
        await fresh.waitForFunction(() => document.getElementById('contact-form')?.dataset.mode === 'hold');
        for (const p of [page, fresh])
          assert.deepEqual(
            noise.get(p)!.filter((l) => !expected(l)),
            [],
          );
        await close(page);
        await close(fresh);
      }
    } finally {
      await patchProject({ onHoldMinsDuration: 10 });
    }
  });
});
