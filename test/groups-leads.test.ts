import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { GroupPatchSchema, GroupSchema } from '../src/modules/groups/groups.schemas.ts';
import { insertLead } from '../src/modules/leads/leads.repo.ts';
import { LeadSchema } from '../src/modules/leads/leads.schemas.ts';
import {
  type Caller,
  caller,
  createGroup,
  createProject,
  type FieldSchema,
  type LoggedIn,
  schemaType,
  slug,
  type TestApp,
  useOwnerApp,
  userWithToken,
  wrongValueFor,
} from './helpers.ts';

/** Groups (fields, defaults, operations, visibility, the projects they may hold) and leads (order, paging, who may read). */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({}, (f) => ({ t, owner, call } = f));

const paths = (res: { json(): any }) => (res.json().errors ?? []).map((e: { path: string }) => e.path).sort();
const ids = (res: { json(): any }) => res.json().map((x: { _id: string }) => x._id);

type JsonType = 'string' | 'number' | 'boolean' | 'array' | 'object';
const SWITCHES = [
  'showAvailableFirst',
  'showAllUnits',
  'showPrices',
  'pricesStartingAt',
  'showTaxes',
  'priceBeforeTax',
  'showAvailability',
  'hideSold',
  'deliveryDates',
  'hideArea',
  'showBranding',
  'showPriceFilter',
  'showAreaFilter',
  'showFloorOverview',
];
/** The interface's Group table, by hand. */
const SPEC_GROUP: Record<string, JsonType> = {
  _id: 'string',
  user: 'string',
  projects: 'array',
  administrators: 'array',
  editors: 'array',
  invites: 'array',
  alternativeCovers: 'array',
  lon: 'number',
  lat: 'number',
  zoomLevel: 'number',
  ...Object.fromEntries(
    (
      'name websiteURL namespace hostName groupLang linkBehavior accentColor groupImageUrl groupSVGUrl svgGroupId address perimeter ' +
      'markerImageUrl targetMarker mapStyle mapPointColor initialView unitImageOnGrid internalURL theme colorBase colorAccent colorHover ' +
      'colorButton colorButtonText colorText'
    )
      .split(' ')
      .map((k) => [k, 'string' as const]),
  ),
  ...Object.fromEntries(SWITCHES.map((k) => [k, 'boolean' as const])),
};
const SPEC_LEAD: Record<string, JsonType> = {
  firstName: 'string',
  lastName: 'string',
  email: 'string',
  phone: 'string',
  unit: 'string',
  message: 'string',
  source: 'string',
  createdAt: 'string',
  questions: 'array',
  customFields: 'array',
};

type S = FieldSchema;
const jsonType = schemaType;
const wrongFor = wrongValueFor;

