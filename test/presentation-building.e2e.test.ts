import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { createFloor, createGroup, createProject, createUnit } from './helpers.ts';
import {
  BOTH,
  browser,
  close,
  floors,
  namespace,
  noise,
  openPage,
  owner,
  projectId,
  patchProject,
  patchUnit,
  shot,
  SIZES,
  skip,
  t,
  units,
  usePresentation,
} from './presentation-fixture.ts';

/**
 * The building as a picture to pick a floor from (`projectImageUrl`, floors' `path` and `alternativePaths`) and the 3D
 * models behind `enable3d`, at a phone's size and a desktop's. The demo hero is 1280 × 720: the paths are in its pixels.
 */
usePresentation();

const PATHS: Record<string, { path: string; alternativePaths?: string[] }> = {
  'Level 1': { path: 'M300 520 H900 V640 H300 Z' },
  'Level 2': { path: 'M300 400 H900 V520 H300 Z', alternativePaths: ['M950 400 H1150 V520 H950 Z'] },
  'Level 3': { path: 'M300 280 H900 V400 H300 Z' },
};

/**
 * Counts, page by page of the context, the elements of class `item` each task adds to the element `list` matches once
 * that list is on the page (one number per batch; what comes with the list itself is not counted). Read with `batchesOf`.
 */
async function recordBatches(context: BrowserContext, list: string, item: string) {
  await context.addInitScript(
    ([list, item]) => {
      const batches: number[] = [];
      (window as unknown as { batches: number[] }).batches = batches;
      new MutationObserver((records) => {
        const added = records
          .filter((r) => (r.target as Element).matches?.(list))
          .reduce((n, r) => n + [...r.addedNodes].filter((x) => (x as Element).classList?.contains(item)).length, 0);
        if (added) batches.push(added);
      }).observe(document, { childList: true, subtree: true });
    },
    [list, item] as const,
  );
}
const batchesOf = (page: Page) => page.evaluate(() => (window as unknown as { batches: number[] }).batches);

async function patchFloor(name: string, payload: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'PATCH', url: `/floors/${floors[name]}`, headers: owner.auth, payload });
  assert.equal(res.statusCode, 200, res.body);
}

/** The page at a phone's size (390 × 844, touch) or a desktop's (1440 × 900). */
const VIEWS = { phone: SIZES.phone, desktop: { viewport: { width: 1440, height: 900 } } };
const open = async (size: 'phone' | 'desktop', path = '', ready?: string) =>
  openPage(size, path, { context: await browser.newContext(VIEWS[size]), ...(ready ? { ready } : {}) });

const fill = (page: Page, sel: string) => page.$eval(sel, (el) => getComputedStyle(el).fill);
const tapOrClick = (page: Page, size: string, sel: string) => (size === 'phone' ? page.locator(sel).tap() : page.click(sel));

