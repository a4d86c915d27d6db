import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { type Caller, caller, createFloor, createProject, createUnit, type LoggedIn, type TestApp, useOwnerApp, userWithToken } from './helpers.ts';
import { filePart, planPng } from './support/plan-image.ts';

/**
 * Setting a building up floor by floor: a copy renumbered (Level 1 → Level 2, 101 → 201), outlines copied from
 * another floor, outlines suggested from the plan picture, and a layout and photos given to every unit of a type.
 */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({}, (f) => ({ t, owner, call } = f));

type U = { _id: string; name: string; path?: string; layoutUrl?: string; layoutGallery?: string[]; images?: string[]; type?: string; floor: string };
const units = async (project: string, floor: string): Promise<U[]> => (await call('GET', `/units?project=${project}&floor=${floor}`)).json();

async function building() {
  const p = await createProject(t.app, owner.auth);
  const l1 = await createFloor(t.app, owner.auth, p._id, { name: 'Level 1', position: 1 });
  const l2 = await createFloor(t.app, owner.auth, p._id, { name: 'Level 2', position: 2 });
  const drawn = ['M0 0 L100 0 L100 100 L0 100 Z', 'M100 0 L200 0 L200 100 L100 100 Z', 'M200 0 L300 0 L300 100 L200 100 Z'];
  for (const [i, path] of drawn.entries()) {
    await createUnit(t.app, owner.auth, p._id, {
      floor: l1._id,
      name: `10${i + 1}`,
      position: i,
      body: { path, type: i === 2 ? 'B' : 'A', price: 1000 * (i + 1) },
    });
  }
  return { p, l1, l2, drawn };
}

describe('POST /floors/{id}/duplicate with renumber', () => {
  test('"Level 1" → the next free number (Level 3 when Level 2 exists); 101 → 301; other names keep " (copy)"; names given still win', async () => {
    const { p, l1 } = await building();
    const lobby = await createUnit(t.app, owner.auth, p._id, { floor: l1._id, name: 'Lobby', position: 9 });
    const res = await call('POST', `/floors/${l1._id}/duplicate`, { renumber: true });
    assert.equal(res.statusCode, 201, res.body);
    const copy = res.json();
    assert.equal(copy.name, 'Level 3');
    const names = (await units(p._id, copy._id)).map((u) => [u.name, u.path !== undefined]);
    assert.deepEqual(names, [
      ['301', true],
      ['302', true],
      ['303', true],
      ['Lobby (copy)', false],
    ]);
    const named = (await call('POST', `/floors/${l1._id}/duplicate`, { renumber: true, name: 'Penthouse', unitNames: { [lobby._id]: 'Lounge' } })).json();
    assert.equal(named.name, 'Penthouse');
    assert.deepEqual(
      (await units(p._id, named._id)).map((u) => u.name),
      ['401', '402', '403', 'Lounge'],
    );
    assert.equal((await call('POST', `/floors/${l1._id}/duplicate`, { renumber: 'yes' })).statusCode, 400);
  });
});

describe('POST /floors/{id}/copy-outlines', () => {
  test('201…203 get 101…103’s outlines (by number, whatever their order); drawn ones kept unless overwrite; unmatched named; one unit.updated each', async () => {
    const { p, l1, l2, drawn } = await building();
    // Created in another order, and one drawn already.
    await createUnit(t.app, owner.auth, p._id, { floor: l2._id, name: '203', position: 0 });
    await createUnit(t.app, owner.auth, p._id, { floor: l2._id, name: '201', position: 1, body: { path: 'M1 1 L2 1 L2 2 Z' } });
    await createUnit(t.app, owner.auth, p._id, { floor: l2._id, name: '202', position: 2 });
    const before = (await call('GET', `/projects/${p._id}/events`)).json().length;
    const res = await call('POST', `/floors/${l2._id}/copy-outlines`, { from: l1._id });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json().units.map((u: U) => u.name),
      ['203', '202'],
    );
    assert.deepEqual(res.json().unmatched, []);
    const byName = Object.fromEntries((await units(p._id, l2._id)).map((u) => [u.name, u.path]));
    assert.deepEqual(byName, { '201': 'M1 1 L2 1 L2 2 Z', '202': drawn[1], '203': drawn[2] });
    const events = (await call('GET', `/projects/${p._id}/events`)).json().slice(before);
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['unit.updated', 'unit.updated'],
    );

    const over = (await call('POST', `/floors/${l2._id}/copy-outlines`, { from: l1._id, overwrite: true })).json();
    assert.deepEqual(
      over.units.map((u: U) => [u.name, u.path]),
      [['201', drawn[0]]],
    );
    await createUnit(t.app, owner.auth, p._id, { floor: l2._id, name: '204', position: 3 });
    assert.deepEqual((await call('POST', `/floors/${l2._id}/copy-outlines`, { from: l1._id })).json(), { units: [], unmatched: ['204'] });
  });

  test('from must be another floor of the project (400); strangers 404; unknown floor 404', async () => {
    const { l1, l2 } = await building();
    const other = await building();
    for (const from of [l2._id, other.l1._id, newObjectId()]) {
      const res = await call('POST', `/floors/${l2._id}/copy-outlines`, { from });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().errors[0].path, '/from');
    }
    assert.equal((await call('POST', `/floors/${l2._id}/copy-outlines`, {})).statusCode, 400);
    const stranger = await userWithToken(t);
    assert.equal((await caller(t.app, stranger.auth)('POST', `/floors/${l2._id}/copy-outlines`, { from: l1._id })).statusCode, 404);
    assert.equal((await call('POST', `/floors/${newObjectId()}/copy-outlines`, { from: l1._id })).statusCode, 404);
  });
});