describe('groups', () => {
  test("every Group and Lead field of the interface is in the schemas with the spec's type", () => {
    const out = GroupSchema.properties as Record<string, S>;
    const input = GroupPatchSchema.properties as Record<string, S>;
    for (const [name, type] of Object.entries(SPEC_GROUP)) {
      assert.ok(out[name], `Group response schema has ${name}`);
      assert.equal(jsonType(out[name]!), type, `Group.${name}`);
      assert.ok(input[name], `Group PATCH schema has ${name}`);
      assert.equal(jsonType(input[name]!), type, `Group.${name} in a PATCH`);
    }
    const lead = LeadSchema.properties as Record<string, S>;
    for (const [name, type] of Object.entries(SPEC_LEAD)) {
      assert.ok(lead[name], `Lead has ${name}`);
      assert.equal(jsonType(lead[name]!), type, `Lead.${name}`);
    }
  });

  test('POST /groups?name=&namespace=&hostName= → 201 with Location, ETag, the owner and the payload-shape defaults', async () => {
    const ns = slug('g');
    const res = await call('POST', `/groups?name=Portfolio&namespace=${ns}&hostName=${ns}.Example.org`);
    assert.equal(res.statusCode, 201, res.body);
    const g = res.json();
    assert.match(g._id, /^[0-9a-f]{24}$/);
    assert.equal(res.headers.location, `/groups/${g._id}`);
    assert.match(String(res.headers.etag), /^"[^"]+"$/);
    assert.equal(g.name, 'Portfolio');
    assert.equal(g.namespace, ns);
    assert.equal(g.hostName, `${ns}.example.org`);
    assert.equal(g.user, owner.id);
    assert.deepEqual(g.projects, []);
    const defaults: Record<string, unknown> = {
      groupLang: 'en',
      linkBehavior: 'Service',
      mapStyle: 'Light',
      initialView: 'List',
      unitImageOnGrid: 'Unit Plan',
    };
    for (const k of SWITCHES) defaults[k] = !['showAvailableFirst', 'pricesStartingAt', 'hideArea', 'showFloorOverview'].includes(k);
    for (const [k, v] of Object.entries(defaults)) assert.deepEqual(g[k], v, k);
    assert.equal(new Date(g.createdAt).toISOString(), g.createdAt);
    const fetched = await call('GET', `/groups/${g._id}`);
    assert.equal(fetched.statusCode, 200);
    assert.deepEqual(fetched.json(), g);
    assert.equal(fetched.headers.etag, res.headers.etag);
  });

  test('body fields (query wins, body beats defaults); missing name → 400; bad namespace → 400; duplicates → 409', async () => {
    const res = await call('POST', '/groups?name=Q', { name: 'B', theme: 'dark', showPrices: false, groupLang: 'fr' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().name, 'Q');
    assert.equal(res.json().theme, 'dark');
    assert.equal(res.json().showPrices, false);
    assert.equal(res.json().groupLang, 'fr');
    const noName = await call('POST', '/groups');
    assert.equal(noName.statusCode, 400);
    assert.deepEqual(paths(noName), ['/name']);
    for (const bad of ['Bad%20Slug', 'a'.repeat(64)]) {
      const r = await call('POST', `/groups?name=X&namespace=${bad}`);
      assert.equal(r.statusCode, 400, bad);
      assert.deepEqual(paths(r), ['/namespace']);
    }
    const ns = slug('g');
    await createGroup(t.app, owner.auth, { query: { namespace: ns, hostName: `${ns}.example.org` } });
    assert.equal((await call('POST', `/groups?name=X&namespace=${ns}`)).statusCode, 409);
    assert.equal((await call('POST', `/groups?name=X&hostName=${ns.toUpperCase()}.EXAMPLE.ORG`)).statusCode, 409);
    const other = await createGroup(t.app, owner.auth);
    assert.equal((await call('PATCH', `/groups/${other._id}`, { namespace: ns })).statusCode, 409);
    assert.equal((await call('PATCH', `/groups/${other._id}`, { hostName: `${ns}.Example.Org` })).statusCode, 409);
  });

  test('a PATCH with a value for every field reads back; wrong types and unknown fields → 400 naming each', async () => {
    const g = await createGroup(t.app, owner.auth);
    const p = await createProject(t.app, owner.auth);
    const [admin, editor] = [await userWithToken(t), await userWithToken(t)];
    const ns = slug('g');
    const body: Record<string, unknown> = {
      name: 'All fields',
      websiteURL: 'https://g.example',
      projects: [p._id],
      namespace: ns,
      hostName: `${ns}.example.org`,
      groupLang: 'es',
      linkBehavior: 'Custom',
      accentColor: '#111',
      groupImageUrl: 'g.png',
      groupSVGUrl: 'g.svg',
      svgGroupId: 'svg-1',
      address: '1 Main St',
      lon: -70.25,
      lat: 43.5,
      zoomLevel: 11,
      administrators: [admin.id],
      editors: [editor.id],
      invites: [{ firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', level: 'editor' }],
      perimeter: '0,0 1,1 0,1',
      markerImageUrl: 'm.png',
      targetMarker: 't-1',
      mapStyle: 'Dark',
      mapPointColor: '#222',
      initialView: 'Map',
      unitImageOnGrid: 'Render',
      internalURL: 'https://internal.example',
      alternativeCovers: ['c1.png', 'c2.png'],
      theme: 'night',
      colorBase: '#010101',
      colorAccent: '#020202',
      colorHover: '#030303',
      colorButton: '#040404',
      colorButtonText: '#050505',
      colorText: '#060606',
      ...Object.fromEntries(SWITCHES.map((k) => [k, ['showAvailableFirst', 'pricesStartingAt', 'hideArea', 'showFloorOverview'].includes(k)])),
    };
    for (const name of Object.keys(SPEC_GROUP)) if (!['_id', 'user'].includes(name)) assert.ok(name in body, `body has ${name}`);
    const kept = new Set(['_id', '__v', 'createdAt', 'updatedAt', 'user']);
    for (const k of Object.keys(GroupPatchSchema.properties)) if (!kept.has(k)) assert.ok(k in body, `round trip covers ${k}`);
    const res = await call('PATCH', `/groups/${g._id}`, body);
    assert.equal(res.statusCode, 200, res.body);
    const got = (await call('GET', `/groups/${g._id}`)).json();
    for (const [k, v] of Object.entries(body)) {
      assert.deepEqual(res.json()[k], v, `PATCH result ${k}`);
      assert.deepEqual(got[k], v, `GET ${k}`);
    }

    const wrong: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(GroupPatchSchema.properties as Record<string, S>)) {
      const type = jsonType(s);
      if (type) wrong[k] = wrongFor(type);
    }
    const bad = await call('PATCH', `/groups/${g._id}`, wrong);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      paths(bad),
      Object.keys(wrong)
        .map((k) => `/${k}`)
        .sort(),
    );
    const unknown = await call('PATCH', `/groups/${g._id}`, { theme: 'x', floors: [] });
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(paths(unknown), ['/floors']);
    assert.equal((await call('GET', `/groups/${g._id}`)).json().theme, 'night', 'nothing written');
  });

  test('GET/PATCH/DELETE /groups/{id}: malformed id → 400, absent → 404', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const payload = method === 'PATCH' ? { theme: 'x' } : undefined;
      assert.equal((await call(method, '/groups/nope', payload)).statusCode, 400, method);
      assert.equal((await call(method, `/groups/${newObjectId()}`, payload)).statusCode, 404, method);
    }
  });

  test('projects: kept in the order sent; only projects the caller can see (else 400 naming the entry); no repeats', async () => {
    const [a, b, c] = [await createProject(t.app, owner.auth), await createProject(t.app, owner.auth), await createProject(t.app, owner.auth)];
    const g = await createGroup(t.app, owner.auth, { body: { projects: [c._id, a._id] } });
    assert.deepEqual(g.projects, [c._id, a._id]);
    const reordered = await call('PATCH', `/groups/${g._id}`, { projects: [a._id, b._id, c._id] });
    assert.equal(reordered.statusCode, 200, reordered.body);
    assert.deepEqual((await call('GET', `/groups/${g._id}`)).json().projects, [a._id, b._id, c._id]);
    const stranger = await userWithToken(t);
    const theirs = await createProject(t.app, stranger.auth);
    const bad = await call('PATCH', `/groups/${g._id}`, { projects: [a._id, theirs._id] });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(paths(bad), ['/projects/1']);
    assert.deepEqual(paths(await call('PATCH', `/groups/${g._id}`, { projects: [newObjectId()] })), ['/projects/0']);
    assert.equal((await call('PATCH', `/groups/${g._id}`, { projects: [a._id, a._id] })).statusCode, 400);
    const badCreate = await call('POST', '/groups?name=X', { projects: [theirs._id] });
    assert.equal(badCreate.statusCode, 400);
    assert.deepEqual(paths(badCreate), ['/projects/0']);
    assert.deepEqual((await call('GET', `/groups/${g._id}`)).json().projects, [a._id, b._id, c._id], 'nothing written');
    // A platform admin sees every project, so may group any of them.
    const admin = await userWithToken(t, { role: 'admin' });
    const adminGroup = await createGroup(t.app, admin.auth, { body: { projects: [theirs._id, a._id] } });
    assert.deepEqual(adminGroup.projects, [theirs._id, a._id]);
  });

  test('GET /groups lists visible groups only (owner, administrator, editor, platform admin), with options and X-Total-Count', async () => {
    const lister = await userWithToken(t);
    const [administrator, editor, stranger] = [await userWithToken(t), await userWithToken(t), await userWithToken(t)];
    const admin = await userWithToken(t, { role: 'admin' });
    const made = [];
    for (const name of ['Delta', 'Alpha', 'Charlie', 'Bravo', 'Echo']) {
      made.push(await createGroup(t.app, lister.auth, { name, body: { administrators: [administrator.id], editors: [editor.id] } }));
    }
    const list = caller(t.app, lister.auth);
    const all = await list('GET', '/groups');
    assert.equal(all.statusCode, 200);
    assert.deepEqual(ids(all), made.map((g) => g._id).reverse(), 'newest first by default');
    assert.equal(all.headers['x-total-count'], '5');
    assert.deepEqual(
      ids(await list('GET', '/groups?options[sort]=createdAt')),
      made.map((g) => g._id),
    );
    const byName = (await list('GET', '/groups?options[sort]=name')).json().map((g: { name: string }) => g.name);
    assert.deepEqual(byName, ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
    assert.deepEqual(
      (await list('GET', '/groups?options[sort]=-name')).json().map((g: { name: string }) => g.name),
      [...byName].reverse(),
    );
    const pages: string[] = [];
    for (let skip = 0; skip < 5; skip += 2) {
      const page = await list('GET', `/groups?options=${encodeURIComponent(JSON.stringify({ skip, limit: 2, sort: 'createdAt' }))}`);
      assert.equal(page.headers['x-total-count'], '5');
      pages.push(...ids(page));
    }
    assert.deepEqual(
      pages,
      made.map((g) => g._id),
    );
    const past = await list('GET', '/groups?options[skip]=20');
    assert.deepEqual(past.json(), []);
    assert.equal(past.headers['x-total-count'], '5', 'the count before skip/limit, also past the last page');
    for (const bad of ['options[limit]=0', 'options[limit]=501', 'options[limit]=abc', 'options[skip]=-1', 'options[sort]=theme', 'filters[name]=x']) {
      assert.equal((await list('GET', `/groups?${bad}`)).statusCode, 400, bad);
    }
    for (const [who, u] of Object.entries({ administrator, editor })) {
      assert.deepEqual(ids(await caller(t.app, u.auth)('GET', '/groups')).sort(), made.map((g) => g._id).sort(), who);
    }
    const adminSees = ids(await caller(t.app, admin.auth)('GET', '/groups?options[limit]=500'));
    for (const g of made) assert.ok(adminSees.includes(g._id));
    const strangerSees = await caller(t.app, stranger.auth)('GET', '/groups');
    assert.deepEqual(strangerSees.json(), []);
    assert.equal(strangerSees.headers['x-total-count'], '0');
    assert.equal((await caller(t.app, stranger.auth)('GET', `/groups/${made[0]!._id}`)).statusCode, 404);
  });

  test('DELETE /groups/{id} → 204; its projects stay', async () => {
    const p = await createProject(t.app, owner.auth);
    const g = await createGroup(t.app, owner.auth, { body: { projects: [p._id] } });
    const res = await call('DELETE', `/groups/${g._id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await call('GET', `/groups/${g._id}`)).statusCode, 404);
    assert.equal((await call('GET', `/project/${p._id}`)).statusCode, 200);
    assert.equal((await call('DELETE', `/groups/${g._id}`)).statusCode, 404);
  });
});

describe('leads', () => {
  const lead = (i: number) => ({
    firstName: `First${i}`,
    lastName: `Last${i}`,
    email: `lead${i}@example.com`,
    phone: `+1 555 010${i}`,
    unit: `Unit ${i}`,
    message: `Message ${i}`,
    source: i % 2 ? 'web' : 'hold',
    questions: [{ question: 'Budget?', answer: `${i}00k` }],
    customFields: [{ key: 'utm', value: `c${i}` }],
  });
  /** A project with an administrator and an editor, and five leads one minute apart, inserted out of order. */
  async function withLeads() {
    const [administrator, editor] = [await userWithToken(t), await userWithToken(t)];
    const p = await createProject(t.app, owner.auth, { body: { administrators: [administrator.id], editors: [editor.id] } });
    const base = Date.UTC(2030, 4, 1, 12, 0, 0);
    for (const i of [2, 0, 4, 1, 3])
      await insertLead(t.db.kysely, { id: newObjectId(), projectId: p._id, data: lead(i), createdAt: new Date(base + i * 60_000) });
    return { p, administrator, editor, base };
  }
  const firstNames = (res: { json(): any }) => res.json().map((l: { firstName: string }) => l.firstName);

  test("GET /leads?project= → newest first, every Lead field, createdAt as ISO; other projects' leads not included", async () => {
    const { p, base } = await withLeads();
    const other = await createProject(t.app, owner.auth);
    await insertLead(t.db.kysely, { id: newObjectId(), projectId: other._id, data: lead(9), createdAt: new Date(base + 10 * 60_000) });
    const res = await call('GET', `/leads?project=${p._id}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(firstNames(res), ['First4', 'First3', 'First2', 'First1', 'First0']);
    const newest = res.json()[0];
    for (const [k, v] of Object.entries(lead(4))) assert.deepEqual(newest[k], v, k);
    assert.equal(newest.createdAt, new Date(base + 4 * 60_000).toISOString());
    assert.match(newest._id, /^[0-9a-f]{24}$/);
  });

  test('options skip/limit in bracket and JSON form; bad options or malformed project → 400; absent project → 404', async () => {
    const { p } = await withLeads();
    assert.deepEqual(firstNames(await call('GET', `/leads?project=${p._id}&options[skip]=1&options[limit]=2`)), ['First3', 'First2']);
    assert.deepEqual(firstNames(await call('GET', `/leads?project=${p._id}&options=${encodeURIComponent('{"skip":3,"limit":5}')}`)), ['First1', 'First0']);
    assert.deepEqual((await call('GET', `/leads?project=${p._id}&options[skip]=5`)).json(), []);
    for (const bad of ['options[limit]=0', 'options[limit]=501', 'options[limit]=abc', 'options[skip]=-1', 'options[page]=1']) {
      assert.equal((await call('GET', `/leads?project=${p._id}&${bad}`)).statusCode, 400, bad);
    }
    assert.equal((await call('GET', '/leads?project=nope')).statusCode, 400);
    assert.equal((await call('GET', `/leads?project=${newObjectId()}`)).statusCode, 404);
  });

  test('owner, administrator and platform admin read leads; editor → 403; stranger → 404; no token → 401', async () => {
    const { p, administrator, editor } = await withLeads();
    const stranger = await userWithToken(t);
    const admin = await userWithToken(t, { role: 'admin' });
    const url = `/leads?project=${p._id}`;
    for (const u of [owner, administrator, admin]) assert.equal((await caller(t.app, u.auth)('GET', url)).json().length, 5);
    const ed = await caller(t.app, editor.auth)('GET', url);
    assert.equal(ed.statusCode, 403);
    assert.equal(ed.json().code, 'forbidden');
    assert.ok(!ed.body.includes('First'), 'no lead data in the refusal');
    const st = await caller(t.app, stranger.auth)('GET', url);
    assert.equal(st.statusCode, 404);
    assert.equal(st.json().code, 'not_found');
    assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 401);
  });

  test('leads are not embedded in project responses, and a `leads` array sent in a PATCH writes none', async () => {
    const { p } = await withLeads();
    const got = (await call('GET', `/project/${p._id}`)).json();
    assert.ok(!('leads' in got));
    assert.ok(!('waitlistees' in got));
    const sent = await call('PATCH', `/project/${p._id}`, { ...got, leads: [lead(7)], waitlistees: [{ firstName: 'W' }] });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.ok(!('leads' in sent.json()));
    assert.equal((await call('GET', `/leads?project=${p._id}`)).json().length, 5);
    const listed = (await call('GET', `/projects?filters[name]=${encodeURIComponent(p.name)}`)).json();
    for (const x of listed) assert.ok(!('leads' in x));
  });
});

