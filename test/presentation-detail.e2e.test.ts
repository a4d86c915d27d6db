import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { base, close, floors, namespace, openPage, openUnit, patchProject, patchUnit, skip, units, usePresentation } from './presentation-fixture.ts';
import { STATUS_COLOURS } from '../web/status-colours.ts';

/** The buyer's page: keyboard use, colour contrast, a unit's details. */
usePresentation();

// ---------- as served: no browser needed ----------

describe('the presentation page in Chromium: keyboard, contrast, details', { skip }, () => {
  test('keyboard only: Tab reaches the plan shapes (the card follows focus), Enter opens the unit, Escape closes it and focus returns', async () => {
    const page = await openPage('desktop', `/p/${namespace}?view=plan&floor=${floors['Level 1']}`);
    let focused = '';
    for (let i = 0; i < 40 && !focused.startsWith('shape-'); i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.id ?? '');
    }
    assert.equal(focused, `shape-${units.A1}`, 'the first shape is reachable with Tab');
    assert.equal(await page.evaluate(() => getComputedStyle(document.activeElement!).strokeWidth), '5px', 'a focused shape is visibly highlighted');
    await page.waitForSelector('#plan-card:not([hidden])');
    await page.keyboard.press('Enter');
    await page.waitForSelector('dialog[open] #unit-title');
    assert.match((await page.textContent('#unit-title')) ?? '', /^A1/);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
    assert.equal(await page.evaluate(() => document.activeElement?.id), focused);
    await close(page);
  });

  test('the default colours pass WCAG AA contrast for the text drawn on them', async () => {
    const page = await openPage('desktop');
    const v = await page.evaluate(() => {
      document.documentElement.removeAttribute('style');
      const css = getComputedStyle(document.documentElement);
      return Object.fromEntries(
        [...document.styleSheets[0]!.cssRules]
          .flatMap((r) => [...((r as CSSStyleRule).style ?? [])])
          .filter((p) => p.startsWith('--'))
          .map((p) => [p, css.getPropertyValue(p).trim()]),
      );
    });
    const lum = (hex: string) => {
      const n = hex.replace('#', '');
      const full = n.length === 3 ? [...n].map((c) => c + c).join('') : n;
      const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const ratio = (a: string, b: string) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return (x! + 0.05) / (y! + 0.05);
    };
    const c = (name: string) => {
      assert.match(v[name] ?? '', /^#[0-9a-f]{3,6}$/i, `${name} is a hex colour`);
      return v[name]!;
    };
    const pairs: [string, string, string][] = [
      ['text on page', c('--text'), c('--page')],
      ['muted on page', c('--muted'), c('--page')],
      ['muted on surface', c('--muted'), c('--surface')],
      ['base on surface', c('--base'), c('--surface')],
      ['white on base (pressed chip)', '#ffffff', c('--base')],
      ['button text on button', c('--button-text'), c('--button')],
      ['button text on hover', c('--button-text'), c('--hover')],
      // Words in the available colour fall back to the text colour where it is too light on white (web/theme.ts).
      ['available ink on surface', ratio(STATUS_COLOURS.available, c('--surface')) >= 4.5 ? STATUS_COLOURS.available : c('--text'), c('--surface')],
      // A status's words: white or near-black, whichever reads better on it (what web/theme.ts draws). The statuses'
      // colours are the one definition the page and the console share, set on the page by its script.
      ...Object.entries(STATUS_COLOURS).map(([k, colour]): [string, string, string] => {
        const ink = ratio('#ffffff', colour) >= ratio('#111111', colour) ? '#ffffff' : '#111111';
        return [`${ink} on ${k} badge`, ink, colour];
      }),
    ];
    const failures = pairs
      .map(([name, fg, bg]) => [name, ratio(fg, bg)] as const)
      .filter(([, r]) => r < 4.5)
      .map(([name, r]) => `${name}: ${r.toFixed(2)}`);
    assert.deepEqual(failures, []);
    await close(page);
  });

  test("a project's own light colours still leave readable text (white or near-black, as reads better)", async () => {
    await patchProject({ colorBase: '#ffe082', colorButton: '#ffeb3b', colorButtonText: '#ffffff', colorAvailable: '#8bc34a' });
    try {
      const page = await openPage('desktop', `/p/${namespace}?view=list`);
      await openUnit(page, 'desktop', 'A1');
      const seen = await page.evaluate(() =>
        [
          ['pressed tab', '.tab[aria-pressed="true"]', true],
          ['unpressed tab', '.tab[aria-pressed="false"]', false],
          ['badge', '.card .badge', true],
          ['price', '.card .price', false],
          ['button', '#contact-submit', true],
        ].map(([name, selector, own]) => {
          const el = document.querySelector(selector as string)!;
          const style = getComputedStyle(el);
          return [name, style.color, own ? style.backgroundColor : 'rgb(255, 255, 255)'] as [string, string, string];
        }),
      );
      const lum = (rgb: string) => {
        const [r, g, b] = (rgb.match(/[\d.]+/g) ?? [])
          .slice(0, 3)
          .map(Number)
          .map((c) => c / 255)
          .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const failures = seen
        .map(([name, fg, bg]) => {
          const [x, y] = [lum(fg), lum(bg)].sort((p, q) => q - p);
          return [`${name} ${fg} on ${bg}`, (x! + 0.05) / (y! + 0.05)] as const;
        })
        .filter(([, r]) => r < 4.5)
        .map(([name, r]) => `${name}: ${r.toFixed(2)}`);
      assert.deepEqual(failures, []);
      await close(page);
    } finally {
      await patchProject({ colorBase: '#1f2a44', colorButton: '#1f2a44', colorButtonText: '#ffffff', colorAvailable: '#1b5e20' });
    }
  });

  test('unit detail: price, facts, additional info, brochure and layout links (only http(s) or relative addresses)', async () => {
    await patchUnit('A2', {
      parking: 1,
      orientation: 'South-west',
      additionalInfo: [{ label: 'Balcony', value: '12 m²' }],
      brochurePDF: 'https://example.com/a2.pdf',
    });
    await patchUnit('A1', { brochurePDF: 'javascript:alert(1)' });
    const page = await openPage('desktop', `/p/${namespace}?view=list`);
    await openUnit(page, 'desktop', 'A2');
    const dialog = page.locator('dialog[open]');
    assert.match((await dialog.locator('#unit-price').textContent()) ?? '', /\$500,000/);
    const facts = (await dialog.locator('dl.facts').textContent()) ?? '';
    for (const text of ['100 m²', 'Bedrooms2', 'Bathrooms1', 'Parking1', 'South-west', 'Balcony12 m²', 'Price per area$5,000 / m²'])
      assert.ok(facts.includes(text), `${text} in ${facts}`);
    assert.equal(await dialog.locator('.description').textContent(), 'Unit A2');
    assert.equal(await dialog.locator('#unit-brochure').getAttribute('href'), 'https://example.com/a2.pdf');
    assert.equal(await dialog.locator('#unit-layout').getAttribute('href'), `${base}/p/assets/demo-plan-2bed.svg`);
    await page.click('#close-dialog');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
    await openUnit(page, 'desktop', 'A1');
    assert.equal(await page.locator('#unit-brochure').count(), 0, 'a javascript: address is not a link');
    await close(page);
  });
});
