import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { publicProject, type Caller, caller, type LoggedIn, type TestApp, TestClock, useOwnerApp, userWithToken } from './helpers.ts';

let t: TestApp;
let owner: LoggedIn;
let call: Caller;
const clock = new TestClock();
const buyer = { firstName: 'Bea', lastName: 'Buyer', email: 'bea@example.com', phone: '+1 555 0102' };

useOwnerApp(
  {
    clock,
    env: { HOLD_SWEEP_SEC: '0', HOLD_REQUESTS_PER_MINUTE: '1000', HOLDS_PER_CLIENT: '50', WORKSHEETS_PER_ALLOCATION: '3', PUBLIC_LEADS_PER_MINUTE: '1000' },
  },
  (f) => ({ t, owner, call } = f),
);

let opener = 0;

async function launch() {
  const { id, namespace, units } = await publicProject(t.app, owner.auth, {
    settings: { onHoldExperienceEnabled: true, onHoldMinsDuration: 30 },
    units: { 'A-1': {}, 'A-2': {}, 'B-1': {}, 'C-1': {} },
  });
  const allocations = [
    { name: 'North Realty', password: 'north-secret-1', allocation: 'A-1, A-2' },
    { name: 'South Homes', password: 'south-secret-2', allocation: 'B-1' },
  ];
  assert.equal((await call('PATCH', `/projects/${id}`, { allocations })).statusCode, 200);
  const token = async (password: string) =>
    (await t.app.inject({ method: 'POST', url: '/public/allocations/open', payload: { namespace, password }, remoteAddress: `203.0.113.${++opener}` })).json()
      .token as string;
  return { p: id, namespace, units, north: await token('north-secret-1'), south: await token('south-secret-2') };
}

const submit = (token: string | undefined, body: object) =>
  t.app.inject({ method: 'POST', url: '/public/worksheets', payload: body, headers: token ? { 'x-allocation-token': token } : {} });

