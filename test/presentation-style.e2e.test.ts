import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BOTH, close, namespace, openPage, owner, patchProject, shot, skip, t, usePresentation } from './presentation-fixture.ts';

/** The project's style on the page (docs/fields.md): the accent colour, square shapes, the service's marks. */
usePresentation();

const preferences = async (p: Record<string, boolean>) => {
  const res = await t.app.inject({ method: 'PATCH', url: '/users/me', headers: owner.auth, payload: { preferences: p } });
  assert.equal(res.statusCode, 200, res.body);
};

describe('style on the page in Chromium', { skip }, () => {
  for (const size of BOTH) {
    test(`${size}: prices in colorAccent, square corners with styleShapes square, the branding line with its icon`, async () => {
      await patchProject({ colorAccent: '#7b1fa2', styleShapes: 'square' });
      try {
        const page = await openPage(size, `/p/${namespace}?view=list`);
        const seen = await page.evaluate(() => ({
          price: getComputedStyle(document.querySelector('.card .price')!).color,
          card: getComputedStyle(document.querySelector('.card')!).borderTopLeftRadius,
          chip: getComputedStyle(document.querySelector('.chip, .tab')!).borderTopLeftRadius,
          icon: document.querySelectorAll('footer.brand img').length,
          line: document.querySelector('footer.brand')?.textContent ?? '',
        }));
        assert.equal(seen.price, 'rgb(123, 31, 162)', 'prices are painted in the accent colour');
        assert.equal(seen.card, '0px');
        assert.equal(seen.chip, '0px');
        assert.equal(seen.icon, 1, "the service's icon before the line");
        assert.match(seen.line, /Showsuite/);
        await page.locator('footer.brand').scrollIntoViewIfNeeded();
        await shot(page, 'style-square-accent', size);
        await close(page);
      } finally {
        await patchProject({ colorAccent: '', styleShapes: '' });
      }
      const page = await openPage(size, `/p/${namespace}?view=list`);
      assert.notEqual(await page.evaluate(() => getComputedStyle(document.querySelector('.card')!).borderTopLeftRadius), '0px', 'rounded again');
      await close(page);
    });
  }

  test("the owner's hideBrandingIcon leaves the line without its icon; showBranding false leaves no line", async () => {
    await preferences({ hideBrandingIcon: true });
    try {
      let page = await openPage('desktop', `/p/${namespace}?view=list`);
      assert.equal(await page.locator('footer.brand').count(), 1);
      assert.equal(await page.locator('footer.brand img').count(), 0);
      await close(page);
      await patchProject({ showBranding: false });
      page = await openPage('desktop', `/p/${namespace}?view=list`);
      assert.equal(await page.locator('footer.brand').count(), 0);
      await close(page);
    } finally {
      await preferences({ hideBrandingIcon: false });
      await patchProject({ showBranding: true });
    }
  });
});
