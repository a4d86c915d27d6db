import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createFloor, createProject, ENGINE } from './helpers.ts';
import { api, base, heading, json, owner, page, pageErrors, skip, t, useSignedInConsole } from './fixtures-console.ts';
import { shotsAtBothSizes } from './support/browser.ts';

/**
 * The units grid typed into as a person types: key by key, Tab between cells, pauses of up to a second while the
 * cells behind are saving. Every value must land where it was typed, and a conflict is said only for the unit another
 * writer changed.
 */

useSignedInConsole({ shots: 'console-grid' });

type U = { _id: string; __v: number; name: string; price?: number; bedrooms?: string; bathrooms?: number; squareFeet?: number; type?: string };

/** A seeded generator (mulberry32), so a failure can be typed again exactly. */
function seeded(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
/**
 * Pauses biased short: mostly none, sometimes long enough for the cell behind to be saved meanwhile, and full
 * seconds ("Bedrooms 3, Tab, wait 1 s, 2"), so the test stays about half a minute.
 */
const PAUSES = [0, 0, 0, 0, 100, 200, 350, 500, 800, 1000];

/**
 * The network between the console and the service as a person has it: each unit save reaches the service after a
 * seeded 0–600 ms, so answers land while the next cells are typed, in any order across rows. The requests go on to
 * the real service unchanged.
 */
async function slowSaves(random: () => number) {
  const sent = { saves: 0 };
  await page.route(/\/units\/[0-9a-f]{24}$/, async (route) => {
    if (route.request().method() === 'PATCH') {
      sent.saves++;
      await new Promise((r) => setTimeout(r, Math.floor(random() * 600)));
    }
    await route.continue();
  });
  return sent;
}

/** What the grid shows for a row: every typed cell's text (prices with thousands separators). */
const shown = async (name: string) => ({
  name: await page.getByLabel(`Name of ${name}`).inputValue(),
  price: await page.getByLabel(`Price of ${name}`).inputValue(),
  bedrooms: await page.getByLabel(`Bedrooms of ${name}`).inputValue(),
  bathrooms: await page.getByLabel(`Baths of ${name}`).inputValue(),
  squareFeet: await page.getByLabel(`Area of ${name}`).inputValue(),
  type: await page.getByLabel(`Type of ${name}`).inputValue(),
});
const asShown = (w: ReturnType<typeof wantOf>) => ({
  name: w.name,
  price: w.price.toLocaleString('en-US'),
  bedrooms: w.bedrooms,
  bathrooms: String(w.bathrooms),
  squareFeet: String(w.squareFeet),
  type: w.type,
});

const wantOf = (i: number) => ({
  name: `N-${String(i).padStart(2, '0')}`,
  price: 500000 + i * 1111,
  bedrooms: `${(i % 4) + 1}`,
  bathrooms: (i % 3) + 1,
  squareFeet: 900 + i * 7,
  type: `T${i}x`,
});

async function gridProject(name: string, n: number) {
  const p = await createProject(t.app, owner.auth, { name });
  await createFloor(t.app, owner.auth, p._id, { name: 'Ground' });
  const lines = Array.from({ length: n }, (_, i) => `U-${String(i).padStart(2, '0')},Ground,400000,available,1,1,800,A`);
  const res = await api(
    'POST',
    `/projects/${p._id}/inventory/import`,
    `name,floor,price,availability,bedrooms,bathrooms,squareFeet,type\n${lines.join('\n')}\n`,
    {
      'content-type': 'text/csv',
    },
  );
  assert.equal(res.statusCode, 200, res.body);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${base}/admin/projects/${p._id}/units`);
  await heading('Units');
  await page.getByLabel(`Price of U-${String(n - 1).padStart(2, '0')}`).waitFor();
  return p;
}

/** Types one row from its name cell: name, Tab past floor and status, then price, bedrooms, baths, area, type. */
async function typeRow(i: number, pause: () => Promise<void>, values = wantOf(i)) {
  await page.getByLabel(`Name of U-${String(i).padStart(2, '0')}`).focus();
  await page.keyboard.press('Control+A');
  const cells = [values.name, values.price, values.bedrooms, values.bathrooms, values.squareFeet, values.type].map(String);
  for (const [c, text] of cells.entries()) {
    for (const ch of text) await page.keyboard.type(ch);
    await page.keyboard.press('Tab');
    if (c === 0) {
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
    }
    await pause();
  }
}

/** The project's units once every save has landed: asked until they match or ten seconds pass. */
async function settled(project: string, want: (u: U[]) => boolean) {
  let units: U[] = [];
  for (let tries = 0; tries < 50; tries++) {
    units = await json<U[]>('GET', `/units?project=${project}`);
    if (want(units)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return units.sort((a, b) => a.name.localeCompare(b.name));
}

const fields = (u: U) => ({ name: u.name, price: u.price, bedrooms: u.bedrooms, bathrooms: u.bathrooms, squareFeet: u.squareFeet, type: u.type });

describe(`the console's units grid while typing (${ENGINE})`, { skip }, () => {
  test('10 rows × 6 cells typed key by key with pauses: every value is saved where it was typed, no conflict is said', async () => {
    const p = await gridProject('Typing Court', 10);
    const random = seeded(2026);
    const sent = await slowSaves(seeded(34));
    const pause = () => new Promise<void>((r) => setTimeout(r, PAUSES[Math.floor(random() * PAUSES.length)]));
    for (let i = 0; i < 10; i++) await typeRow(i, pause);
    const want = Array.from({ length: 10 }, (_, i) => wantOf(i));
    const units = await settled(p._id, (us) => JSON.stringify(us.map(fields).sort((a, b) => a.name.localeCompare(b.name))) === JSON.stringify(want));
    assert.deepEqual(units.map(fields), want);
    assert.equal(await page.getByRole('alert').count(), 0, (await page.getByRole('alert').allTextContents()).join(' | '));
    for (const w of want) assert.deepEqual(await shown(w.name), asShown(w), `the grid shows ${w.name} as typed`);
    assert.ok(sent.saves >= 50, `${sent.saves} saves went through the slow network (one per changed cell)`);
    await page.unrouteAll({ behavior: 'wait' });
    await shotsAtBothSizes(page, 'console-grid-typed', { desktop: { width: 1440, height: 900 } });
    assert.deepEqual(pageErrors, []);
  });

  test('another writer changes one unit meanwhile: the conflict is said for that unit only, the others are saved', async () => {
    const p = await gridProject('Conflict Court', 3);
    const noPause = () => Promise.resolve();
    await typeRow(0, noPause);
    const other = (await settled(p._id, (us) => us.some((u) => u.name === 'N-00'))).find((u) => u.name === 'U-01')!;
    const res = await api('PATCH', `/units/${other._id}`, { price: 777777 }, { 'if-match': `"${other.__v}"` });
    assert.equal(res.statusCode, 200, res.body);
    await page.getByLabel('Price of U-01').focus();
    await page.keyboard.press('Control+A');
    for (const ch of '612345') await page.keyboard.type(ch);
    await page.keyboard.press('Tab');
    await page.getByRole('alert').filter({ hasText: 'U-01 was changed by someone else meanwhile' }).waitFor();
    await typeRow(2, noPause);
    const units = await settled(p._id, (us) => us.some((u) => u.name === 'N-02' && u.type === 'T2x'));
    assert.deepEqual(fields(units.find((u) => u.name === 'N-00')!), wantOf(0));
    assert.deepEqual(fields(units.find((u) => u.name === 'N-02')!), wantOf(2));
    assert.equal(units.find((u) => u.name === 'U-01')!.price, 777777, 'the other writer’s price stands');
    assert.equal(await page.getByLabel('Price of U-01').inputValue(), '777,777', 'the row shows the other writer’s version');
    const alerts = (await page.getByRole('alert').allTextContents()).join(' | ');
    assert.match(alerts, /U-01 was changed by someone else meanwhile/, 'the conflict is still said after the next row’s saves');
    assert.doesNotMatch(alerts, /N-00|N-02|U-00|U-02/);
    await shotsAtBothSizes(page, 'console-grid-conflict', { desktop: { width: 1440, height: 900 } });
    assert.deepEqual(pageErrors, []);
  });
});
