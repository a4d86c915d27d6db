import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base,
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
  texts,
  units,
  usePresentation,
} from './presentation-fixture.ts';

/** The buyer's page: the address and history, project settings, live updates, the lock screen and language, at a phone's size and a desktop's. */
usePresentation();

describe('the presentation page in Chromium: the address, settings, live updates, lock screen, language', { skip }, () => {
  test('the address follows the view: back and forward move between building, floor, unit and list; a shared unit link opens the unit', async () => {
    for (const size of BOTH) {
      const page = await openPage(size);
      const tapOrClick = (sel: string) => (size === 'phone' ? page.locator(sel).tap() : page.click(sel));
      await tapOrClick(`#bfloor-${floors['Level 1']}`);
      await page.waitForSelector('#results[data-view="plan"]');
      await tapOrClick(`#floor-${floors['Level 3']}`);
      await page.waitForFunction(() => /floor=/.test(location.search) && document.getElementById('plan')?.textContent?.includes('Level 3'));
      await tapOrClick(`#shape-${units.C3}`);
      if (size === 'phone') await tapOrClick('#plan-card-view');
      await page.waitForSelector('dialog[open]');
      assert.equal(new URL(page.url()).pathname, `/p/${namespace}/units/${units.C3}`);
      await page.goBack();
      await page.waitForFunction(() => !document.querySelector('dialog[open]'));
      assert.match(page.url(), new RegExp(`floor=${floors['Level 3']}`));
      await page.goBack();
      await page.waitForFunction((f) => new URLSearchParams(location.search).get('floor') === f, floors['Level 1']);
      assert.equal(await page.getAttribute(`#floor-${floors['Level 1']}`, 'aria-pressed'), 'true');
      await page.goBack();
      await page.waitForSelector('#results[data-view="building"]');
      await page.goForward();
      await page.goForward();
      await page.goForward();
      await page.waitForSelector('dialog[open]');
      assert.match((await page.textContent('#unit-title')) ?? '', /^C3/);
      // Share: the unit's own address.
      await tapOrClick('#share-unit');
      await page.waitForSelector('#share-link');
      assert.equal(await page.inputValue('#share-link'), `${base}/p/${namespace}/units/${units.C3}`);
      await shot(page, 'share', size);
      await close(page);
      const shared = await openPage(size, `/p/${namespace}/units/${units.B4}`, { ready: 'dialog[open] #unit-title' });
      assert.match((await shared.textContent('#unit-title')) ?? '', /^B4/);
      await shared.locator('#close-dialog').click();
      await shared.waitForFunction(() => !document.querySelector('dialog[open]'));
      // The address is written by the dialog's close event, a task queued after the dialog shuts: wait for it (at most
      // a few seconds), then check it.
      await shared.waitForFunction((p) => location.pathname === p, `/p/${namespace}`, { timeout: 5000 }).catch(() => {});
      assert.equal(new URL(shared.url()).pathname, `/p/${namespace}`, 'closing a shared unit stays on the project');
      assert.deepEqual(noise.get(shared), []);
      await close(shared);
    }
  });
  test("prices in the project's currency (payProviderCurrency, else chargeCurrency); no deposit on a server without payments; a 3D tour link; the day/night switch", async () => {
    await patchProject({
      payProviderCurrency: 'eur',
      payProviderDeposit: 5000,
      globalAmount: 5000,
      payButtonText: 'Reserve now',
      _3dModelUrl: 'https://tours.example.com/quayside',
      enable3d: true,
      dayNightEnabled: true,
    });
    try {
      const page = await openPage('desktop', `/p/${namespace}?view=list`);
      const price = (await texts(page, '.card .price'))[0]!;
      assert.match(price, /^€\d{3},\d{3}$/);
      assert.equal(await page.getAttribute('#project-3d', 'href'), 'https://tours.example.com/quayside');
      await page.click('#day-night');
      assert.equal(await page.evaluate(() => document.body.classList.contains('night')), true);
      await shot(page, 'night', 'desktop');
      await openUnit(page, 'desktop', 'B3');
      // Payments are off on this server (no STRIPE_SECRET_KEY): the hold takes no money, so the button says nothing of paying.
      assert.equal(await page.textContent('#act-hold'), 'Hold');
      assert.equal(await page.locator('#unit-deposit').count(), 0);
      assert.equal(await page.getAttribute('#unit-3d', 'href'), 'https://tours.example.com/quayside');
      await close(page);
      await patchProject({ payProviderCurrency: '', chargeCurrency: 'gbp' });
      const again = await openPage('desktop', `/p/${namespace}?view=list`);
      assert.match((await texts(again, '.card .price'))[0]!, /^£/);
      await close(again);
    } finally {
      await patchProject({ chargeCurrency: 'usd', payProviderDeposit: 0, _3dModelUrl: '', enable3d: false, dayNightEnabled: false });
    }
  });
  test('a unit sold through the management API turns sold on an open page without a reload, with no console noise from the polling', async () => {
    // Polling only (`live=0`): the live feed has its own test below.
    const page = await openPage('desktop', `/p/${namespace}?view=list&refresh=1000&live=0`);
    assert.equal(await page.getAttribute(`#unit-${units.B1}`, 'data-availability'), 'available');
    for (const availability of ['sold', 'reserved', 'sold']) {
      await patchUnit('B1', { availability });
      await page.waitForSelector(`#unit-${units.B1}[data-availability="${availability}"]`, { timeout: 10_000 });
    }
    assert.match((await page.locator(`#unit-${units.B1} .badge`).textContent()) ?? '', /Sold/);
    // Unchanged revalidations (304): each read to its end, none reported as an aborted request.
    let unchanged = 0;
    const seen = new Promise<void>((resolve) =>
      page.on('requestfinished', async (request) => {
        if (request.url().includes('/public/projects/') && (await request.response())?.status() === 304 && ++unchanged === 3) resolve();
      }),
    );
    await seen;
    assert.deepEqual(noise.get(page), [], 'revalidations leave nothing in the console and no request fails');
    await close(page);
    await patchUnit('B1', { availability: 'available' });
  });
  test('lockScreen: the visitor introduces themselves first (typed key by key); the answer becomes a lead', async () => {
    await patchProject({ lockScreen: true, lockScreenName: true, lockScreenEmail: true, lockScreenPhone: true });
    try {
      for (const size of BOTH) {
        const page = await openPage(size, '', { ready: '#lock-form' });
        assert.equal(await page.locator('.card, #building').count(), 0);
        await shot(page, 'lock', size);
        await page.locator('#lock-submit').click();
        await page.waitForFunction(() => (document.getElementById('lock-email-error')?.textContent ?? '') !== '');
        for (const [id, text] of [
          ['#lock-firstName', 'Lou'],
          ['#lock-lastName', 'Gate'],
          ['#lock-email', `lou-${size}@example.com`],
          ['#lock-phone', '+1 555 0142'],
        ]) {
          await page.locator(id!).pressSequentially(text!);
        }
        await page.locator('#lock-submit').click();
        await page.waitForSelector('#building');
        assert.ok((await leads()).some((l) => l.email === `lou-${size}@example.com` && l.source === 'lock-screen'));
        await close(page);
      }
    } finally {
      await patchProject({ lockScreen: false });
    }
  });
  test('the page speaks the project language (French)', async () => {
    await patchProject({ projectLang: 'fr' });
    try {
      const page = await openPage('phone');
      assert.equal(await page.getAttribute('html', 'lang'), 'fr');
      assert.equal(await page.textContent('#view-plan'), 'Plan d’étage');
      assert.equal(await page.textContent('#result-count'), '12 logements');
      await shot(page, 'french', 'phone');
      await close(page);
      // The unit's sheet too, to its last line: nothing left in English.
      const sheet = await openPage('phone', `/p/${namespace}/units/${units.B4}`, { ready: 'dialog[open] #unit-title' });
      const text = (await sheet.textContent('dialog[open]')) ?? '';
      assert.ok(text.includes('Prix par surface'), text);
      for (const english of ['Price per area', 'Hold it for me', 'Join the waitlist', 'Share']) assert.ok(!text.includes(english), `${english} in ${text}`);
      await close(sheet);
    } finally {
      await patchProject({ projectLang: 'en' });
    }
  });
});
