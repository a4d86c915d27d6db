import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { createProject, type LoggedIn, type TestApp, TestClock, useOwnerApp } from './helpers.ts';

let t: TestApp;
let owner: LoggedIn;
const clock = new TestClock();
const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };

useOwnerApp({ clock, env: { HOLD_SWEEP_SEC: '0', PUBLIC_LEADS_PER_MINUTE: '5' } }, (f) => ({ t, owner } = f));

describe('POST /public/leads', () => {
  test('201 when enableForms; the lead is in GET /leads for the owner at once; by id or namespace', async () => {
    const namespace = `leads-${newObjectId().slice(-8)}`;
    const p = await createProject(t.app, owner.auth, { query: { namespace }, body: { enableForms: true } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/public/leads',
      payload: { namespace, ...visitor, message: 'Is 101 still free?', questions: [{ question: 'Budget', answer: '500k' }] },
      remoteAddress: '192.0.2.80',
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().project, p._id);
    assert.equal(res.json().updatedAt, res.json().createdAt);
    assert.equal(res.headers.etag, '"1"');
    const byId = await t.app.inject({
      method: 'POST',
      url: '/public/leads',
      payload: { project: p._id, ...visitor, firstName: 'Second' },
      remoteAddress: '192.0.2.80',
    });
    assert.equal(byId.statusCode, 201);
    const leads = (await t.app.inject({ method: 'GET', url: `/leads?project=${p._id}`, headers: owner.auth })).json();
    assert.deepEqual(
      leads.map((l: { firstName: string }) => l.firstName),
      ['Second', 'Vera'],
    );
    assert.deepEqual(leads[1].questions, [{ question: 'Budget', answer: '500k' }]);
  });

  test('403 without enableForms; 404 unknown project; 400 naming bad fields and over-long text', async () => {
    const p = await createProject(t.app, owner.auth, { body: { enableForms: false } });
    const post = (payload: object) => t.app.inject({ method: 'POST', url: '/public/leads', payload, remoteAddress: '192.0.2.81' });
    assert.equal((await post({ project: p._id, ...visitor })).statusCode, 403);
    assert.equal((await post({ project: newObjectId(), ...visitor })).statusCode, 404);
    const bad = await post({ project: p._id, ...visitor, email: 'not-an-email', message: 'x'.repeat(5001) });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      bad
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
      ['/email', '/message'],
    );
    const missing = await post({ ...visitor });
    assert.equal(missing.statusCode, 400);
  });

  test('rate-limited per address (PUBLIC_LEADS_PER_MINUTE) → 429 with Retry-After', async () => {
    const p = await createProject(t.app, owner.auth, { body: { enableForms: true } });
    const codes = [];
    for (let i = 0; i < 6; i++) {
      const r = await t.app.inject({ method: 'POST', url: '/public/leads', payload: { project: p._id, ...visitor }, remoteAddress: '192.0.2.99' });
      codes.push(r.statusCode);
      if (r.statusCode === 429) {
        assert.ok(Number(r.headers['retry-after']) > 0);
        assert.equal(r.json().code, 'rate_limited');
      }
    }
    assert.deepEqual(codes, [201, 201, 201, 201, 201, 429]);
    const elsewhere = await t.app.inject({ method: 'POST', url: '/public/leads', payload: { project: p._id, ...visitor }, remoteAddress: '192.0.2.98' });
    assert.equal(elsewhere.statusCode, 201);
  });

  test('Idempotency-Key: same key and body → the first response, one lead; another body → 422', async () => {
    const p = await createProject(t.app, owner.auth, { body: { enableForms: true } });
    const key = { 'idempotency-key': `lead-${newObjectId()}` };
    const send = (body: object) => t.app.inject({ method: 'POST', url: '/public/leads', payload: body, headers: key, remoteAddress: '192.0.2.90' });
    const first = await send({ project: p._id, ...visitor });
    const again = await send({ project: p._id, ...visitor });
    assert.equal(first.statusCode, 201);
    assert.equal(again.statusCode, 201);
    assert.deepEqual(again.json(), first.json());
    assert.equal((await send({ project: p._id, ...visitor, message: 'changed' })).statusCode, 422);
    const rows = await t.db.kysely.selectFrom('leads').select('id').where('project_id', '=', p._id).execute();
    assert.equal(rows.length, 1);
  });

  test("Idempotency-Key: the body's field order does not matter; concurrent retries write one lead; a refusal is not kept", async () => {
    const p = await createProject(t.app, owner.auth, { body: { enableForms: true } });
    const key = { 'idempotency-key': `lead-${newObjectId()}` };
    const send = (payload: string) =>
      t.app.inject({ method: 'POST', url: '/public/leads', payload, headers: { ...key, 'content-type': 'application/json' }, remoteAddress: '192.0.2.91' });
    const body = { project: p._id, ...visitor, questions: [{ question: 'Q', answer: 'A' }] };
    const reordered = { questions: [{ answer: 'A', question: 'Q' }], ...visitor, project: p._id };
    const [a, b] = await Promise.all([send(JSON.stringify(body)), send(JSON.stringify(reordered))]);
    assert.deepEqual([a.statusCode, b.statusCode], [201, 201]);
    assert.equal(a.json()._id, b.json()._id);
    assert.deepEqual([a.headers['idempotent-replayed'], b.headers['idempotent-replayed']].sort(), ['true', undefined]);
    const rows = await t.db.kysely.selectFrom('leads').select('id').where('project_id', '=', p._id).execute();
    assert.equal(rows.length, 1);

    const closed = await createProject(t.app, owner.auth, { body: { enableForms: false } });
    const key2 = { 'idempotency-key': `lead-${newObjectId()}` };
    const post = () =>
      t.app.inject({ method: 'POST', url: '/public/leads', payload: { project: closed._id, ...visitor }, headers: key2, remoteAddress: '192.0.2.92' });
    assert.equal((await post()).statusCode, 403);
    await t.app.inject({ method: 'PATCH', url: `/project/${closed._id}`, headers: owner.auth, payload: { enableForms: true } });
    assert.equal((await post()).statusCode, 201, 'the 403 wrote nothing, not even the key');
  });

  test('a bad Idempotency-Key → 400 naming the header', async () => {
    const p = await createProject(t.app, owner.auth, { body: { enableForms: true } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/public/leads',
      payload: { project: p._id, ...visitor },
      headers: { 'idempotency-key': 'x'.repeat(201) },
      remoteAddress: '192.0.2.93',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().errors[0].path, '/headers/idempotency-key');
  });

  test('a page on another origin can read ETag and Retry-After (exposed by CORS)', async () => {
    const p = await createProject(t.app, owner.auth, { body: { enableForms: true } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/public/leads',
      payload: { project: p._id, ...visitor },
      headers: { origin: 'https://homes.example.com' },
      remoteAddress: '192.0.2.94',
    });
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
    for (const h of ['etag', 'retry-after', 'idempotent-replayed']) assert.ok(exposed.includes(h), `${h} exposed`);
  });
});
