import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { buildTestApp, caller, createFloor, createProject, createUnit, userWithToken, type TestApp } from './helpers.ts';

/** PATCH /units: many units, all or nothing, per-item ifMatch, errors by index, one transaction. */
let t: TestApp;
let owner: Awaited<ReturnType<typeof userWithToken>>;
let stranger: Awaited<ReturnType<typeof userWithToken>>;
let call: ReturnType<typeof caller>;

before(async () => {
  t = await buildTestApp({ env: { INVENTORY_SYNC_MINUTES: '0' } });
  owner = await userWithToken(t);
  stranger = await userWithToken(t);
  call = caller(t.app, owner.auth);
});
after(() => t.close());

async function project(units = 3) {
  const p = await createProject(t.app, owner.auth);
  const f = await createFloor(t.app, owner.auth, p._id, { name: 'Ground' });
  const list = [];
  for (let i = 0; i < units; i++) list.push(await createUnit(t.app, owner.auth, p._id, { floor: f._id, name: `U${i}`, position: i, body: { price: 100 + i } }));
  return { p, f, units: list };
}

const get = async (id: string) => (await call('GET', `/units/${id}`)).json();

describe('PATCH /units (bulk)', () => {
  test('changes every item, answers the updated units in request order, bumps versions', async () => {
    const { units } = await project(3);
    const res = await call('PATCH', '/units', [
      { _id: units[2]!._id, price: 999, availability: 'SOLD' },
      { _id: units[0]!._id, description: 'Corner' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(
      body.map((u: { _id: string }) => u._id),
      [units[2]!._id, units[0]!._id],
    );
    assert.equal(body[0].price, 999);
    assert.equal(body[0].availability, 'sold');
    assert.equal(body[1].description, 'Corner');
    assert.equal(body[1].price, 100, 'fields not sent are kept');
    assert.equal((await get(units[2]!._id)).price, 999);
    assert.equal((await get(units[1]!._id)).price, 101, 'units not named are untouched');
    const etag = (await call('GET', `/units/${units[0]!._id}`)).headers.etag;
    assert.notEqual(etag, `"${units[0]!.__v ?? 1}"`);
  });

  test('one bad item → 400 naming it by index, nothing written', async () => {
    const { units } = await project(4);
    const res = await call('PATCH', '/units', [
      { _id: units[0]!._id, price: 1 },
      { _id: units[1]!._id, price: 2 },
      { _id: units[2]!._id, price: 3 },
      { _id: units[3]!._id, price: 'lots' },
    ]);
    assert.equal(res.statusCode, 400);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(
      res.json().errors.map((e: { path: string }) => e.path),
      ['/3/price'],
    );
    for (const [i, u] of units.entries()) assert.equal((await get(u._id)).price, 100 + i, 'nothing written');
  });

  test('an id the caller cannot see, or that does not exist → 400 at /i/_id "not found"; unknown fields and a foreign floor named', async () => {
    const mine = await project(1);
    const theirs = await createProject(t.app, stranger.auth);
    const theirUnit = await createUnit(t.app, stranger.auth, theirs._id, { name: 'Theirs' });
    const otherFloor = await createFloor(t.app, stranger.auth, theirs._id);
    const res = await call('PATCH', '/units', [
      { _id: mine.units[0]!._id, price: 5 },
      { _id: theirUnit._id, price: 5 },
      { _id: newObjectId(), price: 5 },
      { _id: mine.units[0]!._id, floor: otherFloor._id },
    ]);
    assert.equal(res.statusCode, 400);
    const errors = res.json().errors as { path: string; message: string }[];
    assert.deepEqual(errors.find((e) => e.path === '/1/_id')?.message, 'not found');
    assert.deepEqual(errors.find((e) => e.path === '/2/_id')?.message, 'not found');
    assert.ok(
      errors.some((e) => e.path === '/3/floor'),
      JSON.stringify(errors),
    );
    assert.ok(
      errors.some((e) => e.path === '/3/_id' && /repeats item 0/.test(e.message)),
      'the same unit twice is named',
    );
    const unknown = await call('PATCH', '/units', [{ _id: mine.units[0]!._id, colour: 'red' }]);
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(
      unknown.json().errors.map((e: { path: string }) => e.path),
      ['/0/colour'],
    );
    const noId = await call('PATCH', '/units', [{ price: 1 }]);
    assert.deepEqual(
      noId.json().errors.map((e: { path: string }) => e.path),
      ['/0/_id'],
    );
    assert.equal((await get(mine.units[0]!._id)).price, 100);
  });

  test('a stale ifMatch on one item → 412 and nothing written; current ones and "*" pass', async () => {
    const { units } = await project(2);
    const etags = await Promise.all(units.map(async (u) => (await call('GET', `/units/${u._id}`)).headers.etag as string));
    await call('PATCH', `/units/${units[1]!._id}`, { description: 'changed meanwhile' });
    const stale = await call('PATCH', '/units', [
      { _id: units[0]!._id, price: 1, ifMatch: etags[0] },
      { _id: units[1]!._id, price: 2, ifMatch: etags[1] },
    ]);
    assert.equal(stale.statusCode, 412, stale.body);
    assert.deepEqual(
      stale.json().errors.map((e: { path: string }) => e.path),
      ['/1/ifMatch'],
    );
    assert.equal((await get(units[0]!._id)).price, 100, 'the fresh item was not written either');
    const fresh = await call('PATCH', '/units', [
      { _id: units[0]!._id, price: 1, ifMatch: etags[0] },
      { _id: units[1]!._id, price: 2, ifMatch: '*' },
    ]);
    assert.equal(fresh.statusCode, 200, fresh.body);
    assert.deepEqual(
      fresh.json().map((u: { price: number }) => u.price),
      [1, 2],
    );
    // An item's ifMatch is compared strongly, and one that is no entity tag is a 400 naming the item.
    const current = (await call('GET', `/units/${units[0]!._id}`)).headers.etag as string;
    const weak = await call('PATCH', '/units', [{ _id: units[0]!._id, price: 3, ifMatch: `W/${current}` }]);
    assert.equal(weak.statusCode, 412, weak.body);
    const bare = await call('PATCH', '/units', [{ _id: units[0]!._id, price: 3, ifMatch: current.replaceAll('"', '') }]);
    assert.equal(bare.statusCode, 400, bare.body);
    assert.deepEqual(
      bare.json().errors.map((e: { path: string }) => e.path),
      ['/0/ifMatch'],
    );
  });

  test('fetched units sent back whole are no change (same ETags); moves between floors keep both floors right', async () => {
    const { p, f, units } = await project(2);
    const other = await createFloor(t.app, owner.auth, p._id, { name: 'First' });
    const fetched = await Promise.all(units.map((u) => get(u._id)));
    const same = await call('PATCH', '/units', fetched);
    assert.equal(same.statusCode, 200, same.body);
    for (const [i, u] of same.json().entries()) assert.equal(u.updatedAt, fetched[i].updatedAt);
    const moved = await call('PATCH', '/units', [{ _id: units[0]!._id, floor: other._id }]);
    assert.equal(moved.statusCode, 200, moved.body);
    assert.deepEqual((await call('GET', `/floors/${other._id}`)).json().units, [units[0]!._id]);
    assert.deepEqual((await call('GET', `/floors/${f._id}`)).json().units, [units[1]!._id]);
  });

  test('editors may bulk-edit; strangers see only "not found"; more than 1000 items or none → 400', async () => {
    const editor = await userWithToken(t);
    const { p, units } = await project(1);
    await call('PATCH', `/project/${p._id}`, { editors: [editor.id] });
    const asEditor = await caller(t.app, editor.auth)('PATCH', '/units', [{ _id: units[0]!._id, price: 7 }]);
    assert.equal(asEditor.statusCode, 200, asEditor.body);
    const asStranger = await caller(t.app, stranger.auth)('PATCH', '/units', [{ _id: units[0]!._id, price: 8 }]);
    assert.equal(asStranger.statusCode, 400);
    assert.equal(asStranger.json().errors[0].message, 'not found');
    assert.equal((await call('PATCH', '/units', [])).statusCode, 400);
    const many = Array.from({ length: 1001 }, () => ({ _id: units[0]!._id }));
    assert.equal((await call('PATCH', '/units', many)).statusCode, 400);
    assert.equal((await caller(t.app)('PATCH', '/units', [{ _id: units[0]!._id }])).statusCode, 401);
  });

  test('one transaction: 300 units of two projects change together', async () => {
    const a = await project(0);
    const b = await project(0);
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) {
      ids.push((await createUnit(t.app, owner.auth, a.p._id, { name: `A${i}` }))._id);
      ids.push((await createUnit(t.app, owner.auth, b.p._id, { name: `B${i}` }))._id);
    }
    const res = await call(
      'PATCH',
      '/units',
      ids.map((_id, i) => ({ _id, price: i, availability: i % 2 ? 'reserved' : 'Sold' })),
    );
    assert.equal(res.statusCode, 200);
    const pageA = await call('GET', `/units?project=${a.p._id}&options[limit]=500`);
    assert.equal(pageA.headers['x-total-count'], '150');
    const listA = pageA.json();
    assert.equal(listA.length, 150);
    assert.ok(listA.every((u: { price: number; availability: string }) => u.availability === 'sold' && u.price % 2 === 0));
  });
});
