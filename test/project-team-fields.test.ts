import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { createFloor, createProject, createUnit, type LoggedIn, type TestApp, useOwnerApp, userWithToken } from './helpers.ts';

/**
 * Project fields the sales team reads rather than buyers: `waitlistees` (the waitlist's sign-ups, on their own
 * route), `internalURL` (the team's own link, never public) and `finishes` (handed to the page for the unit sheet).
 */
let t: TestApp;
let owner: LoggedIn;

useOwnerApp({ env: { HOLD_SWEEP_SEC: '0' } }, (f) => ({ t, owner } = f));

const join = (namespace: string, who: string, unit?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/public/waitlist',
    payload: { namespace, firstName: who, lastName: 'Waiting', email: `${who.toLowerCase()}@example.com`, ...(unit ? { unit } : {}) },
    remoteAddress: '192.0.2.150',
  });

describe('waitlistees: GET /projects/{id}/waitlistees', () => {
  test('the sign-ups in the record’s shape, oldest first, with their lead ids; other leads left out; a PATCH ignores the field', async () => {
    const namespace = `wl-${newObjectId().slice(-8)}`;
    const p = await createProject(t.app, owner.auth, { query: { namespace }, body: { waitlistEnabled: true, enableForms: true } });
    const f = await createFloor(t.app, owner.auth, p._id, { name: 'L1' });
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'W1', floor: f._id, body: { availability: 'sold' } });
    assert.equal((await join(namespace, 'Ada', u._id)).statusCode, 201);
    assert.equal((await join(namespace, 'Ben')).statusCode, 201);
    const enquiry = await t.app.inject({
      method: 'POST',
      url: '/public/leads',
      payload: { namespace, firstName: 'Cy', lastName: 'Asking', email: 'cy@example.com', phone: '+1 555 0150' },
      remoteAddress: '192.0.2.151',
    });
    assert.equal(enquiry.statusCode, 201, enquiry.body);
    const res = await t.app.inject({ method: 'GET', url: `/projects/${p._id}/waitlistees`, headers: owner.auth });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-total-count'], '2');
    const list = res.json();
    assert.deepEqual(
      list.map((w: Record<string, unknown>) => [w.firstName, w.lastName, w.email, w.unit]),
      [
        ['Ada', 'Waiting', 'ada@example.com', u._id],
        ['Ben', 'Waiting', 'ben@example.com', undefined],
      ],
    );
    const leads = (await t.app.inject({ method: 'GET', url: `/leads?project=${p._id}&filters[source]=waitlist`, headers: owner.auth })).json();
    assert.deepEqual(list.map((w: { _id: string }) => w._id).sort(), leads.map((l: { _id: string }) => l._id).sort());
    for (const w of list) assert.match(w.createdAt, /^\d{4}-\d\d-\d\dT/);
    // Sent back with the project, it changes nothing.
    const patched = await t.app.inject({ method: 'PATCH', url: `/projects/${p._id}`, headers: owner.auth, payload: { waitlistees: [], name: 'Renamed' } });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal((await t.app.inject({ method: 'GET', url: `/projects/${p._id}/waitlistees`, headers: owner.auth })).json().length, 2);
  });

  test('as its leads: an editor 403, a stranger 404, an unknown project 404', async () => {
    const editor = await userWithToken(t);
    const stranger = await userWithToken(t);
    const p = await createProject(t.app, owner.auth, { body: { waitlistEnabled: true } });
    await t.app.inject({ method: 'PATCH', url: `/projects/${p._id}`, headers: owner.auth, payload: { editors: [editor.id] } });
    const get = (auth: Record<string, string>, id = p._id) => t.app.inject({ method: 'GET', url: `/projects/${id}/waitlistees`, headers: auth });
    assert.equal((await get(owner.auth)).statusCode, 200);
    assert.equal((await get(editor.auth)).statusCode, 403);
    assert.equal((await get(stranger.auth)).statusCode, 404);
    assert.equal((await get(owner.auth, newObjectId())).statusCode, 404);
  });
});

describe('internalURL and finishes', () => {
  test('internalURL is kept for the team and never public; finishes reach the page’s bundle', async () => {
    const namespace = `tf-${newObjectId().slice(-8)}`;
    const p = await createProject(t.app, owner.auth, {
      query: { namespace },
      body: { internalURL: 'https://crm.example.com/projects/42', finishes: ['Oak floors', 'Quartz counters'] },
    });
    assert.equal(p.internalURL, 'https://crm.example.com/projects/42');
    const bundle = await t.app.inject({ method: 'GET', url: `/public/projects/${namespace}` });
    assert.equal(bundle.statusCode, 200, bundle.body);
    assert.equal(bundle.json().project.internalURL, undefined);
    assert.doesNotMatch(bundle.body, /crm\.example\.com/);
    assert.deepEqual(bundle.json().project.finishes, ['Oak floors', 'Quartz counters']);
  });
});
