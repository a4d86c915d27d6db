import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { type Caller, createFloor, createGroup, createProject, createUnit, type LoggedIn, type TestApp, useOwnerApp } from './helpers.ts';

/**
 * PATCH semantics on every record kind: only sent fields change, a fetched record sent back is no
 * change, `_id` must match, unknown fields are named, ETags everywhere, If-Match, and concurrent writers.
 */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({}, (f) => ({ t, owner, call } = f));

const paths = (res: { json(): any }) => (res.json().errors ?? []).map((e: { path: string }) => e.path).sort();
const ETAG = /^"[^"]+"$/;
/** A distinct value for a text field; a `perimeter` must be one the map can draw (docs/map.md): three lat,lon pairs. */
const valueOf = (f: string) => (f === 'perimeter' ? `1,1 1,2 2,${f.length}` : `v-${f}`);

/** One of each record kind, with some content, and the URL of each. */
async function records() {
  const p = await createProject(t.app, owner.auth, {
    body: { colorBase: '#111111', showPrices: false, images: ['a.png'], pvPassword: 'hunter2', allocations: [{ name: 'A', password: 'x', allocation: '1' }] },
  });
  const f = await createFloor(t.app, owner.auth, p._id, { body: { path: 'M0 0', alternativePaths: ['M1 1'] } });
  const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id, body: { price: 100, additionalInfo: [{ label: 'View', value: 'Sea' }] } });
  const g = await createGroup(t.app, owner.auth, { body: { projects: [p._id], theme: 'light' } });
  return {
    project: {
      url: `/project/${p._id}`,
      id: p._id,
      field: 'colorAccent',
      value: '#222222',
      kept: ['colorBase', 'showPrices', 'images', 'configuredSecrets', 'floors'],
    },
    floor: { url: `/floors/${f._id}`, id: f._id, field: 'floorplanUrl', value: 'plan.png', kept: ['path', 'alternativePaths', 'units', 'position'] },
    unit: { url: `/units/${u._id}`, id: u._id, field: 'description', value: 'Bright', kept: ['price', 'additionalInfo', 'floor', 'availability'] },
    group: { url: `/groups/${g._id}`, id: g._id, field: 'accentColor', value: '#333333', kept: ['theme', 'projects', 'groupLang'] },
  };
}