describe('PATCH /units/by-type', () => {
  test('every unit of the type gets the layout and photos, on every floor; others untouched; the answer lists them', async () => {
    const { p, l1, l2 } = await building();
    await createUnit(t.app, owner.auth, p._id, { floor: l2._id, name: '201', position: 0, body: { type: 'A', images: ['/media/old.webp'] } });
    const res = await call('PATCH', '/units/by-type', { project: p._id, type: 'A', layoutUrl: '/media/a.png', images: ['/media/a1.png', '/media/a2.png'] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res
        .json()
        .map((u: U) => u.name)
        .sort(),
      ['101', '102', '201'],
    );
    const all = [...(await units(p._id, l1._id)), ...(await units(p._id, l2._id))];
    for (const u of all) {
      if (u.type === 'A') {
        assert.equal(u.layoutUrl, '/media/a.png', u.name);
        assert.deepEqual(u.images, ['/media/a1.png', '/media/a2.png'], u.name);
      } else assert.equal(u.layoutUrl, undefined, u.name);
    }
    assert.deepEqual((await call('PATCH', '/units/by-type', { project: p._id, type: 'Z', layoutUrl: '/media/z.png' })).json(), []);
  });

  test('nothing to set or an unknown field → 400; strangers 404 and nothing changes', async () => {
    const { p } = await building();
    assert.equal((await call('PATCH', '/units/by-type', { project: p._id, type: 'A' })).statusCode, 400);
    assert.equal((await call('PATCH', '/units/by-type', { project: p._id, type: 'A', price: 1 })).statusCode, 400);
    const stranger = await userWithToken(t);
    assert.equal((await caller(t.app, stranger.auth)('PATCH', '/units/by-type', { project: p._id, type: 'A', layoutUrl: '/media/x.png' })).statusCode, 404);
    assert.equal(
      (await units(p._id, (await building()).l1._id)).every((u) => u.layoutUrl === undefined),
      true,
    );
  });
});

describe('GET /floors/{id}/outline-suggestions', () => {
  const upload = async (body: Buffer) => {
    const m = filePart(body, 'plan.png');
    const res = await t.app.inject({ method: 'POST', url: '/media', payload: m.payload, headers: { ...owner.auth, 'content-type': m.contentType } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().url as string;
  };

  test('the synthetic plan: ten units and the stair core found, in reading order, rectangles as rectangles and the L as an L', async () => {
    const p = await createProject(t.app, owner.auth);
    const floor = await createFloor(t.app, owner.auth, p._id, { name: 'Level 1', body: { floorplanUrl: await upload(await planPng()) } });
    const res = await call('GET', `/floors/${floor._id}/outline-suggestions`);
    assert.equal(res.statusCode, 200, res.body);
    const found = res.json().suggestions as { path: string; box: { x: number; y: number; width: number; height: number }; fill: number }[];
    assert.equal(found.length, 11);
    // The plan is 1000 × 500, drawn at 0.6 in the 600 × 300 drawing: unit k of the top row spans x 12 + 115.2 k … 12 + 115.2 (k + 1).
    found.slice(0, 4).forEach((s, k) => {
      assert.ok(Math.abs(s.box.x - (12 + 115.2 * k)) <= 4, JSON.stringify(s.box));
      assert.ok(Math.abs(s.box.width - 115.2) <= 6, JSON.stringify(s.box));
      assert.equal(s.path.split('L').length, 4, s.path);
    });
    const l = found[9];
    assert.ok(l && l.fill < 0.9 && l.path.split('L').length === 6, JSON.stringify(l));
    assert.ok(found[10] && found[10].fill === 1 && found[10].box.width < 60, 'the stair core comes last');
  });

  test('door gaps up to 1.6 % of the plan’s width still close their rooms; no picture or a picture elsewhere → none; strangers 404', async () => {
    const p = await createProject(t.app, owner.auth);
    const doors = await createFloor(t.app, owner.auth, p._id, { name: 'Doors', body: { floorplanUrl: await upload(await planPng({ doors: 16 })) } });
    assert.equal((await call('GET', `/floors/${doors._id}/outline-suggestions`)).json().suggestions.length, 11);
    const bare = await createFloor(t.app, owner.auth, p._id, { name: 'Bare' });
    const away = await createFloor(t.app, owner.auth, p._id, { name: 'Away', body: { floorplanUrl: 'https://example.com/plan.png' } });
    for (const f of [bare, away]) assert.deepEqual((await call('GET', `/floors/${f._id}/outline-suggestions`)).json(), { suggestions: [] });
    const stranger = await userWithToken(t);
    assert.equal((await caller(t.app, stranger.auth)('GET', `/floors/${doors._id}/outline-suggestions`)).statusCode, 404);
  });
});