/** As the owner by default; other headers replace the owner's (another user, or none). */
const inject = (method: string, url: string, payload?: unknown, headers: Record<string, string> = owner.auth) =>
  t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('groups: create, fetch, patch, visible projects', () => {
  test('create with defaults, fetch, patch; projects only the caller can see', async () => {
    const p = await createProject(t.app, owner.auth);
    const res = await inject('POST', `/groups?name=Portfolio&namespace=g-${newObjectId().slice(-8)}`, { projects: [p._id] });
    assert.equal(res.statusCode, 201, res.body);
    const g = res.json();
    for (const [k, v] of Object.entries({
      groupLang: 'en',
      linkBehavior: 'Service',
      mapStyle: 'Light',
      initialView: 'List',
      unitImageOnGrid: 'Unit Plan',
      showAvailableFirst: false,
      pricesStartingAt: false,
      hideArea: false,
      showFloorOverview: false,
      showPrices: true,
      showAllUnits: true,
      hideSold: true,
    })) {
      assert.deepEqual(g[k], v, k);
    }
    assert.deepEqual(g.projects, [p._id]);
    assert.equal((await inject('GET', `/groups/${g._id}`)).json().name, 'Portfolio');
    const patched = await inject('PATCH', `/groups/${g._id}`, { accentColor: '#123456', zoomLevel: 12 });
    assert.equal(patched.json().accentColor, '#123456');
    const stranger = await userWithToken(t);
    const theirs = await createProject(t.app, stranger.auth);
    const bad = await inject('PATCH', `/groups/${g._id}`, { projects: [p._id, theirs._id] });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/projects/1');
    const listed = await inject('GET', '/groups');
    assert.ok(listed.json().some((x: { _id: string }) => x._id === g._id));
    assert.ok(Number(listed.headers['x-total-count']) >= 1);
  });
});

describe('leads: list, options, bad project id', () => {
  test('GET /leads?project= newest first, with options; bad project id → 400', async () => {
    const p = await createProject(t.app, owner.auth);
    const base = Date.now();
    for (let i = 0; i < 5; i++) {
      await insertLead(t.db.kysely, {
        id: newObjectId(),
        projectId: p._id,
        data: { firstName: `L${i}`, email: `l${i}@example.com`, questions: [{ question: 'q', answer: 'a' }] },
        createdAt: new Date(base + i * 1000),
      });
    }
    const all = (await inject('GET', `/leads?project=${p._id}`)).json();
    assert.deepEqual(
      all.map((l: { firstName: string }) => l.firstName),
      ['L4', 'L3', 'L2', 'L1', 'L0'],
    );
    assert.deepEqual(all[0].questions, [{ question: 'q', answer: 'a' }]);
    const page = (await inject('GET', `/leads?project=${p._id}&options[skip]=1&options[limit]=2`)).json();
    assert.deepEqual(
      page.map((l: { firstName: string }) => l.firstName),
      ['L3', 'L2'],
    );
    assert.equal((await inject('GET', '/leads?project=nope')).statusCode, 400);
  });
});