describe('PATCH semantics', () => {
  test('only the fields sent change; the rest stay as they were (project, floor, unit, group)', async () => {
    for (const [kind, r] of Object.entries(await records())) {
      const before = (await call('GET', r.url)).json();
      const res = await call('PATCH', r.url, { [r.field]: r.value });
      assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
      const after = (await call('GET', r.url)).json();
      assert.equal(after[r.field], r.value, kind);
      for (const k of r.kept) assert.deepEqual(after[k], before[k], `${kind}.${k} kept`);
      // A change raises the version by one (the ETag follows it); nothing else moves.
      assert.equal(after.__v, before.__v + 1, `${kind}: __v`);
      const { updatedAt: _a, __v: _e, [r.field]: _b, ...restBefore } = before;
      const { updatedAt: _c, __v: _f, [r.field]: _d, ...restAfter } = after;
      assert.deepEqual(restAfter, restBefore, `${kind}: nothing else changed`);
      assert.ok(after.updatedAt >= before.updatedAt);
      assert.equal(after.createdAt, before.createdAt);
    }
  });

  test('an empty body, or the whole fetched record sent back, changes nothing: 200, same ETag, same updatedAt', async () => {
    for (const [kind, r] of Object.entries(await records())) {
      const fetched = await call('GET', r.url);
      const record = fetched.json() as Record<string, unknown>;
      for (const body of [{}, record, { ...record, __v: 0 }]) {
        const res = await call('PATCH', r.url, body);
        assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
        assert.equal(res.headers.etag, fetched.headers.etag, `${kind}: no new version`);
        assert.deepEqual(res.json(), fetched.json(), kind);
      }
      // Server-kept fields with other values are ignored, not written.
      const res = await call('PATCH', r.url, { ...record, createdAt: '2000-01-01T00:00:00.000Z', updatedAt: '2000-01-01T00:00:00.000Z', __v: 9 });
      assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
      assert.equal(res.json().createdAt, fetched.json().createdAt);
      assert.equal(res.headers.etag, fetched.headers.etag);
    }
  });

  test('a project sent back with other configuredSecrets keeps its secrets', async () => {
    const { project } = await records();
    const fetched = (await call('GET', project.url)).json();
    const res = await call('PATCH', project.url, { ...fetched, configuredSecrets: [] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().configuredSecrets, fetched.configuredSecrets);
  });

  test('`_id` different from the path → 400 naming /_id, nothing written; the same `_id` is fine', async () => {
    for (const [kind, r] of Object.entries(await records())) {
      for (const other of [newObjectId(), 'not-even-an-id']) {
        const res = await call('PATCH', r.url, { _id: other, [r.field]: r.value });
        assert.equal(res.statusCode, 400, kind);
        assert.deepEqual(paths(res), ['/_id'], kind);
      }
      assert.notEqual((await call('GET', r.url)).json()[r.field], r.value, `${kind}: nothing written`);
      assert.equal((await call('PATCH', r.url, { _id: r.id, [r.field]: r.value })).statusCode, 200, kind);
    }
  });

  test('unknown fields → 400 naming each, nothing written', async () => {
    for (const [kind, r] of Object.entries(await records())) {
      const res = await call('PATCH', r.url, { [r.field]: r.value, mysteryField: 1, another: 'x' });
      assert.equal(res.statusCode, 400, kind);
      assert.equal(res.json().code, 'invalid_body');
      assert.deepEqual(paths(res), ['/another', '/mysteryField'], kind);
      assert.notEqual((await call('GET', r.url)).json()[r.field], r.value, `${kind}: nothing written`);
    }
  });

  test("replacing an array replaces it whole; a field can be set to its type's empty value", async () => {
    const { project, unit } = await records();
    assert.deepEqual((await call('PATCH', project.url, { images: ['b.png', 'c.png'] })).json().images, ['b.png', 'c.png']);
    assert.deepEqual((await call('PATCH', project.url, { images: [] })).json().images, []);
    assert.equal((await call('PATCH', project.url, { colorBase: '' })).json().colorBase, '');
    assert.deepEqual((await call('PATCH', unit.url, { additionalInfo: [] })).json().additionalInfo, []);
    assert.equal((await call('PATCH', unit.url, { price: 0 })).json().price, 0);
  });
});

describe('ETags and If-Match', () => {
  test('every single-record response carries an ETag: create, GET, PATCH (changed or not)', async () => {
    const p = await call('POST', '/projects?name=E');
    const f = await call('POST', `/floors?project=${p.json()._id}&name=F`);
    const u = await call('POST', `/units?project=${p.json()._id}&name=U&position=1`);
    const g = await call('POST', '/groups?name=G');
    for (const [what, res] of Object.entries({ p, f, u, g })) {
      assert.equal(res.statusCode, 201, what);
      assert.match(String(res.headers.etag), ETAG, `${what} create`);
    }
    for (const url of [
      `/project/${p.json()._id}`,
      `/projects/${p.json()._id}`,
      `/floors/${f.json()._id}`,
      `/units/${u.json()._id}`,
      `/groups/${g.json()._id}`,
    ]) {
      const got = await call('GET', url);
      assert.match(String(got.headers.etag), ETAG, `GET ${url}`);
      const same = await call('PATCH', url, {});
      assert.equal(same.headers.etag, got.headers.etag, `PATCH ${url} without change`);
      const changed = await call('PATCH', url, { name: `renamed ${url}` });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.match(String(changed.headers.etag), ETAG);
      assert.notEqual(changed.headers.etag, got.headers.etag, `PATCH ${url} with a change`);
      assert.equal((await call('GET', url)).headers.etag, changed.headers.etag, 'GET agrees with the PATCH');
    }
  });

  test('If-Match stale → 412 and nothing written; current → 200; a list holding the current one, or * → 200', async () => {
    for (const [kind, r] of Object.entries(await records())) {
      const before = await call('GET', r.url);
      const etag = String(before.headers.etag);
      for (const stale of ['"999999"', '"0"', 'W/"0"', `W/${etag}`]) {
        const res = await call('PATCH', r.url, { [r.field]: r.value }, { 'if-match': stale });
        assert.equal(res.statusCode, 412, `${kind} ${stale}`);
        assert.equal(res.json().code, 'precondition_failed');
        assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      }
      // The comparison is strong: the current version as a weak tag is refused, and the answer says why.
      assert.match((await call('PATCH', r.url, { [r.field]: r.value }, { 'if-match': `W/${etag}` })).json().detail, /weak tag/);
      // Not an entity tag at all (the version without its quotes, a word): 400 naming the header.
      for (const malformed of [etag.replaceAll('"', ''), 'garbage', '"4', ',']) {
        const res = await call('PATCH', r.url, { [r.field]: r.value }, { 'if-match': malformed });
        assert.equal(res.statusCode, 400, `${kind} ${malformed}`);
        assert.deepEqual(
          res.json().errors.map((e: { path: string }) => e.path),
          ['/if-match'],
        );
        assert.match(res.json().detail, /^if-match must be "\*" or entity tags/);
      }
      const unchanged = await call('GET', r.url);
      assert.deepEqual(unchanged.json(), before.json(), `${kind}: nothing written`);
      assert.equal(unchanged.headers.etag, etag);

      const ok = await call('PATCH', r.url, { [r.field]: r.value }, { 'if-match': etag });
      assert.equal(ok.statusCode, 200, `${kind}: ${ok.body}`);
      assert.equal(ok.json()[r.field], r.value);
      assert.notEqual(ok.headers.etag, etag);
      // The old ETag is now stale.
      assert.equal((await call('PATCH', r.url, { [r.field]: 'late' }, { 'if-match': etag })).statusCode, 412, `${kind}: old ETag`);
      const listed = await call('PATCH', r.url, { [r.field]: 'listed' }, { 'if-match': `"0", ${String(ok.headers.etag)}` });
      assert.equal(listed.statusCode, 200, `${kind}: list`);
      assert.equal((await call('PATCH', r.url, { [r.field]: 'star' }, { 'if-match': '*' })).statusCode, 200, `${kind}: *`);
    }
  });

  test('of many writers holding the same ETag, exactly one wins; the rest get 412', async () => {
    const { unit, project } = await records();
    for (const r of [unit, project]) {
      const etag = String((await call('GET', r.url)).headers.etag);
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => call('PATCH', r.url, { [r.field]: `writer ${i}` }, { 'if-match': etag })));
      const codes = results.map((x) => x.statusCode).sort();
      assert.deepEqual(codes, [200, 412, 412, 412, 412, 412, 412, 412], r.url);
      const winner = results.find((x) => x.statusCode === 200)!;
      assert.equal((await call('GET', r.url)).json()[r.field], winner.json()[r.field]);
    }
  });
});

