import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { type Caller, caller, createFloor, createProject, createUnit, type LoggedIn, type TestApp, useOwnerApp, userWithToken } from './helpers.ts';

/** POST /floors/{id}/duplicate: a floor copied with its plan, shapes and units, in one transaction, in the change log. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({}, (f) => ({ t, owner, call } = f));

const PLAN = { floorplanUrl: '/media/level-3.webp', path: 'M0 0 h100 v50 h-100 Z' };

async function floorWithUnits(body: Record<string, unknown> = {}) {
  const p = await createProject(t.app, owner.auth, { body });
  const floor = await createFloor(t.app, owner.auth, p._id, { name: 'Level 3', position: 3, body: PLAN });
  await createFloor(t.app, owner.auth, p._id, { name: 'Level 4', position: 4 });
  const a = await createUnit(t.app, owner.auth, p._id, {
    floor: floor._id,
    name: '301',
    position: 0,
    body: { path: 'M10 10 h40 v30 h-40 Z', price: 450000, bedrooms: '2', images: ['/media/a.webp'], availability: 'sold' },
  });
  const b = await createUnit(t.app, owner.auth, p._id, { floor: floor._id, name: '302', position: 1, body: { path: 'M50 10 h40 v30 h-40 Z', price: 390000 } });
  return { p, floor, a, b };
}

describe('POST /floors/{id}/duplicate', () => {
  test('201: a new floor with the plan and a copy of every unit and shape; names given or "(copy)"; copies available; last in order', async () => {
    const { p, floor, a, b } = await floorWithUnits();
    const res = await call('POST', `/floors/${floor._id}/duplicate`, { name: 'Level 5', unitNames: { [a._id]: '501' } });
    assert.equal(res.statusCode, 201, res.body);
    const copy = res.json();
    assert.equal(res.headers.location, `/floors/${copy._id}`);
    assert.equal(res.headers.etag, '"1"');
    assert.notEqual(copy._id, floor._id);
    assert.equal(copy.name, 'Level 5');
    assert.equal(copy.floorplanUrl, PLAN.floorplanUrl);
    assert.equal(copy.path, PLAN.path);
    assert.ok(copy.position > 4, String(copy.position));
    assert.equal(copy.units.length, 2);

    const units = (await call('GET', `/units?project=${p._id}&floor=${copy._id}`)).json();
    assert.deepEqual(
      units.map((u: Record<string, unknown>) => [u.name, u.path, u.price, u.bedrooms, u.availability, u.floor]),
      [
        ['501', 'M10 10 h40 v30 h-40 Z', 450000, '2', 'available', copy._id],
        ['302 (copy)', 'M50 10 h40 v30 h-40 Z', 390000, undefined, 'available', copy._id],
      ],
    );
    assert.deepEqual(units[0].images, ['/media/a.webp']);
    assert.deepEqual(
      copy.units,
      units.map((u: { _id: string }) => u._id),
    );
    // The originals are untouched.
    assert.equal((await call('GET', `/units/${a._id}`)).json().availability, 'sold');
    assert.equal((await call('GET', `/units/${b._id}`)).json().name, '302');
    const project = (await call('GET', `/project/${p._id}`)).json();
    assert.equal(project.floors.at(-1), copy._id);

    const defaults = (await call('POST', `/floors/${floor._id}/duplicate`, {})).json();
    assert.equal(defaults.name, 'Level 3 (copy)');
    // No body at all (or an empty JSON body) is the defaults too.
    for (const headers of [{}, { 'content-type': 'application/json' }]) {
      const bare = await t.app.inject({ method: 'POST', url: `/floors/${floor._id}/duplicate`, headers: { ...owner.auth, ...headers } });
      assert.equal(bare.statusCode, 201, bare.body);
    }
  });

  test('the change log: floor.created and one unit.created per copy, one batch; the bundle shows the new floor', async () => {
    const ns = `dup-${newObjectId().slice(-8)}`;
    const { p, floor } = await floorWithUnits();
    await call('PATCH', `/project/${p._id}`, { namespace: ns });
    const before = (await call('GET', `/projects/${p._id}/events`)).json().length;
    const copy = (await call('POST', `/floors/${floor._id}/duplicate`, { position: 10 })).json();
    const events = (await call('GET', `/projects/${p._id}/events`)).json().slice(before);
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['floor.created', 'unit.created', 'unit.created'],
    );
    assert.equal(events[0].data._id, copy._id);
    assert.deepEqual(events[0].data.changes.name, [null, 'Level 3 (copy)']);
    assert.deepEqual(events[1].data.changes.floor, [null, copy._id]);
    assert.ok(events.every((e: { data: { batch?: string } }) => e.data.batch === copy._id));
    const bundle = (await t.app.inject({ method: 'GET', url: `/public/projects/${ns}`, headers: { host: 'pages.localhost' } })).json();
    const shown = bundle.floors.find((f: { _id: string }) => f._id === copy._id);
    assert.equal(shown.units.length, 2);
  });

  test('editors may; strangers 404; no token 401; unknown floor 404; a unit name for another floor’s unit or a bad body → 400 and nothing written', async () => {
    const editor = await userWithToken(t);
    const stranger = await userWithToken(t);
    const { p, floor } = await floorWithUnits({ editors: [editor.id] });
    const other = await createUnit(t.app, owner.auth, p._id, { name: 'Lobby' });
    assert.equal((await caller(t.app, editor.auth)('POST', `/floors/${floor._id}/duplicate`, { name: 'By editor' })).statusCode, 201);
    assert.equal((await caller(t.app, stranger.auth)('POST', `/floors/${floor._id}/duplicate`, {})).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'POST', url: `/floors/${floor._id}/duplicate`, payload: {} })).statusCode, 401);
    assert.equal((await call('POST', `/floors/${newObjectId()}/duplicate`, {})).statusCode, 404);
    const floorsBefore = (await call('GET', `/project/${p._id}`)).json().floors.length;
    const stray = await call('POST', `/floors/${floor._id}/duplicate`, { unitNames: { [other._id]: 'X' } });
    assert.equal(stray.statusCode, 400);
    assert.equal(stray.json().errors[0].path, `/unitNames/${other._id}`);
    for (const bad of [{ name: '' }, { unitNames: { nope: 'X' } }, { colour: 'red' }, { unitNames: { [other._id]: '' } }]) {
      assert.equal((await call('POST', `/floors/${floor._id}/duplicate`, bad)).statusCode, 400, JSON.stringify(bad));
    }
    assert.equal((await call('GET', `/project/${p._id}`)).json().floors.length, floorsBefore);
  });

  test('Idempotency-Key: a retry gets the first answer again and copies nothing more; the same key with another body → 422', async () => {
    const { p, floor } = await floorWithUnits();
    const send = (key: string, body: object) =>
      t.app.inject({ method: 'POST', url: `/floors/${floor._id}/duplicate`, headers: { ...owner.auth, 'idempotency-key': key }, payload: body });
    const key = `dup-${newObjectId()}`;
    const first = await send(key, { name: 'Level 5' });
    assert.equal(first.statusCode, 201, first.body);
    const again = await send(key, { name: 'Level 5' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json()._id, first.json()._id);
    assert.equal((await send(key, { name: 'Level 6' })).statusCode, 422);
    assert.equal((await call('GET', `/project/${p._id}`)).json().floors.length, 3, 'two floors and one copy');
  });
});
