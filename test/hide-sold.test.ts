import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { buildTestApp, caller, createFloor, createProject, createUnit, ENGINE, slug, userWithToken, type LoggedIn, type TestApp } from './helpers.ts';
import { SseClient } from './sse-client.ts';

/**
 * With `hideSold`, no public answer names a sold unit — not the bundle, not the live feed (live or
 * replayed), not the unit's own page, not a hold attempt.
 */
let t: TestApp;
let owner: LoggedIn;
let base: string;
const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };

before(async () => {
  t = await buildTestApp({ env: { HOLD_SWEEP_SEC: '0', HOLD_REQUESTS_PER_MINUTE: '1000' } });
  owner = await userWithToken(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

describe(`hideSold names no sold unit in any public answer (${ENGINE})`, () => {
  test('bundle, live feed (live and resumed), unit page and holds', async () => {
    const call = caller(t.app, owner.auth);
    const ns = slug();
    const p = await createProject(t.app, owner.auth, {
      query: { namespace: ns },
      body: { hideSold: true, showPrices: true, onHoldExperienceEnabled: true, waitlistEnabled: true, sharePageEnabled: true },
    });
    const floor = await createFloor(t.app, owner.auth, p._id, { name: 'L1' });
    const a = await createUnit(t.app, owner.auth, p._id, { name: 'SECRET-A', floor: floor._id, body: { price: 1, path: 'M0 0h10v10z' } });
    const b = await createUnit(t.app, owner.auth, p._id, { name: 'VISIBLE-B', floor: floor._id, body: { price: 1 } });

    const stream = await SseClient.open(`${base}/public/projects/${ns}/events`);
    let firstSeq = 0;
    let c: { _id: string };
    try {
      assert.equal((await call('PATCH', `/units/${a._id}`, { availability: 'sold' })).statusCode, 200);
      assert.equal((await call('PATCH', `/units/${b._id}`, { price: 2 })).statusCode, 200);
      c = await createUnit(t.app, owner.auth, p._id, { name: 'SECRET-C', floor: floor._id, body: { availability: 'sold' } });
      assert.equal((await call('PATCH', `/units/${a._id}`, { description: 'not public' })).statusCode, 200);
      assert.equal((await call('PATCH', `/units/${a._id}`, { price: 3 })).statusCode, 200);
      assert.equal((await call('DELETE', `/units/${c._id}`)).statusCode, 204);
      await stream.until((s) => s.json().some((m) => m.type === 'unit.deleted'));
      const got = stream.json();
      firstSeq = got[0].seq;
      assert.deepEqual(
        got.map((m) => [m.type, m._id ?? null, m.changes ?? null]),
        [
          ['unit.updated', null, null], // A became sold: something changed, not which unit
          ['unit.updated', b._id, { price: [1, 2] }],
          ['unit.created', null, null], // C created sold
          ['unit.updated', null, null], // A's price, while sold (its description change is not public at all)
          ['unit.deleted', null, null],
        ],
      );
    } finally {
      stream.close();
    }
    const resumed = await SseClient.open(`${base}/public/projects/${ns}/events`, { 'last-event-id': String(firstSeq - 1) });
    try {
      await resumed.until((s) => s.messages.length >= 5);
      for (const id of [a._id, c._id])
        assert.ok(!resumed.body.includes(id) && !resumed.messages.some((m) => m.data.includes(id)), 'a resumed stream names no sold unit');
    } finally {
      resumed.close();
    }

    const bundle = await t.app.inject({ method: 'GET', url: `/public/projects/${ns}` });
    assert.equal(bundle.statusCode, 200);
    for (const secret of [a._id, 'SECRET-A', c._id, 'SECRET-C']) assert.ok(!bundle.body.includes(secret), `${secret} is not in the bundle`);
    assert.deepEqual(bundle.json().floors[0].soldShapes, ['M0 0h10v10z']);

    // The unit's own page would carry its name in the title and card tags: a hidden sold unit is not found.
    const page = await t.app.inject({ method: 'GET', url: `/p/${ns}/units/${a._id}`, headers: { host: 'pages.localhost' } });
    assert.equal(page.statusCode, 404);
    assert.ok(!page.body.includes('SECRET-A'));
    const visible = await t.app.inject({ method: 'GET', url: `/p/${ns}/units/${b._id}`, headers: { host: 'pages.localhost' } });
    assert.equal(visible.statusCode, 200, visible.body.slice(0, 300));
    assert.ok(visible.body.includes('VISIBLE-B'));

    // A hold on it answers as for an unknown unit (not 409, which would say it exists and is taken).
    const hold = await t.app.inject({ method: 'POST', url: `/public/units/${a._id}/hold`, payload: visitor, remoteAddress: '198.51.100.7' });
    assert.equal(hold.statusCode, 404, hold.body);
    assert.ok(!hold.body.includes('SECRET-A'));

    // Shown again once the project stops hiding sold units.
    assert.equal((await call('PATCH', `/project/${p._id}`, { hideSold: false })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: `/p/${ns}/units/${a._id}`, headers: { host: 'pages.localhost' } })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'POST', url: `/public/units/${a._id}/hold`, payload: visitor, remoteAddress: '198.51.100.7' })).statusCode, 409);
  });
});
