import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { browser, close, namespace, noise, openPage, patchUnit, shot, SIZES, skip, units, usePresentation } from './presentation-fixture.ts';

/** The buyer's page follows the live feed (Server-Sent Events), and polls when it cannot. */
usePresentation();

describe('the presentation page and the live feed', { skip }, () => {
  test('with the feed open a change shows without polling (polling set to 10 min); no console noise', async () => {
    const page = await openPage('desktop', `/p/${namespace}?view=list&refresh=600000`);
    await page.waitForSelector('body[data-live="open"]');
    assert.equal(await page.getAttribute(`#unit-${units.C1}`, 'data-availability'), 'available');
    for (const availability of ['reserved', 'sold']) {
      await patchUnit('C1', { availability });
      await page.waitForSelector(`#unit-${units.C1}[data-availability="${availability}"]`);
    }
    await shot(page, 'live-open', 'desktop');
    assert.deepEqual(noise.get(page), []);
    await close(page);
    await patchUnit('C1', { availability: 'available' });
  });

  test('when the feed is refused the page polls instead', async () => {
    // A proxy answering the feed with 204: the browser ends it for good, and the page polls (every 1 s here).
    const context = await browser.newContext(SIZES.desktop);
    await context.route('**/events*', (route) => route.fulfill({ status: 204, body: '' }));
    const page = await openPage('desktop', `/p/${namespace}?view=list&refresh=1000`, { context });
    await page.waitForSelector('body[data-live="polling"]');
    await patchUnit('C2', { availability: 'reserved' });
    await page.waitForSelector(`#unit-${units.C2}[data-availability="reserved"]`);
    await close(page);
    await patchUnit('C2', { availability: 'available' });
  });
});
