import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { createFloor, createProject, ENGINE } from './helpers.ts';
import { api, base, browser, heading, json, owner, page, pageErrors, pagesBase, skip, status, t, useSignedInConsole } from './fixtures-console.ts';
import { shotsAtBothSizes } from './support/browser.ts';

/**
 * The console as a sales manager setting up a Toronto building sees it: the project's currency
 * set in Settings and written on every price of the buyer's page, the page opening on the building, the Launch tab
 * pointing at a setting that exists, the grid's floor names and grouped prices, the page's own status colours in the
 * console, and Launch's fields drawn as fields with unit names whole.
 */

useSignedInConsole({ shots: 'console-look' });

const DESK = { width: 1440, height: 900 };
const FLOORS = ['Level 1', 'Level 2', 'Level 3', 'Level 4', 'Level 5'];

/** A published 5-floor project of 15 units (101…503), a few sold or reserved, prices over a million. */
async function toronto() {
  const namespace = `toronto-${Date.now().toString(36)}`;
  const p = await createProject(t.app, owner.auth, { name: 'Bay Street Lofts', body: { namespace, published: true, address: 'Toronto, ON' } });
  for (const [i, name] of FLOORS.entries()) await createFloor(t.app, owner.auth, p._id, { name, position: i });
  const rows = FLOORS.flatMap((floor, f) =>
    [1, 2, 3].map((n) => {
      const status = n === 2 && f % 2 ? 'sold' : n === 3 && f === 1 ? 'reserved' : 'available';
      return `${f + 1}0${n},${floor},${1_250_000 + f * 100_000 + n * 1000},${status},2,2,${900 + n * 10}`;
    }),
  );
  const res = await api('POST', `/projects/${p._id}/inventory/import`, `name,floor,price,availability,bedrooms,bathrooms,squareFeet\n${rows.join('\n')}\n`, {
    'content-type': 'text/csv',
  });
  assert.equal(res.statusCode, 200, res.body);
  return { ...p, namespace };
}

/** A colour as the browser computes it (`rgb(…)`), for comparing a console's and a page's colours. */
const computed = (p: Page, css: string) =>
  p.evaluate((value) => {
    const probe = document.body.appendChild(document.createElement('span'));
    probe.style.color = value;
    const out = getComputedStyle(probe).color;
    probe.remove();
    return out;
  }, css);

/** A select's chosen option's text fits inside it (padding and the arrow aside): nothing of it is cut off. */
const selectFits = (select: Locator) =>
  select.evaluate((el: HTMLSelectElement) => {
    const css = getComputedStyle(el);
    const ctx = document.createElement('canvas').getContext('2d');
    if (!ctx) return { fits: false, text: '', need: 0, room: 0 };
    ctx.font = css.font;
    const text = el.selectedOptions[0]?.textContent ?? '';
    const need = ctx.measureText(text).width;
    // Chromium draws the arrow in about 20 px at the end, inside the padding.
    const room = el.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight) - 16;
    return { fits: need <= room, text, need, room };
  });

