import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../src/lib/secret-box.ts';
import { PROJECT_SECRETS } from '../src/modules/projects/projects.schemas.ts';
import { buildTestApp, createFloor, createProject, createUnit, userWithToken, type TestApp } from './helpers.ts';

let t: TestApp;
let owner: Awaited<ReturnType<typeof userWithToken>>;

before(async () => {
  t = await buildTestApp();
  owner = await userWithToken(t);
});
after(() => t.close());

const inject = (method: string, url: string, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method: method as 'GET', url, headers: { ...owner.auth, ...extra }, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('write-only secrets', () => {
  test('no response ever carries a secret value; configuredSecrets names them; stored sealed; null clears', async () => {
    const values: Record<string, string> = {};
    for (const f of PROJECT_SECRETS) values[f] = `SECRET-${f}-${randomBytes(6).toString('hex')}`;
    const allocationPassword = `SECRET-allocation-${randomBytes(6).toString('hex')}`;
    const secretValues = [...Object.values(values), allocationPassword];
    const responses: string[] = [];
    const record = (body: string) => {
      responses.push(body);
      return body;
    };

    const created = await t.app.inject({
      method: 'POST',
      url: '/projects?name=Vault',
      headers: owner.auth,
      payload: { ...values, allocations: [{ name: 'Broker A', password: allocationPassword, allocation: '10' }] },
    });
    assert.equal(created.statusCode, 201, created.body);
    record(created.body);
    const id = created.json()._id;
    assert.deepEqual(created.json().configuredSecrets, [...PROJECT_SECRETS, 'allocations[Broker A].password'].sort());
    assert.deepEqual(created.json().allocations, [{ name: 'Broker A', allocation: '10' }]);

    record((await inject('PATCH', `/project/${id}`, { ...values, name: 'Vault 2' })).body);
    record((await inject('GET', `/project/${id}`)).body);
    record((await inject('GET', `/projects/${id}`)).body);
    record((await inject('GET', '/projects')).body);
    record((await inject('GET', '/users/me')).body);
    for (const body of responses) {
      for (const v of secretValues) assert.ok(!body.includes(v), `a response carried ${v.slice(0, 20)}…`);
    }

    // Sealed at rest with the configured key, not plaintext.
    const row = await t.db.kysely.selectFrom('projects').select('secrets').where('id', '=', id).executeTakeFirstOrThrow();
    const raw = JSON.stringify(row.secrets);
    for (const v of secretValues) assert.ok(!raw.includes(v));
    const box = new SecretBox(t.config.secretKey);
    assert.equal(box.open(row.secrets.pvPassword!), values.pvPassword);
    assert.equal(box.open(row.secrets['allocation:Broker A']!), allocationPassword);

    // Sending back allocations without passwords keeps them; null clears a secret.
    const kept = await inject('PATCH', `/project/${id}`, { allocations: [{ name: 'Broker A', allocation: '12' }], pvPassword: null });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.ok(kept.json().configuredSecrets.includes('allocations[Broker A].password'));
    assert.ok(!kept.json().configuredSecrets.includes('pvPassword'));
    const dropped = await inject('PATCH', `/project/${id}`, { allocations: [] });
    assert.ok(!dropped.json().configuredSecrets.some((n: string) => n.startsWith('allocations')));
  });
});

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
      [`/floors/${f._id}`, 'path'],
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
    const projectFields = [
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
      'styleNavigation',
      'styleBranding',
      'styleFilter',
      'styleShapes',
      'styleFont',
      'accentColor',
      'walkscore',
      'areaUnit',
      'address',
      'perimeter',
    ];
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
      ...projectFields.map((f) => inject('PATCH', `/project/${p._id}`, { [f]: `v-${f}` })),
      ...unitFields.map((f) => inject('PATCH', `/units/${u._id}`, { [f]: `v-${f}` })),
    ]);
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    const project = (await inject('GET', `/project/${p._id}`)).json();
    for (const f of projectFields) assert.equal(project[f], `v-${f}`, f);
    const unit = (await inject('GET', `/units/${u._id}`)).json();
    for (const f of unitFields) assert.equal(unit[f], `v-${f}`, f);
  });
});