/** Project free-text fields that concurrent-write tests change one per request (the style fields take set values). */
const COLOURS_AND_TEXTS = [
  'colorBase',
  'colorAccent',
  'colorHover',
  'colorButton',
  'colorButtonText',
  'colorText',
  'colorFeatured',
  'colorSold',
  'colorAvailable',
  'colorReserved',
  'customButtonText',
  'sharePageDescription',
  'formsSubject',
  'formsFromName',
  'propertyType',
];

describe('concurrent PATCHes of different fields', () => {
  test('20 at once on a project (content fields and secrets): every one survives', async () => {
    const p = await createProject(t.app, owner.auth);
    const text = [...COLOURS_AND_TEXTS, 'walkscore', 'areaUnit'];
    const bodies: Record<string, unknown>[] = [
      ...text.map((f) => ({ [f]: `v-${f}` })),
      { onHoldMinsDuration: 42 },
      { pvPassword: 'pv-secret' },
      { sfKey: 'sf-secret' },
    ];
    assert.equal(bodies.length, 20);
    const results = await Promise.all(bodies.map((b) => call('PATCH', `/project/${p._id}`, b)));
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    const got = await call('GET', `/project/${p._id}`);
    for (const f of text) assert.equal(got.json()[f], `v-${f}`, f);
    assert.equal(got.json().onHoldMinsDuration, 42);
    assert.deepEqual(got.json().configuredSecrets, ['pvPassword', 'sfKey']);
    assert.equal(got.json().name, p.name);
    // Each response is a consistent snapshot: its body and its ETag belong together, and the last one is what GET shows.
    const final = results.find((r) => r.headers.etag === got.headers.etag);
    assert.ok(final, 'some response carries the final version');
    assert.deepEqual(final.json(), got.json());
  });

  test('20 at once on a unit: every one survives', async () => {
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id);
    const bodies: Record<string, unknown>[] = [
      ...[
        'bedrooms',
        'type',
        'path',
        'lotPath',
        'unitImageUrl',
        'layoutUrl',
        'downloadableAsset',
        'brochurePDF',
        'embedCode',
        'orientation',
        'inclusions',
        'deliveryDate',
        'description',
        'perimeter',
        'svgLotId',
      ].map((f) => ({ [f]: valueOf(f) })),
      { price: 123456 },
      { squareFeet: 789 },
      { parking: 2 },
      { isFeatured: true },
      { availability: 'Reserved' },
    ];
    assert.equal(bodies.length, 20);
    const results = await Promise.all(bodies.map((b) => call('PATCH', `/units/${u._id}`, b)));
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    const got = (await call('GET', `/units/${u._id}`)).json();
    for (const b of bodies) {
      const [k, v] = Object.entries(b)[0]!;
      assert.deepEqual(got[k], k === 'availability' ? 'reserved' : v, k);
    }
    assert.equal(got.name, u.name);
  });

  test('concurrent PATCHes of a group and of a floor keep every field too', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const g = await createGroup(t.app, owner.auth);
    const groupFields = [
      'colorBase',
      'colorAccent',
      'colorHover',
      'colorButton',
      'colorButtonText',
      'colorText',
      'theme',
      'address',
      'perimeter',
      'markerImageUrl',
    ];
    const results = await Promise.all([
      ...groupFields.map((k) => call('PATCH', `/groups/${g._id}`, { [k]: valueOf(k) })),
      call('PATCH', `/floors/${f._id}`, { path: 'M0 0' }),
      call('PATCH', `/floors/${f._id}`, { floorplanUrl: 'plan.png' }),
      call('PATCH', `/floors/${f._id}`, { name: 'Renamed' }),
    ]);
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    const group = (await call('GET', `/groups/${g._id}`)).json();
    for (const k of groupFields) assert.equal(group[k], valueOf(k), k);
    const floor = (await call('GET', `/floors/${f._id}`)).json();
    assert.deepEqual([floor.path, floor.floorplanUrl, floor.name], ['M0 0', 'plan.png', 'Renamed']);
  });
});

