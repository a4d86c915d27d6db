import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createFloor, createProject, createUnit, type LoggedIn, slug, type TestApp, TestClock, useOwnerApp, type Caller } from './helpers.ts';
import { SseClient } from './sse-client.ts';

let t: TestApp;
let owner: LoggedIn;
let call: Caller;
const clock = new TestClock();
const visitor = { firstName: 'Rita', lastName: 'Realtor', email: 'rita@example.com', phone: '+1 555 0101' };

useOwnerApp({ clock, env: { HOLD_SWEEP_SEC: '0', HOLD_REQUESTS_PER_MINUTE: '1000', HOLDS_PER_CLIENT: '50' } }, (f) => ({ t, owner, call } = f));

/** A launch: four units, A-1 and A-2 allocated to "North Realty", B-1 to "South Homes", C-1 open to all. */
async function launch() {
  const namespace = slug('launch');
  const p = await createProject(t.app, owner.auth, { body: { namespace, onHoldExperienceEnabled: true, onHoldMinsDuration: 30 } });
  const f = await createFloor(t.app, owner.auth, p._id);
  const units: Record<string, string> = {};
  for (const name of ['A-1', 'A-2', 'B-1', 'C-1']) units[name] = (await createUnit(t.app, owner.auth, p._id, { floor: f._id, name }))._id;
  const allocations = [
    { name: 'North Realty', password: 'north-secret-1', allocation: `A-1, ${units['A-2']}` },
    { name: 'South Homes', password: 'south-secret-2', allocation: 'B-1' },
  ];
  const patched = await call('PATCH', `/projects/${p._id}`, { allocations });
  assert.equal(patched.statusCode, 200, patched.body);
  return { p: p._id, namespace, units };
}

const open = (namespace: string, password: string, ip = '203.0.113.20') =>
  t.app.inject({ method: 'POST', url: '/public/allocations/open', payload: { namespace, password }, remoteAddress: ip });
const bundle = (namespace: string, token?: string) =>
  t.app.inject({ method: 'GET', url: `/public/projects/${namespace}`, headers: token ? { 'x-allocation-token': token } : {} });
const hold = (unit: string, token?: string, ip = '198.51.100.30') =>
  t.app.inject({
    method: 'POST',
    url: `/public/units/${unit}/hold`,
    payload: visitor,
    remoteAddress: ip,
    headers: token ? { 'x-allocation-token': token } : {},
  });
const unitsOf = (b: { floors: { units: Record<string, unknown>[] }[] }) => new Map(b.floors.flatMap((f) => f.units).map((u) => [u.name as string, u]));