describe('the building as a picture and in 3D', { skip }, () => {
  test('floors drawn over the picture: coloured by availability, named, a tap and Enter open the floor; neutral without availability', async () => {
    for (const [name, p] of Object.entries(PATHS)) await patchFloor(name, p);
    // Level 3 has nothing available: its shape takes the sold colour.
    for (const u of ['C1', 'C2', 'C3', 'C4']) await patchUnit(u, { availability: 'sold' });
    await patchProject({ pricesStartingAt: true });
    for (const size of BOTH) {
      const page = await open(size);
      await page.waitForSelector('#building-picture .bpic-frame.sized');
      assert.equal(await page.getAttribute('#building-picture svg', 'viewBox'), '0 0 1280 720');
      // Each floor a shape, Level 2 twice (its alternative path), one keyboard stop and name per floor.
      assert.equal(await page.locator('#building-picture path').count(), 4);
      assert.equal(await page.locator('#building-picture path[tabindex="0"]').count(), 3);
      const l1 = `#bpic-${floors['Level 1']}`;
      assert.match((await page.getAttribute(l1, 'aria-label')) ?? '', /^Level 1, 4 available, From /);
      assert.equal(await page.getAttribute(l1, 'data-availability'), 'available');
      assert.equal(await page.getAttribute(`#bpic-${floors['Level 3']}`, 'data-availability'), 'none');
      assert.notEqual(await fill(page, l1), await fill(page, `#bpic-${floors['Level 3']}`));
      assert.equal(await fill(page, l1), await fill(page, `#bpic-${floors['Level 2']}-1`));
      // The rows stay below.
      assert.equal(await page.locator('.floor-row').count(), 3);
      const label = page.locator(`.bpic-label[data-floor="${floors['Level 2']}"]`);
      assert.match((await label.textContent()) ?? '', /Level 2 · 4 available · From/);
      if (size === 'desktop') {
        await page.hover(`#bpic-${floors['Level 2']}-1`);
        await page.waitForSelector(`.bpic-label.lit[data-floor="${floors['Level 2']}"]`);
      }
      await shot(page, 'building-picture', size);
      // A tap on the second shape of Level 2 opens Level 2's plan.
      const alt = await page.locator(`#bpic-${floors['Level 2']}-1`).boundingBox();
      assert.ok(alt);
      await (size === 'phone'
        ? page.touchscreen.tap(alt.x + alt.width / 2, alt.y + alt.height / 2)
        : page.mouse.click(alt.x + alt.width / 2, alt.y + alt.height / 2));
      await page.waitForSelector('#results[data-view="plan"]');
      assert.match((await page.textContent('#plan figcaption')) ?? '', /Level 2/);
      await page.goBack();
      await page.waitForSelector('#building-picture .bpic-frame.sized');
      // The keyboard: focus Level 1's shape, Enter.
      await page.focus(l1);
      await page.keyboard.press('Enter');
      await page.waitForSelector('#results[data-view="plan"]');
      assert.match((await page.textContent('#plan figcaption')) ?? '', /Level 1/);
      assert.deepEqual(noise.get(page), []);
      await close(page);
    }
    await patchProject({ showAvailability: false });
    for (const size of BOTH) {
      const page = await open(size);
      await page.waitForSelector('#building-picture .bpic-frame.sized');
      const fills = await Promise.all(Object.values(floors).map((id) => fill(page, `#bpic-${id}`)));
      assert.equal(new Set(fills).size, 1, 'one neutral colour');
      assert.equal(await page.getAttribute(`#bpic-${floors['Level 1']}`, 'data-availability'), null);
      assert.doesNotMatch((await page.getAttribute(`#bpic-${floors['Level 1']}`, 'aria-label')) ?? '', /available/);
      await shot(page, 'building-picture-neutral', size);
      await close(page);
    }
    await patchProject({ showAvailability: true, pricesStartingAt: false });
    for (const u of ['C1', 'C2', 'C3', 'C4']) await patchUnit(u, { availability: 'available' });
  });

  test('3D: none without enable3d; with it, each model requested only when its button is pressed; the floor selector opens a floor; no WebGL, a sentence', async () => {
    const models = {
      _3dModelUrl: '/p/assets/demo-model.glb',
      _3dBuildingModelUrl: '/p/assets/demo-model.glb',
      _3dFloorSelectorModelUrl: '/p/assets/demo-floors.glb',
    };
    await patchProject({ ...models, enable3d: false });
    await patchUnit('A1', { unitmodels: ['/p/assets/demo-model.glb'] });
    for (const size of BOTH) {
      const page = await open(size);
      assert.equal(await page.locator('#project-3d, #building-3d-open, #floors-3d-open').count(), 0);
      await close(page);
      const sheet = await open(size, `/p/${namespace}/units/${units.A1}`, 'dialog[open] #unit-title');
      assert.equal(await sheet.locator('#unit-3d-open, #unit-3d, #unit-model-1-open').count(), 0);
      await close(sheet);
    }
    await patchProject({ enable3d: true });
    for (const u of ['C1', 'C2', 'C3', 'C4']) await patchUnit(u, { availability: 'sold' });
    for (const size of BOTH) {
      const page = await open(size);
      const asked: string[] = [];
      page.on('request', (r) => asked.push(new URL(r.url()).pathname));
      assert.equal(await page.locator('#project-3d').count(), 1);
      await page.waitForSelector('#building-3d-open');
      await page.waitForSelector('#floors-3d-open');
      assert.equal(asked.filter((p) => /\.glb$|model-viewer/.test(p)).length, 0, 'nothing of 3D before a button is pressed');
      await tapOrClick(page, size, '#floors-3d-open');
      await page.waitForFunction(() => (document.getElementById('floors-3d-viewer') as unknown as { loaded?: boolean } | null)?.loaded === true);
      assert.ok(asked.includes('/p/assets/demo-floors.glb'));
      assert.ok(!asked.includes('/p/assets/demo-model.glb'), 'the building model waits for its own button');
      // Parts whose material names a floor take its colour: Level 3 is sold out, Level 1 is not.
      // (on the model's load event, which follows its first frames)
      await page.waitForFunction(() => {
        const v = document.getElementById('floors-3d-viewer') as unknown as {
          model?: { materials: { name: string; pbrMetallicRoughness: { baseColorFactor: number[] } }[] };
        };
        return v.model?.materials.find((m) => m.name === 'Level 1')?.pbrMetallicRoughness.baseColorFactor[0]?.toFixed(2) !== '0.55';
      });
      const colours = await page.evaluate(() => {
        const v = document.getElementById('floors-3d-viewer') as unknown as {
          model: { materials: { name: string; pbrMetallicRoughness: { baseColorFactor: number[] } }[] };
        };
        return Object.fromEntries(v.model.materials.map((m) => [m.name, m.pbrMetallicRoughness.baseColorFactor.map((c) => c.toFixed(2)).join()]));
      });
      assert.notEqual(colours['Level 1'], colours['Level 3']);
      assert.equal(colours['Level 1'], colours['Level 2']);
      assert.notEqual(colours['Level 1'], '0.55,0.70,0.85,1.00', "no longer the model's own colour");
      const box = await page.locator('#floors-3d-viewer').boundingBox();
      assert.ok(box);
      await shot(page, 'floors-3d', size);
      // The middle of the model is its middle floor, Level 2.
      await (size === 'phone'
        ? page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2)
        : page.mouse.click(box.x + box.width / 2, box.y + box.height / 2));
      await page.waitForSelector('#results[data-view="plan"]');
      assert.match((await page.textContent('#plan figcaption')) ?? '', /Level 2/);
      await page.goBack();
      await tapOrClick(page, size, '#building-3d-open');
      await page.waitForFunction(() => (document.getElementById('building-3d-viewer') as unknown as { loaded?: boolean } | null)?.loaded === true);
      assert.ok(asked.includes('/p/assets/demo-model.glb'));
      await close(page);
    }
    for (const size of BOTH) {
      const sheet = await open(size, `/p/${namespace}/units/${units.A1}`, 'dialog[open] #unit-title');
      assert.equal(await sheet.locator('#unit-3d-open').count(), 1);
      await sheet.locator('#unit-model-1-open').scrollIntoViewIfNeeded();
      await tapOrClick(sheet, size, '#unit-model-1-open');
      await sheet.waitForFunction(() => (document.getElementById('unit-model-1-viewer') as unknown as { loaded?: boolean } | null)?.loaded === true);
      await shot(sheet, 'unit-models', size);
      await close(sheet);
    }
    // No WebGL: a sentence where the model would be, the picture and the rows still there.
    const context = await browser.newContext(SIZES.phone);
    await context.addInitScript(() => {
      const get = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, kind: string, ...rest: unknown[]) {
        return /webgl/.test(kind) ? null : (get as (...a: unknown[]) => unknown).call(this, kind, ...rest);
      } as typeof get;
    });
    const page = await openPage('phone', '', { context });
    await tapOrClick(page, 'phone', '#building-3d-open');
    await page.waitForSelector('#building-3d-viewer-no-webgl');
    assert.equal(await page.locator('model-viewer').count(), 0);
    assert.equal(await page.locator('.floor-row').count(), 3);
    await shot(page, 'no-webgl', 'phone');
    await close(page);
    await patchProject({ enable3d: false, _3dModelUrl: '', _3dBuildingModelUrl: '', _3dFloorSelectorModelUrl: '' });
    for (const u of ['C1', 'C2', 'C3', 'C4']) await patchUnit(u, { availability: 'available' });
  });

  test('many floors: the first three with the first screen, the others three to a task, in order, all there when the page is ready', async () => {
    const extra: string[] = [];
    try {
      for (let i = 4; i <= 10; i++) extra.push((await createFloor(t.app, owner.auth, projectId, { name: `Level ${i}`, position: i }))._id);
      const context = await browser.newContext(VIEWS.phone);
      await recordBatches(context, '.floor-rows', 'floor-row');
      const page = await openPage('phone', '', { context });
      const names = await page.locator('.floor-row .fname').allTextContents();
      assert.deepEqual(names, ['Level 10', 'Level 9', 'Level 8', 'Level 7', 'Level 6', 'Level 5', 'Level 4', 'Level 3', 'Level 2', 'Level 1']);
      assert.deepEqual(await batchesOf(page), [3, 3, 1], 'seven floors after the first screen, three a task');
      await close(page);
    } finally {
      for (const id of extra) await t.app.inject({ method: 'DELETE', url: `/floors/${id}`, headers: owner.auth });
    }
  });

  test('many homes in the list: the first six cards with the first screen, the others twelve to a task, in order, all there when the page is ready', async () => {
    const extra: string[] = [];
    try {
      for (let i = 1; i <= 25; i++)
        extra.push(
          (
            await createUnit(t.app, owner.auth, projectId, {
              name: `L-${String(i).padStart(2, '0')}`,
              floor: floors['Level 1'],
              body: { availability: 'available' },
            })
          )._id,
        );
      const context = await browser.newContext(VIEWS.phone);
      await recordBatches(context, '#results ul.grid[aria-label]', 'card-item');
      const page = await openPage('phone', `/p/${namespace}?view=list`, { context });
      const cards = await page.locator('#results ul.grid[aria-label] > .card-item').count();
      assert.ok(cards > 30, `${cards} cards`);
      const batches = await batchesOf(page);
      // The first six came with the list itself (not a batch of their own); then twelve a task, the last with the rest.
      const expected = Array.from({ length: Math.ceil((cards - 6) / 12) }, (_, i) => Math.min(12, cards - 6 - i * 12));
      assert.deepEqual(batches, expected, `${cards} cards: six with the first screen, then twelve a task`);
      // Every home there, once.
      const names = await page.locator('#results ul.grid[aria-label] > .card-item .name').allTextContents();
      assert.equal(new Set(names).size, cards);
      for (let i = 1; i <= 25; i++) assert.ok(names.includes(`L-${String(i).padStart(2, '0')}`));
      await close(page);
    } finally {
      for (const id of extra) await t.app.inject({ method: 'DELETE', url: `/units/${id}`, headers: owner.auth });
    }
  });

  test("the group page's picture of the site: each project's shape a link to its page (no script)", async () => {
    const gns = `${namespace}-site`;
    const other = await createProject(t.app, owner.auth, {
      name: 'Harbour Rows',
      query: { namespace: `${namespace}-rows` },
      body: { path: 'M720 420 H960 V900 H720 Z' },
    });
    await createUnit(t.app, owner.auth, other._id, {
      name: 'HR-1',
      floor: (await createFloor(t.app, owner.auth, other._id, { name: 'Ground' }))._id,
      body: { availability: 'sold' },
    });
    await patchProject({ path: 'M400 120 H600 V900 H400 Z' });
    const g = await createGroup(t.app, owner.auth, { name: 'Waterfront', query: { namespace: gns }, body: { groupImageUrl: '/p/assets/demo-hero.webp' } });
    const res = await t.app.inject({ method: 'PATCH', url: `/groups/${g._id}`, headers: owner.auth, payload: { projects: [projectId, other._id] } });
    assert.equal(res.statusCode, 200, res.body);
    for (const size of BOTH) {
      const page = await open(size, `/g/${gns}`, 'main.group');
      const shape = page.locator('.g-picture a.g-shape').first();
      assert.equal(await shape.getAttribute('aria-label'), 'Quayside Lofts, 12 available');
      assert.equal(await page.locator('.g-picture a.g-shape.b-sold').getAttribute('aria-label'), 'Harbour Rows, 0 available');
      await page.locator('.g-picture').scrollIntoViewIfNeeded();
      await shot(page, 'group-picture', size);
      const box = await page.locator('.g-picture a.g-shape path').first().boundingBox();
      assert.ok(box);
      await (size === 'phone'
        ? page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2)
        : page.mouse.click(box.x + box.width / 2, box.y + box.height / 2));
      await page.waitForURL(`**/p/${namespace}`);
      await page.waitForSelector('#app[aria-busy="false"]');
      await close(page);
    }
    await patchProject({ path: '' });
  });
});