const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
const luminance = (c: string) => {
  const [r = 0, g = 0, b = 0] = rgb(c).map((x) => (x / 255 <= 0.03928 ? x / 255 / 12.92 : ((x / 255 + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

/** A field's border: at least 1 px, opaque, at least 3:1 against the field's background (WCAG 1.4.11). */
async function looksLikeField(input: Locator) {
  const css = await input.evaluate((el) => {
    const style = getComputedStyle(el);
    return { width: style.borderTopWidth, border: style.borderTopColor, background: style.backgroundColor };
  });
  const [border, background] = [luminance(css.border), luminance(css.background)];
  const contrast = (Math.max(border, background) + 0.05) / (Math.min(border, background) + 0.05);
  return { ...css, width: parseFloat(css.width), alpha: rgb(css.border)[3] ?? 1, contrast };
}

describe(`the console's settings and looks, as a Toronto project sets them (${ENGINE})`, { skip }, () => {
  test('currency CAD and "opens on the building" set in Settings: the page opens on the building and writes every price in CAD', async () => {
    const p = await toronto();
    await page.setViewportSize(DESK);
    await page.goto(`${base}/admin/projects/${p._id}/settings`);
    await heading('Settings');
    const currency = page.getByLabel('Currency', { exact: true });
    assert.equal(await currency.inputValue(), 'usd', 'a new project starts in US dollars (chargeCurrency usd)');
    await currency.selectOption({ label: 'Canadian dollar (CAD)' });
    const opensOn = page.getByLabel('Page opens on');
    const views = await opensOn.locator('option').allTextContents();
    assert.deepEqual(views, ['The unit list', 'The building, floor by floor', 'The first floor plan']);
    await opensOn.selectOption({ label: 'The building, floor by floor' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await status('Saved 2 changes.');
    const saved = await json<{ chargeCurrency: string; initialView: string }>('GET', `/projects/${p._id}`);
    assert.equal(saved.chargeCurrency, 'cad');
    assert.equal(saved.initialView, 'Building');
    const spilling = await page.locator('#set-general .field').evaluateAll((fields) =>
      fields.flatMap((f) => {
        const control = f.querySelector('select, input');
        if (!control) return [];
        const [c, box] = [control.getBoundingClientRect(), f.getBoundingClientRect()];
        return c.right <= box.right + 0.5 ? [] : [`${f.querySelector('label')?.textContent ?? '?'}: ${Math.round(c.right - box.right)} px out`];
      }),
    );
    assert.deepEqual(spilling, [], 'no setting spills out of its column');
    await page.locator('#set-general').scrollIntoViewIfNeeded();
    await shotsAtBothSizes(page, 'console-look-settings', { desktop: DESK, at: '#set-general' });

    // The buyer's page, as a visitor opens it: the building first, every price in Canadian dollars.
    const visitor = await browser.newContext({ viewport: DESK });
    const buyer = await visitor.newPage();
    const errors: string[] = [];
    buyer.on('pageerror', (e) => errors.push(e.message));
    await buyer.goto(`${pagesBase}/p/${p.namespace}`);
    await buyer.locator('#building').waitFor();
    const dollars = async () => {
      const text = await buyer.locator('body').innerText();
      const labels = await buyer.locator('[aria-label*="$"]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
      return [text, ...labels].join('\n');
    };
    const building = await dollars();
    assert.match(building, /CA\$1,351,000/, 'the building names prices in CAD');
    assert.doesNotMatch(building, /(?<!CA)\$/, 'no price in another dollar on the building');
    await shotsAtBothSizes(buyer, 'console-look-page-building', { desktop: DESK });
    await buyer.goto(`${pagesBase}/p/${p.namespace}?view=list`);
    await buyer.locator('.card').first().waitFor();
    const list = await dollars();
    assert.match(list, /CA\$1,251,000/);
    assert.doesNotMatch(list, /(?<!CA)\$/, 'no price in another dollar in the list');
    await buyer.locator('.card').first().click();
    await buyer.getByRole('dialog').waitFor();
    const detail = await dollars();
    assert.match(detail, /CA\$1,\d{3},\d{3}/);
    assert.doesNotMatch(detail, /(?<!CA)\$/, 'no price in another dollar on a unit');
    await shotsAtBothSizes(buyer, 'console-look-page-unit', { desktop: DESK });
    assert.deepEqual(errors, []);
    await visitor.close();
    assert.deepEqual(pageErrors, []);
  });

  test('the grid names each floor in full, groups prices and draws statuses in the page’s colours', async () => {
    const p = await toronto();
    await json('PATCH', `/projects/${p._id}`, { colorSold: '#7a1f5c' });
    await page.setViewportSize(DESK);
    await page.goto(`${base}/admin/projects/${p._id}/units`);
    await heading('Units');
    await page.getByLabel('Price of 503').waitFor();
    for (const [f, floor] of FLOORS.entries()) {
      for (const n of [1, 3]) {
        const select = page.getByLabel(`Floor of ${f + 1}0${n}`);
        const fit = await selectFits(select);
        assert.equal(fit.text, floor, `${f + 1}0${n} is on ${floor}`);
        assert.ok(fit.fits, `"${fit.text}" needs ${Math.round(fit.need)} px and has ${Math.round(fit.room)} px`);
      }
    }
    assert.equal(await page.getByLabel('Price of 203').inputValue(), '1,353,000', 'prices with thousands separators');
    assert.equal(await page.getByLabel('Area of 203').inputValue(), '930');

    // The page's colours, read from the page itself: the defaults, and the project's own sold colour.
    const visitor = await browser.newContext({ viewport: DESK });
    const buyer = await visitor.newPage();
    await buyer.goto(`${pagesBase}/p/${p.namespace}`);
    await buyer.locator('.card').first().waitFor();
    const pageColour = async (name: string) => computed(buyer, `var(--${name})`);
    const want = { available: await pageColour('available'), reserved: await pageColour('reserved'), sold: await pageColour('sold') };
    assert.equal(want.sold, 'rgb(122, 31, 92)', 'the page uses the project’s own sold colour');
    await visitor.close();
    const gridColour = (unit: string) => page.getByLabel(`Status of ${unit}`).evaluate((el) => getComputedStyle(el).borderLeftColor);
    assert.equal(await gridColour('101'), want.available, 'available as on the page');
    assert.equal(await gridColour('203'), want.reserved, 'reserved as on the page');
    assert.equal(await gridColour('202'), want.sold, 'sold as on the page (the project’s own)');
    await shotsAtBothSizes(page, 'console-look-grid', { desktop: DESK });

    // The plan editor's legend draws the same colours.
    const floor = (await json<{ _id: string; name: string }[]>('GET', `/floors?project=${p._id}`)).find((f) => f.name === 'Level 2');
    assert.ok(floor);
    await page.goto(`${base}/admin/projects/${p._id}/floors/${floor._id}`);
    const legend = page.locator('.legend, [aria-label="Legend"]').first();
    await legend.waitFor();
    const swatches = await legend
      .locator('li, span.item')
      .evaluateAll((items) => items.map((li) => [li.textContent?.trim() ?? '', getComputedStyle(li.querySelector('.swatch') ?? li).backgroundColor]));
    const byWord = Object.fromEntries(swatches);
    assert.equal(byWord.Available, want.available, JSON.stringify(swatches));
    assert.equal(byWord.Sold, want.sold, JSON.stringify(swatches));
    assert.equal(byWord.Reserved, want.reserved, JSON.stringify(swatches));
    assert.deepEqual(pageErrors, []);
  });

  test('Launch: fields drawn as fields, unit names whole, and the waiting lists point at the setting that reorders them', async () => {
    const p = await toronto();
    await page.setViewportSize(DESK);
    await page.goto(`${base}/admin/projects/${p._id}/launch`);
    await heading('Launch');
    await page.getByRole('button', { name: 'Add an allocation' }).click();
    for (const field of [page.getByLabel('Name of Allocation 1'), page.getByLabel('Password of Allocation 1', { exact: true })]) {
      const look = await looksLikeField(field);
      assert.ok(look.width >= 1 && look.alpha > 0 && look.contrast >= 3, `a field's border: ${JSON.stringify(look)}`);
    }
    await page.getByLabel('Name of Allocation 1').pressSequentially('Harbour Realty');
    const picks = page.getByRole('group', { name: 'Units of Harbour Realty' });
    await picks.getByLabel('203', { exact: true }).check();
    // Every unit's name is drawn whole and nothing covers it: the point at its last letter belongs to its own label.
    const clipped = await picks.locator('label').evaluateAll((labels) =>
      labels.flatMap((label) => {
        const text = [...label.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim()).at(-1);
        if (!text) return [`${label.textContent}: no text`];
        const range = document.createRange();
        range.selectNodeContents(text);
        const r = range.getBoundingClientRect();
        const box = label.getBoundingClientRect();
        label.scrollIntoView({ block: 'nearest' });
        const at = document.elementFromPoint(r.right - 2, r.top + r.height / 2);
        const tick = label.querySelector('input')?.getBoundingClientRect();
        // Beside its box, not wrapped under it.
        const beside = tick !== undefined && tick.right <= r.left && tick.top <= r.top + r.height / 2 && r.top + r.height / 2 <= tick.bottom;
        const whole = beside && r.right <= box.right + 0.5 && r.left >= box.left - 0.5 && at !== null && label.contains(at);
        return whole
          ? []
          : [`${label.textContent?.trim()}: text ${Math.round(r.left)}–${Math.round(r.right)}, label ${Math.round(box.left)}–${Math.round(box.right)}`];
      }),
    );
    assert.deepEqual(clipped, [], 'unit names cut off, covered or wrapped under their boxes');
    assert.equal(await picks.locator('label').count(), 15);
    await shotsAtBothSizes(page, 'console-look-launch', { desktop: DESK, at: 'form[aria-label="Allocations"]' });

    // Waiting lists are first come, first served until the setting the text names is turned on.
    const pointer = page.getByRole('link', { name: /The team may reorder waiting lists/ });
    await pointer.click();
    await heading('Settings');
    const setting = page.getByLabel('The team may reorder waiting lists');
    await setting.waitFor();
    assert.ok(
      await setting.evaluate((el) => el.getBoundingClientRect().top >= 0 && el.getBoundingClientRect().bottom <= innerHeight),
      'scrolled to the setting',
    );
    assert.match(page.url(), /\/settings#set-waitlist$/);
    await setting.check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await status('Saved 1 change.');
    assert.equal((await json<{ specialRankEnabled?: boolean }>('GET', `/projects/${p._id}`)).specialRankEnabled, true);
    await page.goto(`${base}/admin/projects/${p._id}/launch`);
    await heading('Launch');
    await page.getByRole('heading', { name: 'Waiting lists' }).waitFor();
    assert.equal(await page.getByText('first come, first served').count(), 0, 'no pointer once the setting is on');
    assert.deepEqual(pageErrors, []);
  });
});
