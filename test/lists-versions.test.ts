import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertLead } from '../src/modules/leads/leads.repo.ts';
import {
  type Caller,
  caller,
  createFloor,
  createGroup,
  createProject,
  createUnit,
  type LoggedIn,
  type TestApp,
  useOwnerApp,
  userWithToken,
} from './helpers.ts';

/** Versions on every record, conditional DELETE, list options/totals/"changed since", unit ranges, idempotent creates. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({ env: { INVENTORY_SYNC_MINUTES: '0' } }, (f) => ({ t, owner, call } = f));

const ids = (list: { _id: string }[]) => list.map((r) => r._id);

describe('__v on every record', () => {
  test('records carry __v in lists and alone; the ETag is "<__v>"; a PATCH raises it; a __v in a body is ignored', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id });
    const g = await createGroup(t.app, owner.auth);
    for (const [url, list] of [
      [`/project/${p._id}`, `/projects?filters[name]=${encodeURIComponent(p.name)}`],
      [`/floors/${f._id}`, `/floors?project=${p._id}`],
      [`/units/${u._id}`, `/units?project=${p._id}`],
      [`/groups/${g._id}`, '/groups'],
    ] as const) {
      const one = await call('GET', url);
      const record = one.json();
      assert.equal(typeof record.__v, 'number', url);
      assert.equal(one.headers.etag, `"${record.__v}"`, url);
      const listed = (await call('GET', list)).json().find((r: { _id: string }) => r._id === record._id);
      assert.equal(listed.__v, record.__v, `${list} carries the version`);
      const patched = await call('PATCH', url, { name: `renamed ${record.__v}`, __v: 999 }, { 'if-match': `"${listed.__v}"` });
      assert.equal(patched.statusCode, 200, `${url}: ${patched.body}`);
      assert.equal(patched.json().__v, record.__v + 1, `${url}: the body's __v is ignored; the server raises its own`);
      assert.equal(patched.headers.etag, `"${record.__v + 1}"`);
    }
    const me = await call('GET', '/users/me');
    assert.equal(me.headers.etag, `"${me.json().__v}"`);
  });

  test('leads carry __v 1 (they never change)', async () => {
    const p = await createProject(t.app, owner.auth);
    await insertLead(t.db.kysely, { id: newObjectId(), projectId: p._id, data: { firstName: 'A', email: 'a@example.com' } });
    const [lead] = (await call('GET', `/leads?project=${p._id}`)).json();
    assert.equal(lead.__v, 1);
  });
});

describe('DELETE honours If-Match', () => {
  test('a stale If-Match → 412 and the record stays; the version from a list → 204 (unit, floor, group, project)', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id });
    const g = await createGroup(t.app, owner.auth);
    for (const [url, list] of [
      [`/units/${u._id}`, `/units?project=${p._id}`],
      [`/floors/${f._id}`, `/floors?project=${p._id}`],
      [`/groups/${g._id}`, '/groups'],
      [`/project/${p._id}`, `/projects?filters[name]=${encodeURIComponent(p.name)}`],
    ] as const) {
      const id = url.split('/').at(-1);
      const listed = (await call('GET', list)).json().find((r: { _id: string }) => r._id === id);
      const stale = await call('DELETE', url, undefined, { 'if-match': `"${listed.__v + 7}"` });
      assert.equal(stale.statusCode, 412, `${url}: ${stale.body}`);
      assert.equal(stale.json().code, 'precondition_failed');
      assert.equal((await call('GET', url)).statusCode, 200, `${url} is still there`);
      const current = (await call('GET', list)).json().find((r: { _id: string }) => r._id === id);
      const res = await call('DELETE', url, undefined, { 'if-match': `"${current.__v}"` });
      assert.equal(res.statusCode, 204, `${url}: ${res.body}`);
      assert.equal((await call('GET', url)).statusCode, 404);
    }
  });
});

describe('list options, totals and filters', () => {
  test('GET /units: skip, limit, sort and X-Total-Count; JSON and bracket form', async () => {
    const p = await createProject(t.app, owner.auth);
    for (const name of ['C', 'A', 'B', 'E', 'D']) await createUnit(t.app, owner.auth, p._id, { name });
    const page = await call('GET', `/units?project=${p._id}&options[sort]=name&options[skip]=1&options[limit]=2`);
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(page.headers['x-total-count'], '5');
    assert.deepEqual(
      page.json().map((u: { name: string }) => u.name),
      ['B', 'C'],
    );
    const json = await call('GET', `/units?project=${p._id}&options=${encodeURIComponent('{"sort":"-name","limit":1}')}`);
    assert.deepEqual(
      json.json().map((u: { name: string }) => u.name),
      ['E'],
    );
    const past = await call('GET', `/units?project=${p._id}&options[skip]=50`);
    assert.deepEqual(past.json(), []);
    assert.equal(past.headers['x-total-count'], '5', 'past the last page the total stays truthful');
    for (const bad of ['options[limit]=0', 'options[limit]=501', 'options[skip]=-1', 'options[sort]=price', 'filters[colour]=red', 'filters[priceMin]=cheap']) {
      const res = await call('GET', `/units?project=${p._id}&${bad}`);
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`);
    }
  });

  test('GET /units: price, area and bedrooms ranges (inclusive) and availability lists', async () => {
    const p = await createProject(t.app, owner.auth);
    const small = await createUnit(t.app, owner.auth, p._id, { name: 'small', body: { price: 100_000, squareFeet: 500, bedrooms: '1' } });
    const mid = await createUnit(t.app, owner.auth, p._id, { name: 'mid', body: { price: 250_000, squareFeet: 900, bedrooms: '2', availability: 'reserved' } });
    const big = await createUnit(t.app, owner.auth, p._id, { name: 'big', body: { price: 600_000, squareFeet: 1500, bedrooms: '3', availability: 'sold' } });
    const bare = await createUnit(t.app, owner.auth, p._id, { name: 'bare' });
    const q = async (filters: string) => {
      const res = await call('GET', `/units?project=${p._id}&options[sort]=name&${filters}`);
      assert.equal(res.statusCode, 200, `${filters}: ${res.body}`);
      assert.equal(res.headers['x-total-count'], String(res.json().length));
      return ids(res.json()).sort();
    };
    assert.deepEqual(await q('filters[priceMin]=250000'), [mid._id, big._id].sort());
    assert.deepEqual(await q('filters[priceMin]=100000&filters[priceMax]=250000'), [small._id, mid._id].sort());
    assert.deepEqual(await q('filters[areaMin]=600&filters[areaMax]=1500'), [mid._id, big._id].sort());
    assert.deepEqual(await q('filters[bedroomsMin]=2&filters[bedroomsMax]=2'), [mid._id]);
    assert.deepEqual(await q('filters[bedroomsMax]=5'), [small._id, mid._id, big._id].sort(), 'a unit without bedrooms matches no range on it');
    assert.deepEqual(await q('filters[availability]=Reserved,sold'), [mid._id, big._id].sort());
    assert.deepEqual(await q('filters[availability]=available'), [small._id, bare._id].sort());
    assert.deepEqual(await q('availability=sold&filters[priceMax]=700000'), [big._id]);
  });

  test('filters[updatedSince] on units, floors, leads, groups and projects', async () => {
    const p = await createProject(t.app, owner.auth);
    const f1 = await createFloor(t.app, owner.auth, p._id, { name: 'one' });
    const f2 = await createFloor(t.app, owner.auth, p._id, { name: 'two' });
    const u1 = await createUnit(t.app, owner.auth, p._id, { name: 'one' });
    const u2 = await createUnit(t.app, owner.auth, p._id, { name: 'two' });
    const g = await createGroup(t.app, owner.auth);
    await insertLead(t.db.kysely, { id: newObjectId(), projectId: p._id, data: { firstName: 'Old' }, createdAt: new Date(Date.now() - 3_600_000) });
    await sleep(20);
    const since = new Date().toISOString();
    await sleep(20);
    const fresh = newObjectId();
    await insertLead(t.db.kysely, { id: fresh, projectId: p._id, data: { firstName: 'New' } });
    await call('PATCH', `/units/${u2._id}`, { price: 5 });
    await call('PATCH', `/floors/${f2._id}`, { floorplanUrl: 'plan.png' });
    await call('PATCH', `/groups/${g._id}`, { theme: 'dark' });
    await call('PATCH', `/project/${p._id}`, { colorBase: '#000000' });
    const changed = async (url: string) => {
      const res = await call('GET', `${url}${url.includes('?') ? '&' : '?'}filters[updatedSince]=${encodeURIComponent(since)}`);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.equal(res.headers['x-total-count'], String(res.json().length), url);
      return ids(res.json());
    };
    assert.deepEqual(await changed(`/units?project=${p._id}`), [u2._id]);
    assert.ok(!(await changed(`/units?project=${p._id}`)).includes(u1._id));
    assert.deepEqual(await changed(`/floors?project=${p._id}`), [f2._id]);
    assert.ok(!(await changed(`/floors?project=${p._id}`)).includes(f1._id));
    assert.deepEqual(await changed(`/leads?project=${p._id}`), [fresh]);
    assert.ok((await changed('/groups')).includes(g._id));
    assert.ok((await changed('/projects')).includes(p._id));
    const bad = await call('GET', `/floors?project=${p._id}&filters[updatedSince]=yesterday`);
    assert.equal(bad.statusCode, 400);
  });

  test('filters[updatedSince]: a leap second, year 0000 or an instant past 9999 → 400 naming the field on both engines, not 500 (found by the fuzzer)', async () => {
    for (const since of ['2026-06-30T23:59:60Z', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '9999-12-31T23:59:59-23:59']) {
      const res = await call('GET', `/projects?filters[updatedSince]=${encodeURIComponent(since)}`);
      assert.equal(res.statusCode, 400, `${since}: ${res.body}`);
      assert.equal(res.json().code, 'invalid_query', since);
      assert.deepEqual(res.json().errors, [{ path: '/filters/updatedSince', message: 'must be a valid date-time' }], since);
    }
    for (const since of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2026-01-01T00:00:00+14:00']) {
      assert.equal((await call('GET', `/projects?filters[updatedSince]=${encodeURIComponent(since)}`)).statusCode, 200, since);
    }
  });

  test('GET /floors and /leads: skip, limit, sort and X-Total-Count', async () => {
    const p = await createProject(t.app, owner.auth);
    for (const name of ['b', 'a', 'c']) await createFloor(t.app, owner.auth, p._id, { name });
    const floors = await call('GET', `/floors?project=${p._id}&options[sort]=-name&options[limit]=2`);
    assert.equal(floors.headers['x-total-count'], '3');
    assert.deepEqual(
      floors.json().map((f: { name: string }) => f.name),
      ['c', 'b'],
    );
    const natural = (await call('GET', `/floors?project=${p._id}`)).json();
    assert.deepEqual(
      natural.map((f: { name: string }) => f.name),
      ['b', 'a', 'c'],
      'without a sort, position order',
    );
    for (const lastName of ['Young', 'Adams', 'Moss']) await insertLead(t.db.kysely, { id: newObjectId(), projectId: p._id, data: { lastName } });
    const leads = await call('GET', `/leads?project=${p._id}&options[sort]=name&options[skip]=1`);
    assert.equal(leads.headers['x-total-count'], '3');
    assert.deepEqual(
      leads.json().map((l: { lastName: string }) => l.lastName),
      ['Moss', 'Young'],
    );
  });
});

describe('Idempotency-Key on authenticated creates', () => {
  test('the same key and request twice make one record; the retry gets the first 201 again', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    for (const [url, list, field] of [
      [`/units?project=${p._id}&name=Twice&floor=${f._id}`, `/units?project=${p._id}`, 'description'],
      [`/floors?project=${p._id}&name=Twice`, `/floors?project=${p._id}`, 'floorplanUrl'],
      ['/groups?name=Twice', '/groups', 'theme'],
      ['/projects?name=Twice%20idempotent', '/projects?filters[name]=Twice%20idempotent', 'colorBase'],
    ] as const) {
      const key = `key-${newObjectId()}`;
      const before = Number((await call('GET', list)).headers['x-total-count']);
      const first = await call('POST', url, { [field]: 'x' }, { 'idempotency-key': key });
      assert.equal(first.statusCode, 201, `${url}: ${first.body}`);
      const again = await call('POST', url, { [field]: 'x' }, { 'idempotency-key': key });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json()._id, first.json()._id);
      assert.equal(again.headers.etag, first.headers.etag);
      assert.equal(again.headers.location, first.headers.location);
      assert.equal(Number((await call('GET', list)).headers['x-total-count']), before + 1, `${url}: one record made`);
      const other = await call('POST', url, { [field]: 'y' }, { 'idempotency-key': key });
      assert.equal(other.statusCode, 422, `${url}: another body under the same key`);
      assert.equal(other.json().code, 'idempotency_key_reused');
      const fresh = await call('POST', url, { [field]: 'x' });
      assert.equal(fresh.statusCode, 201);
      assert.notEqual(fresh.json()._id, first.json()._id, 'without a key every POST creates');
    }
  });

  test("one user's key is not another's", async () => {
    const other = await userWithToken(t);
    const key = `shared-${newObjectId()}`;
    const a = await call('POST', '/groups?name=Mine', undefined, { 'idempotency-key': key });
    const b = await caller(t.app, other.auth)('POST', '/groups?name=Mine', undefined, { 'idempotency-key': key });
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201);
    assert.notEqual(a.json()._id, b.json()._id);
  });

  test("a malformed key → the same 400 on every create that honours it, naming the header (the handler's check, not the schema's)", async () => {
    const p = await createProject(t.app, owner.auth);
    for (const [url, body] of [
      ['/groups?name=Bad', undefined],
      ['/projects?name=Bad', undefined],
      [`/floors?project=${p._id}&name=Bad`, undefined],
      [`/units?project=${p._id}&name=Bad`, undefined],
      [`/projects/${p._id}/webhooks`, { url: 'https://example.com/hook', events: ['*'] }],
    ] as const) {
      const res = await call('POST', url, body, { 'idempotency-key': 'has space' });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().code, 'invalid_body', url);
      assert.deepEqual(res.json().errors, [{ path: '/headers/idempotency-key', message: 'is invalid' }], url);
    }
  });
});