describe('POST /public/allocations/open', () => {
  test('the right password opens its allocation: name, a 12-hour token and its units', async () => {
    const { namespace, units } = await launch();
    const res = await open(namespace, 'north-secret-1', '203.0.113.21');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.name, 'North Realty');
    assert.equal(body.expiresAt, new Date(clock.now() + 12 * 3600_000).toISOString());
    assert.deepEqual([...body.units].sort(), [units['A-1'], units['A-2']].sort());
    assert.equal(typeof body.token, 'string');
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  test('any wrong password, and an unknown namespace, get the same 401; the 11th try in a minute → 429', async () => {
    const { namespace } = await launch();
    const ip = '203.0.113.22';
    const answers = [await open(namespace, 'north-secret-2', ip), await open(namespace, 'x', ip), await open(slug('nope'), 'north-secret-1', ip)];
    for (const a of answers) {
      assert.equal(a.statusCode, 401);
      const { code, detail, status, title } = a.json();
      assert.deepEqual({ code, detail, status, title }, { code: 'invalid_credentials', detail: 'Wrong password', status: 401, title: 'Invalid credentials' });
    }
    for (let i = 0; i < 7; i++) assert.equal((await open(namespace, `guess-${i}`, ip)).statusCode, 401);
    const limited = await open(namespace, 'north-secret-1', ip);
    assert.equal(limited.statusCode, 429);
    // Another address is not affected.
    assert.equal((await open(namespace, 'north-secret-1', '203.0.113.23')).statusCode, 200);
  });

  test('passwords are write-only: never in the project, its list or its change log', async () => {
    const { p } = await launch();
    for (const url of [`/projects/${p}`, `/projects?options[limit]=100`, `/projects/${p}/events`]) {
      const res = await call('GET', url);
      assert.equal(res.statusCode, 200);
      assert.doesNotMatch(res.body, /north-secret|south-secret/);
    }
    const project = (await call('GET', `/projects/${p}`)).json();
    assert.deepEqual(project.allocations[0], { name: 'North Realty', allocation: project.allocations[0].allocation });
    assert.ok(project.configuredSecrets.includes('allocations[North Realty].password'));
  });
});

describe('allocated units in the bundle, the live feed and holds', () => {
  test('to the public an allocated free unit reads unavailable; to its realtor as it is, allocated: true, never cached publicly', async () => {
    const { namespace } = await launch();
    const pub = await bundle(namespace);
    assert.equal(pub.headers['cache-control'], 'public, max-age=5');
    const seen = unitsOf(pub.json());
    assert.equal(seen.get('A-1')!.availability, 'unavailable');
    assert.equal(seen.get('B-1')!.availability, 'unavailable');
    assert.equal(seen.get('C-1')!.availability, 'available');
    assert.equal(seen.get('A-1')!.allocated, undefined);
    assert.doesNotMatch(pub.body, /North Realty|South Homes/);

    const { token } = (await open(namespace, 'north-secret-1', '203.0.113.24')).json();
    const mine = await bundle(namespace, token);
    assert.equal(mine.statusCode, 200);
    assert.match(String(mine.headers['cache-control']), /^private/);
    assert.notEqual(mine.headers.etag, pub.headers.etag);
    const theirs = unitsOf(mine.json());
    assert.equal(theirs.get('A-1')!.availability, 'available');
    assert.equal(theirs.get('A-1')!.allocated, true);
    assert.equal(theirs.get('A-2')!.allocated, true);
    assert.equal(theirs.get('B-1')!.availability, 'unavailable');
    assert.equal(theirs.get('B-1')!.allocated, undefined);
    // The public bundle is not changed by the realtor's read (no shared cache entry for it).
    assert.equal(unitsOf((await bundle(namespace)).json()).get('A-1')!.availability, 'unavailable');
  });

  test('a public hold on an allocated unit → 409; with the token it works, its lead from allocation:<name>; another realtor → 409', async () => {
    const { p, namespace, units } = await launch();
    assert.equal((await hold(units['A-1']!)).statusCode, 409);
    const north = (await open(namespace, 'north-secret-1', '203.0.113.25')).json().token;
    const south = (await open(namespace, 'south-secret-2', '203.0.113.25')).json().token;
    assert.equal((await hold(units['A-1']!, south)).statusCode, 409);
    const held = await hold(units['A-1']!, north);
    assert.equal(held.statusCode, 200, held.body);
    assert.equal(held.json().availability, 'on_hold');
    const leads = (await call('GET', `/leads?project=${p}`)).json();
    assert.equal(leads[0].source, 'allocation:North Realty');
    // An unallocated unit holds as before, with or without a token.
    assert.equal((await hold(units['C-1']!, north)).statusCode, 200);
  });

  test('a token stops working when the password is replaced, the allocation removed, or after 12 hours; a forged one → 401', async () => {
    const { p, namespace } = await launch();
    const first = (await open(namespace, 'north-secret-1', '203.0.113.26')).json().token;
    assert.equal((await bundle(namespace, first)).statusCode, 200);
    assert.equal((await bundle(namespace, first.slice(0, -2) + 'xx')).statusCode, 401);
    // The same password set again is a new seal: the old token ends.
    const project = (await call('GET', `/projects/${p}`)).json();
    const replaced = project.allocations.map((a: { name: string }) => (a.name === 'North Realty' ? { ...a, password: 'north-secret-1' } : a));
    assert.equal((await call('PATCH', `/projects/${p}`, { allocations: replaced })).statusCode, 200);
    assert.equal((await bundle(namespace, first)).statusCode, 401);

    const second = (await open(namespace, 'north-secret-1', '203.0.113.26')).json().token;
    assert.equal((await bundle(namespace, second)).statusCode, 200);
    clock.advance(12 * 3600_000);
    assert.equal((await bundle(namespace, second)).statusCode, 401);

    const third = (await open(namespace, 'north-secret-1', '203.0.113.26')).json().token;
    const removed = project.allocations.filter((a: { name: string }) => a.name !== 'North Realty');
    assert.equal((await call('PATCH', `/projects/${p}`, { allocations: removed })).statusCode, 200);
    assert.equal((await bundle(namespace, third)).statusCode, 401);
    assert.equal((await open(namespace, 'north-secret-1', '203.0.113.26')).statusCode, 401);
  });

  test("the live feed shows an allocated unit's availability as unavailable where it is available", async () => {
    const { namespace, units } = await launch();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    const base = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';
    const stream = await SseClient.open(`${base}/public/projects/${namespace}/events`);
    try {
      // Staff take an allocated unit off hold and back: the public sees unavailable, never available.
      assert.equal((await call('PATCH', `/units/${units['A-2']}`, { availability: 'reserved' })).statusCode, 200);
      assert.equal((await call('PATCH', `/units/${units['A-2']}`, { availability: 'available' })).statusCode, 200);
      // A unit of no allocation is not masked (reserved, not sold: a project hides sold units from the feed).
      assert.equal((await call('PATCH', `/units/${units['C-1']}`, { availability: 'reserved' })).statusCode, 200);
      await stream.until((c) => c.messages.length >= 3);
      const changes = stream.messages.map((m) => JSON.parse(m.data));
      assert.deepEqual(changes[0].changes.availability, ['unavailable', 'reserved']);
      assert.deepEqual(changes[1].changes.availability, ['reserved', 'unavailable']);
      assert.deepEqual(changes[2].changes.availability, ['available', 'reserved']);
    } finally {
      stream.close();
    }
  });
});
