import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Caller, createProject, createUnit, type LoggedIn, type TestApp, useOwnerApp } from './helpers.ts';

/** The last bulk change, undone from the change log: every event of one bulk PATCH shares a batch and keeps its before values. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({}, (f) => ({ t, owner, call } = f));

describe('undo of a bulk change, from history', () => {
  test('one bulk PATCH → one unit.updated per unit under one batch, with before values; PATCHing those back restores the units', async () => {
    const p = await createProject(t.app, owner.auth);
    const a = await createUnit(t.app, owner.auth, p._id, { name: 'A', body: { price: 100000, availability: 'available' } });
    const b = await createUnit(t.app, owner.auth, p._id, { name: 'B', body: { price: 200000 } });
    // An earlier single change is not part of the bulk change.
    await call('PATCH', `/units/${a._id}`, { bedrooms: '2' });
    const bulk = await call('PATCH', '/units', [
      { _id: a._id, price: 103000, availability: 'reserved' },
      { _id: b._id, price: 206000 },
    ]);
    assert.equal(bulk.statusCode, 200, bulk.body);

    const events = (await call('GET', `/projects/${p._id}/events`)).json() as {
      type: string;
      actor: { id?: string };
      data: { _id: string; batch?: string; changes?: Record<string, [unknown, unknown]> };
    }[];
    const last = events.filter((e) => e.type === 'unit.updated' && e.data.batch && e.actor.id === owner.id).at(-1)!;
    const batch = events.filter((e) => e.data.batch === last.data.batch);
    assert.deepEqual(
      batch.map((e) => [e.data._id, e.data.changes]),
      [
        [a._id, { price: [100000, 103000], availability: ['available', 'reserved'] }],
        [b._id, { price: [200000, 206000] }],
      ],
    );
    assert.equal(events.find((e) => e.data.changes?.bedrooms)?.data.batch, undefined);

    // The undo a console sends: each field back to its before value.
    const undo = batch.map((e) => ({ _id: e.data._id, ...Object.fromEntries(Object.entries(e.data.changes ?? {}).map(([k, [before]]) => [k, before])) }));
    assert.equal((await call('PATCH', '/units', undo)).statusCode, 200);
    const [ua, ub] = [(await call('GET', `/units/${a._id}`)).json(), (await call('GET', `/units/${b._id}`)).json()];
    assert.deepEqual([ua.price, ua.availability, ua.bedrooms, ub.price], [100000, 'available', '2', 200000]);
  });
});