/** As the owner, with extra headers merged in. */
const inject = (method: string, url: string, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method: method as 'GET', url, headers: { ...owner.auth, ...extra }, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('PATCH semantics', () => {
  test('only sent fields change; sending back the fetched record changes nothing (same ETag)', async () => {
    const p = await createProject(t.app, owner.auth, { body: { colorBase: '#111111', showPrices: false } });
    await createFloor(t.app, owner.auth, p._id);
    const fetched = await inject('GET', `/project/${p._id}`);
    const etag = fetched.headers.etag;
    const same = await inject('PATCH', `/project/${p._id}`, fetched.json());
    assert.equal(same.statusCode, 200, same.body);
    assert.equal(same.headers.etag, etag, 'a PATCH with no real change writes nothing');
    const changed = await inject('PATCH', `/project/${p._id}`, { colorAccent: '#222222' });
    assert.equal(changed.json().colorBase, '#111111');
    assert.equal(changed.json().showPrices, false);
    assert.equal(changed.json().colorAccent, '#222222');
    assert.notEqual(changed.headers.etag, etag);
    assert.equal((await inject('PATCH', `/project/${p._id}`, { _id: '0'.repeat(24) })).statusCode, 400);
    const unit = await createUnit(t.app, owner.auth, p._id);
    const u = (await inject('GET', `/units/${unit._id}`)).json();
    const sameUnit = await inject('PATCH', `/units/${unit._id}`, u);
    assert.equal(sameUnit.statusCode, 200, sameUnit.body);
    assert.equal(sameUnit.headers.etag, '"1"');
  });

  test('If-Match: stale → 412 and nothing written; current → 200; every single-record response has an ETag', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id });
    for (const [url, field] of [
      [`/project/${p._id}`, 'colorBase'],
      [`/units/${u._id}`, 'description'],
      [`/floors/${f._id}`, 'floorplanUrl'],
    ] as const) {
      const before = await inject('GET', url);
      assert.match(String(before.headers.etag), /^"\d+"$/);
      const stale = await inject('PATCH', url, { [field]: 'stale write' }, { 'if-match': '"999"' });
      assert.equal(stale.statusCode, 412, url);
      assert.equal(stale.json().code, 'precondition_failed');
      assert.equal((await inject('GET', url)).json()[field], before.json()[field], 'nothing written');
      const ok = await inject('PATCH', url, { [field]: 'fresh write' }, { 'if-match': String(before.headers.etag) });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json()[field], 'fresh write');
      assert.notEqual(ok.headers.etag, before.headers.etag);
    }
    const g = (await inject('POST', '/groups?name=G')).json();
    assert.equal((await inject('PATCH', `/groups/${g._id}`, { theme: 'x' }, { 'if-match': '"0"' })).statusCode, 412);
  });

  test('concurrent PATCHes of different fields all survive (projects and units)', async () => {
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id);
    const projectFields = [...COLOURS_AND_TEXTS, 'accentColor', 'walkscore', 'areaUnit', 'address', 'perimeter'];
    const unitFields = [
      'bedrooms',
      'type',
      'path',
      'lotPath',
      'unitImageUrl',
      'layoutUrl',
      'downloadableAsset',
      'brochurePDF',
      'embedCode',
      'orientation',
      'inclusions',
      'deliveryDate',
      'description',
      'perimeter',
      'svgLotId',
    ];
    const results = await Promise.all([
      ...projectFields.map((f) => inject('PATCH', `/project/${p._id}`, { [f]: valueOf(f) })),
      ...unitFields.map((f) => inject('PATCH', `/units/${u._id}`, { [f]: valueOf(f) })),
    ]);
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    const project = (await inject('GET', `/project/${p._id}`)).json();
    for (const f of projectFields) assert.equal(project[f], valueOf(f), f);
    const unit = (await inject('GET', `/units/${u._id}`)).json();
    for (const f of unitFields) assert.equal(unit[f], valueOf(f), f);
  });
});