describe('worksheets', () => {
  test('submitted with the token (201), listed oldest first with X-Total-Count, each step in the change log', async () => {
    const { p, units, north, south } = await launch();
    const first = await submit(north, { buyer, choices: [units['A-1'], units['C-1']], notes: 'Pre-approved' });
    assert.equal(first.statusCode, 201, first.body);
    const ws = first.json();
    assert.equal(ws.status, 'submitted');
    assert.equal(ws.allocation, 'North Realty');
    assert.deepEqual(ws.choices, [units['A-1'], units['C-1']]);
    assert.deepEqual(ws.buyer, buyer);
    clock.advance(1000);
    const second = (await submit(south, { buyer: { ...buyer, firstName: 'Sam' }, choices: [units['B-1']] })).json();
    const list = await call('GET', `/projects/${p}/worksheets`);
    assert.equal(list.statusCode, 200);
    assert.equal(list.headers['x-total-count'], '2');
    assert.deepEqual(
      list.json().map((w: { _id: string }) => w._id),
      [ws._id, second._id],
    );
    const events = (await call('GET', `/projects/${p}/events`)).json().filter((e: { type: string }) => e.type.startsWith('worksheet.'));
    assert.deepEqual(
      events.map((e: { type: string; data: { _id: string } }) => [e.type, e.data._id]),
      [
        ['worksheet.submitted', ws._id],
        ['worksheet.submitted', second._id],
      ],
    );
    assert.deepEqual(events[0].data.changes.choices, [null, [units['A-1'], units['C-1']]]);
  });

  test('401 without a valid token; 400 for a choice outside the project or more than 3; the pending bound → 409', async () => {
    const { units, north } = await launch();
    const other = await launch();
    assert.equal((await submit(undefined, { buyer, choices: [units['A-1']] })).statusCode, 401);
    assert.equal((await submit('nope.nope', { buyer, choices: [units['A-1']] })).statusCode, 401);
    const outside = await submit(north, { buyer, choices: [other.units['A-1']] });
    assert.equal(outside.statusCode, 400);
    assert.equal(outside.json().errors[0].path, '/choices');
    assert.equal((await submit(north, { buyer, choices: [units['A-1'], units['A-2'], units['B-1'], units['C-1']] })).statusCode, 400);
    for (let i = 0; i < 3; i++) assert.equal((await submit(north, { buyer, choices: [units['A-1']] })).statusCode, 201);
    const bounded = await submit(north, { buyer, choices: [units['A-1']] });
    assert.equal(bounded.statusCode, 409);
    assert.match(bounded.json().detail, /3 worksheets waiting/);
  });

  test('accepting reserves the unit in one transaction; the unit accepted for one worksheet → 409 for any other; decline', async () => {
    const { p, units, north } = await launch();
    const a = (await submit(north, { buyer, choices: [units['A-1'], units['C-1']] })).json();
    const b = (await submit(north, { buyer: { ...buyer, firstName: 'Ben' }, choices: [units['A-1']] })).json();
    const c = (await submit(north, { buyer: { ...buyer, firstName: 'Cal' }, choices: [units['A-2']] })).json();
    const notAChoice = await call('PATCH', `/worksheets/${a._id}`, { status: 'accepted', unit: units['B-1'] });
    assert.equal(notAChoice.statusCode, 400);
    assert.equal(notAChoice.json().errors[0].path, '/unit');
    // Two acceptances for one unit at once: exactly one wins.
    const [ra, rb] = await Promise.all([
      call('PATCH', `/worksheets/${a._id}`, { status: 'accepted', unit: units['A-1'] }),
      call('PATCH', `/worksheets/${b._id}`, { status: 'accepted', unit: units['A-1'] }),
    ]);
    assert.deepEqual([ra.statusCode, rb.statusCode].sort(), [200, 409]);
    const winner = ra.statusCode === 200 ? ra.json() : rb.json();
    assert.equal(winner.status, 'accepted');
    assert.equal(winner.unit, units['A-1']);
    assert.equal((await call('GET', `/units/${units['A-1']}`)).json().availability, 'reserved');
    const loser = ra.statusCode === 200 ? b : a;
    assert.equal((await call('PATCH', `/worksheets/${loser._id}`, { status: 'accepted', unit: units['A-1'] })).statusCode, 409);
    // Accepting again → 409; declining works once.
    assert.equal((await call('PATCH', `/worksheets/${winner._id}`, { status: 'declined' })).statusCode, 409);
    const declined = await call('PATCH', `/worksheets/${c._id}`, { status: 'declined' });
    assert.equal(declined.statusCode, 200);
    assert.equal(declined.json().status, 'declined');
    const types = (await call('GET', `/projects/${p}/events`)).json().map((e: { type: string }) => e.type);
    assert.ok(types.includes('worksheet.accepted') && types.includes('worksheet.declined'));
    assert.equal(types.filter((x: string) => x === 'worksheet.accepted').length, 1);
  });

  test('a unit held by the allocation can be accepted; one held by a public visitor cannot', async () => {
    const { units, north } = await launch();
    const hold = (unit: string, token?: string) =>
      t.app.inject({
        method: 'POST',
        url: `/public/units/${unit}/hold`,
        payload: buyer,
        remoteAddress: '198.51.100.40',
        headers: token ? { 'x-allocation-token': token } : {},
      });
    assert.equal((await hold(units['A-2']!, north)).statusCode, 200);
    assert.equal((await hold(units['C-1']!)).statusCode, 200);
    const w = (await submit(north, { buyer, choices: [units['C-1'], units['A-2']] })).json();
    assert.equal((await call('PATCH', `/worksheets/${w._id}`, { status: 'accepted', unit: units['C-1'] })).statusCode, 409);
    assert.equal((await call('PATCH', `/worksheets/${w._id}`, { status: 'accepted', unit: units['A-2'] })).statusCode, 200);
    // The realtor's hold ended with the acceptance, and its record says when.
    const holds = await t.db.kysely.selectFrom('holds').select(['unit_id', 'released_at']).where('unit_id', 'in', [units['A-2']!, units['C-1']!]).execute();
    const byUnit = Object.fromEntries(holds.map((h) => [h.unit_id, h.released_at]));
    assert.equal(byUnit[units['A-2']!]?.getTime(), clock.now(), 'the accepted unit’s hold is released');
    assert.equal(byUnit[units['C-1']!], null, 'the visitor’s hold stays');
  });

  test('owner and administrators only: an editor → 403, a stranger → 404; editors do not see worksheet events', async () => {
    const { p, units, north } = await launch();
    const w = (await submit(north, { buyer, choices: [units['A-1']] })).json();
    const editor = await userWithToken(t);
    const stranger = await userWithToken(t);
    assert.equal((await call('PATCH', `/projects/${p}`, { editors: [editor.id] })).statusCode, 200);
    const asEditor = caller(t.app, editor.auth);
    const asStranger = caller(t.app, stranger.auth);
    assert.equal((await asEditor('GET', `/projects/${p}/worksheets`)).statusCode, 403);
    const editorPatch = await asEditor('PATCH', `/worksheets/${w._id}`, { status: 'declined' });
    assert.equal(editorPatch.statusCode, 403, editorPatch.body);
    assert.equal((await asStranger('GET', `/projects/${p}/worksheets`)).statusCode, 404);
    assert.equal((await asStranger('PATCH', `/worksheets/${w._id}`, { status: 'declined' })).statusCode, 404);
    const seen = (await asEditor('GET', `/projects/${p}/events`)).json().map((e: { type: string }) => e.type);
    assert.ok(!seen.some((x: string) => x.startsWith('worksheet.')));
  });
});
