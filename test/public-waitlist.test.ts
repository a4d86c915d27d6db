import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { createProject, createUnit, type LoggedIn, type TestApp, TestClock, useOwnerApp } from './helpers.ts';

/** POST /public/waitlist: a lead with source "waitlist", bounded, rate-limited and idempotent like enquiries. */
let t: TestApp;
let owner: LoggedIn;
const clock = new TestClock();
const visitor = { firstName: 'Wren', lastName: 'Waiting', email: 'wren@example.com' };

useOwnerApp({ clock, env: { HOLD_SWEEP_SEC: '0', PUBLIC_LEADS_PER_MINUTE: '4' } }, (f) => ({ t, owner } = f));

const post = (payload: object, remoteAddress: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/public/waitlist', payload, headers, remoteAddress });

describe('POST /public/waitlist', () => {
  test('201 when waitlistEnabled, by namespace or id; stored as a lead with source "waitlist" (phone optional), seen in GET /leads', async () => {
    const namespace = `wait-${newObjectId().slice(-8)}`;
    const p = await createProject(t.app, owner.auth, { query: { namespace }, body: { waitlistEnabled: true } });
    const unit = (await createUnit(t.app, owner.auth, p._id, { body: { availability: 'sold' } }))._id;
    const res = await post({ namespace, ...visitor, unit }, '192.0.2.10');
    assert.equal(res.statusCode, 201, res.body);
    const lead = res.json();
    assert.equal(lead.project, p._id);
    assert.equal(lead.source, 'waitlist');
    assert.equal(lead.unit, unit);
    assert.equal(lead.phone, undefined);
    assert.equal(lead.createdAt, new Date(clock.now()).toISOString(), "stamped by the service's clock, not the database's");
    const byId = await post({ project: p._id, ...visitor, firstName: 'Second', phone: '+1 555 0100', source: 'other' }, '192.0.2.10');
    assert.equal(byId.statusCode, 400, "source is the server's to set");
    assert.equal(byId.json().errors[0].path, '/source');
    const second = await post({ project: p._id, ...visitor, firstName: 'Second', phone: '+1 555 0100' }, '192.0.2.10');
    assert.equal(second.statusCode, 201);
    const leads = (await t.app.inject({ method: 'GET', url: `/leads?project=${p._id}`, headers: owner.auth })).json();
    assert.deepEqual(
      leads.map((l: { firstName: string; source: string }) => [l.firstName, l.source]),
      [
        ['Second', 'waitlist'],
        ['Wren', 'waitlist'],
      ],
    );
  });

  test("only a unit that is not free takes entries: an available one → 409 naming /unit, another project's → 400", async () => {
    const namespace = `wait-${newObjectId().slice(-8)}`;
    const p = await createProject(t.app, owner.auth, { query: { namespace }, body: { waitlistEnabled: true } });
    const free = (await createUnit(t.app, owner.auth, p._id))._id;
    const refused = await post({ namespace, ...visitor, unit: free }, '192.0.2.11');
    assert.equal(refused.statusCode, 409, refused.body);
    assert.deepEqual(
      refused.json().errors.map((e: { path: string }) => e.path),
      ['/unit'],
    );
    // A hold whose time has passed reads as available: no waiting list either.
    const lapsed = (
      await createUnit(t.app, owner.auth, p._id, { body: { availability: 'on_hold', onHoldExpiresAt: new Date(clock.now() + 60_000).toISOString() } })
    )._id;
    assert.equal((await post({ namespace, ...visitor, unit: lapsed }, '192.0.2.11')).statusCode, 201, 'held now: its list is open');
    clock.advance(120_000);
    assert.equal((await post({ namespace, ...visitor, unit: lapsed }, '192.0.2.12')).statusCode, 409, 'the hold lapsed');
    const other = await createProject(t.app, owner.auth, { body: { waitlistEnabled: true } });
    const elsewhere = (await createUnit(t.app, owner.auth, other._id, { body: { availability: 'sold' } }))._id;
    const wrong = await post({ namespace, ...visitor, unit: elsewhere }, '192.0.2.12');
    assert.equal(wrong.statusCode, 400);
    assert.equal(wrong.json().errors[0].path, '/unit');
  });

  test('403 without waitlistEnabled (forms alone are not enough); 404 unknown project; 400 naming bad or over-long fields', async () => {
    const p = await createProject(t.app, owner.auth, { body: { enableForms: true } });
    assert.equal((await post({ project: p._id, ...visitor }, '192.0.2.11')).statusCode, 403);
    assert.equal((await post({ project: newObjectId(), ...visitor }, '192.0.2.11')).statusCode, 404);
    await t.app.inject({ method: 'PATCH', url: `/project/${p._id}`, headers: owner.auth, payload: { waitlistEnabled: true } });
    const bad = await post({ project: p._id, ...visitor, email: 'nope', lastName: 'x'.repeat(201), phone: '1' }, '192.0.2.12');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.headers['content-type'] as string, /application\/problem\+json/);
    assert.deepEqual(
      bad
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
      ['/email', '/lastName', '/phone'],
    );
    const none = await post({ ...visitor }, '192.0.2.12');
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().errors[0].path, '/project');
    const rows = await t.db.kysely.selectFrom('leads').select('id').where('project_id', '=', p._id).execute();
    assert.equal(rows.length, 0, 'refusals write nothing');
  });

  test('rate-limited per address like enquiries (PUBLIC_LEADS_PER_MINUTE) → 429 with Retry-After', async () => {
    const p = await createProject(t.app, owner.auth, { body: { waitlistEnabled: true } });
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await post({ project: p._id, ...visitor }, '192.0.2.13');
      codes.push(r.statusCode);
      if (r.statusCode === 429) {
        assert.ok(Number(r.headers['retry-after']) > 0);
        assert.equal(r.json().code, 'rate_limited');
      }
    }
    assert.deepEqual(codes, [201, 201, 201, 201, 429]);
    assert.equal((await post({ project: p._id, ...visitor }, '192.0.2.14')).statusCode, 201, 'another address is not limited');
  });

  test('Idempotency-Key: a retry replays the first answer and writes one lead; another body → 422; a refusal keeps no key', async () => {
    const p = await createProject(t.app, owner.auth, { body: { waitlistEnabled: true } });
    const key = { 'idempotency-key': `wait-${newObjectId()}` };
    const first = await post({ project: p._id, ...visitor }, '192.0.2.15', key);
    const again = await post({ project: p._id, ...visitor }, '192.0.2.15', key);
    assert.equal(first.statusCode, 201);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    assert.equal((await post({ project: p._id, ...visitor, unit: 'other' }, '192.0.2.15', key)).statusCode, 422);
    assert.equal((await t.db.kysely.selectFrom('leads').select('id').where('project_id', '=', p._id).execute()).length, 1);

    const closed = await createProject(t.app, owner.auth, {});
    const key2 = { 'idempotency-key': `wait-${newObjectId()}` };
    assert.equal((await post({ project: closed._id, ...visitor }, '192.0.2.16', key2)).statusCode, 403);
    await t.app.inject({ method: 'PATCH', url: `/project/${closed._id}`, headers: owner.auth, payload: { waitlistEnabled: true } });
    assert.equal((await post({ project: closed._id, ...visitor }, '192.0.2.16', key2)).statusCode, 201);
  });

  test('in the OpenAPI document as a public operation', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/public/waitlist']?.post;
    assert.ok(op, 'documented');
    assert.deepEqual(op.security, []);
    assert.ok(op.responses['201'] && op.responses['403'] && op.responses['429']);
    assert.deepEqual(Object.keys(op.requestBody.content['application/json'].schema.properties).sort(), [
      'customFields',
      'email',
      'firstName',
      'lastName',
      'message',
      'namespace',
      'phone',
      'project',
      'unit',
      'utm',
    ]);
  });
});
