import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertLead } from '../src/modules/leads/leads.repo.ts';
import { ProjectSchema } from '../src/modules/projects/projects.schemas.ts';
import { buildTestApp, createFloor, createProject, createUnit, TestClock, userWithToken, type TestApp } from './helpers.ts';

let t: TestApp;
let owner: Awaited<ReturnType<typeof userWithToken>>;
const clock = new TestClock();

before(async () => {
  t = await buildTestApp({ clock });
  owner = await userWithToken(t);
});
after(() => t.close());

const inject = (method: string, url: string, payload?: unknown, headers: Record<string, string> = owner.auth) =>
  t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('projects', () => {
  test('POST /projects takes name, namespace and hostName as query parameters → 201, Location, ETag, the spec defaults', async () => {
    const ns = `ns-${newObjectId().slice(-8)}`;
    const res = await inject('POST', `/projects?name=Harbour%20Tower&namespace=${ns}&hostName=${ns}.Example.com`);
    assert.equal(res.statusCode, 201);
    const p = res.json();
    assert.match(p._id, /^[0-9a-f]{24}$/);
    assert.equal(res.headers.location, `/project/${p._id}`);
    assert.equal(res.headers.etag, '"1"');
    assert.equal(p.name, 'Harbour Tower');
    assert.equal(p.namespace, ns);
    assert.equal(p.hostName, `${ns}.example.com`, 'host names are stored lower-case');
    assert.equal(p.user, owner.id);
    assert.deepEqual(p.floors, []);
    assert.deepEqual(p.configuredSecrets, []);
    for (const [k, v] of Object.entries({
      initialView: 'List',
      onHoldMinsDuration: 5,
      customButtonOpensAt: 'same_tab',
      customButtonActionType: 'url',
      unitImageOnGrid: 'Unit Plan',
      similarSortingBy: 'default',
      chargeType: 'same',
      chargeCurrency: 'usd',
      payButtonText: 'Pay Now',
      mapStyle: 'Light',
      zoomLevel: 0,
      gtmHeadCode: '',
    })) {
      assert.deepEqual(p[k], v, k);
    }
    assert.ok(Date.parse(p.createdAt) && Date.parse(p.updatedAt));
  });

  test('missing name → 400 naming it; bad namespace → 400; duplicate namespace or host name (any case) → 409', async () => {
    const missing = await inject('POST', '/projects');
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.deepEqual(
      missing.json().errors.map((e: { path: string }) => e.path),
      ['/name'],
    );
    for (const bad of ['Bad%20Slug', 'a'.repeat(64), '-lead', 'x--y']) {
      const res = await inject('POST', `/projects?name=X&namespace=${bad}`);
      assert.equal(res.statusCode, 400, bad);
      assert.equal(res.json().errors[0].path, '/namespace');
    }
    const ns = `dup-${newObjectId().slice(-8)}`;
    assert.equal((await inject('POST', `/projects?name=A&namespace=${ns}&hostName=${ns}.example.com`)).statusCode, 201);
    const dupNs = await inject('POST', `/projects?name=B&namespace=${ns}`);
    assert.equal(dupNs.statusCode, 409);
    assert.equal(dupNs.json().code, 'conflict');
    assert.equal((await inject('POST', `/projects?name=C&hostName=${ns.toUpperCase()}.EXAMPLE.COM`)).statusCode, 409);
  });

  test('every Project field of the schema round-trips through PATCH /project/{id} with its type', async () => {
    const p = await createProject(t.app, owner.auth);
    const props = ProjectSchema.properties as Record<string, { type?: string; items?: unknown; format?: string; anyOf?: unknown }>;
    const skip = new Set([
      '_id',
      '__v',
      'user',
      'floors',
      'configuredSecrets',
      'createdAt',
      'updatedAt',
      'administrators',
      'editors',
      'commercialSpaces',
      'invites',
      'customFinishes',
      'lockScreenCustomQuestions',
      'ftpMapping',
      'yiStatusMapping',
      'allocations',
      'customFormFields',
      'plan',
      'namespace',
      'hostName',
    ]);
    const body: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(props)) {
      if (skip.has(k)) continue;
      if (s.format === 'email' || s.format === 'email-list') body[k] = `${k.toLowerCase()}@example.com`;
      else if (s.type === 'string') body[k] = `value of ${k}`;
      else if (s.type === 'number') body[k] = 7.5;
      else if (s.type === 'boolean') body[k] = true;
      else if (s.type === 'array') body[k] = [`${k}-1`, `${k}-2`];
      else assert.fail(`unexpected schema for ${k}`);
    }
    Object.assign(body, {
      commercialSpaces: [newObjectId()],
      invites: [{ firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', level: 'editor' }],
      customFinishes: {
        name: 'Finishes',
        options: { kitchen: { tabs: [{ label: 'Oak', cover: 'c.jpg', thumbnail: 't.jpg' }] }, bathroom: { tabs: [] }, general: { tabs: [] } },
      },
      lockScreenCustomQuestions: [{ lang: 'en', value: 'Budget?' }],
      ftpMapping: [{ header: 'Unit', property: 'name' }],
      yiStatusMapping: { available: 'A', leased: 'L', sold: 'S', unavailable: 'U', reserved: 'R' },
      customFormFields: [{ label: 'Budget', type: 'text' }],
      plan: { tier: 'pro' },
    });
    // A hand-written sample of API-SPEC.md names, so a field dropped from the schema is caught too.
    for (const name of [
      'websiteURL',
      'walkscore',
      'crfMessage',
      '_3dFloorSelectorModelUrl',
      'lockScreenCustom',
      'hideBedrooms',
      'ftpPort',
      'payProviderDeposit',
      'styleFont',
      'colorReserved',
      'soDomain',
      'brochureAssets',
      'eventsBlockList',
      'phasePrefix',
      'mapLayoutRotation',
      'globalAmount',
    ]) {
      assert.ok(name in body, `spec field ${name} is in the schema`);
    }
    const res = await inject('PATCH', `/project/${p._id}`, body);
    assert.equal(res.statusCode, 200, res.body);
    const got = (await inject('GET', `/project/${p._id}`)).json();
    for (const [k, v] of Object.entries(body)) assert.deepEqual(got[k], v, k);
  });

  test('a field of the wrong type → 400 naming each bad field; unknown fields → 400 naming them', async () => {
    const p = await createProject(t.app, owner.auth);
    const res = await inject('PATCH', `/project/${p._id}`, {
      showPrices: 'yes',
      onHoldMinsDuration: '5',
      images: 'a.jpg',
      formsSendTo: 'not-mail',
      noSuchField: 1,
    });
    assert.equal(res.statusCode, 400);
    const paths = res
      .json()
      .errors.map((e: { path: string }) => e.path)
      .sort();
    assert.deepEqual(paths, ['/formsSendTo', '/images', '/noSuchField', '/onHoldMinsDuration', '/showPrices']);
  });

  test('GET /project/{id} and /projects/{id}; malformed id → 400; unknown id → 404', async () => {
    const p = await createProject(t.app, owner.auth);
    for (const base of ['/project', '/projects']) {
      const res = await inject('GET', `${base}/${p._id}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json()._id, p._id);
      assert.equal(res.headers.etag, '"1"');
    }
    assert.equal((await inject('GET', '/project/not-an-id')).statusCode, 400);
    assert.equal((await inject('GET', `/project/${newObjectId()}`)).statusCode, 404);
    assert.equal((await inject('PATCH', `/projects/${p._id}`, { name: 'Renamed' })).json().name, 'Renamed');
  });
});

describe('GET /projects search', () => {
  let searcher: Awaited<ReturnType<typeof userWithToken>>;
  const names = ['Tower Alpha', 'tower beta', 'Garden Court', 'Harbour TOWER', 'Lofts One', 'Lofts Two', 'Park Tower View'];
  const ids: string[] = [];
  before(async () => {
    searcher = await userWithToken(t);
    for (const [i, name] of names.entries()) {
      clock.advance(1000);
      ids.push((await createProject(t.app, searcher.auth, { name, body: { projectType: i % 2 ? 'rental' : 'condo' } }))._id);
    }
  });
  const list = (url: string) => t.app.inject({ method: 'GET', url, headers: searcher.auth });

  test('filters.name matches a case-insensitive substring, in JSON and bracket form; X-Total-Count', async () => {
    for (const url of [`/projects?filters=${encodeURIComponent('{"name":"TOWER"}')}`, '/projects?filters[name]=tower']) {
      const res = await list(url);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        res
          .json()
          .map((p: { name: string }) => p.name)
          .sort(),
        ['Harbour TOWER', 'Park Tower View', 'Tower Alpha', 'tower beta'],
      );
      assert.equal(res.headers['x-total-count'], '4');
    }
    const wild = await list('/projects?filters[name]=%25');
    assert.equal(wild.json().length, 0, '% is matched literally');
  });

  test('filters.projectType matches exactly; other filter keys and bad options → 400', async () => {
    const res = await list('/projects?filters[projectType]=rental');
    assert.deepEqual(
      res
        .json()
        .map((p: { name: string }) => p.name)
        .sort(),
      ['Harbour TOWER', 'Lofts Two', 'tower beta'],
    );
    assert.equal((await list('/projects?filters[projectType]=rent')).json().length, 0);
    for (const bad of [
      'filters[owner]=x',
      'options[limit]=0',
      'options[limit]=501',
      'options[limit]=abc',
      'options[skip]=-1',
      'options[sort]=price',
      `filters=${encodeURIComponent('{bad')}`,
    ]) {
      const r = await list(`/projects?${bad}`);
      assert.equal(r.statusCode, 400, bad);
      assert.equal(r.json().code, 'invalid_query');
    }
  });

  test('default order is newest first; sort by name both ways; stable pages that cover everything once', async () => {
    const all = (await list('/projects')).json().map((p: { _id: string }) => p._id);
    assert.deepEqual(all, [...ids].reverse());
    const byName = (await list('/projects?options[sort]=name')).json().map((p: { name: string }) => p.name);
    assert.deepEqual(byName, ['Garden Court', 'Harbour TOWER', 'Lofts One', 'Lofts Two', 'Park Tower View', 'Tower Alpha', 'tower beta']);
    const desc = (await list('/projects?options[sort]=-name')).json().map((p: { name: string }) => p.name);
    assert.deepEqual(desc, [...byName].reverse());
    const pages: string[] = [];
    for (let skip = 0; skip < 9; skip += 3) {
      const res = await list(`/projects?options=${encodeURIComponent(JSON.stringify({ skip, limit: 3, sort: 'createdAt' }))}`);
      assert.equal(res.headers['x-total-count'], String(names.length));
      pages.push(...res.json().map((p: { _id: string }) => p._id));
    }
    assert.deepEqual(pages, ids);
    const past = await list('/projects?options[skip]=50');
    assert.deepEqual(past.json(), []);
    assert.equal(past.headers['x-total-count'], String(names.length));
  });

  test('only visible projects are listed; a platform admin sees them all', async () => {
    const stranger = await userWithToken(t);
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/projects', headers: stranger.auth })).json(), []);
    const admin = await userWithToken(t, { role: 'admin' });
    const seen = (await t.app.inject({ method: 'GET', url: '/projects?options[limit]=500', headers: admin.auth })).json().map((p: { _id: string }) => p._id);
    for (const id of ids) assert.ok(seen.includes(id));
  });
});

describe('floors, units and references', () => {
  test('floors list in position order on the project; units on the floor; Location and ETag', async () => {
    const p = await createProject(t.app, owner.auth);
    const f2 = await createFloor(t.app, owner.auth, p._id, { name: 'L2', position: 2 });
    const f1 = await createFloor(t.app, owner.auth, p._id, { name: 'L1', position: 1 });
    const fLast = await createFloor(t.app, owner.auth, p._id, { name: 'Roof' });
    assert.equal(fLast.position, 3, 'without a position a floor goes last');
    assert.deepEqual((await inject('GET', `/project/${p._id}`)).json().floors, [f1._id, f2._id, fLast._id]);
    assert.deepEqual(
      (await inject('GET', `/floors?project=${p._id}`)).json().map((f: { _id: string }) => f._id),
      [f1._id, f2._id, fLast._id],
    );

    const res = await inject('POST', `/units?name=101&position=1&project=${p._id}&floor=${f1._id}`);
    assert.equal(res.statusCode, 201);
    const u = res.json();
    assert.equal(res.headers.location, `/units/${u._id}`);
    assert.equal(u.specificType, 'unit');
    assert.equal(u.availability, 'available');
    assert.equal(u.floor, f1._id);
    assert.equal(u.project, p._id);
    const floor = await inject('GET', `/floors/${f1._id}`);
    assert.deepEqual(floor.json().units, [u._id]);
    assert.ok(floor.headers.etag);
  });

  test('reordering project.floors and floor.units; foreign or repeated ids → 400', async () => {
    const p = await createProject(t.app, owner.auth);
    const floors = [];
    for (let i = 0; i < 3; i++) floors.push((await createFloor(t.app, owner.auth, p._id, { name: `F${i}`, position: i }))._id);
    const reversed = [...floors].reverse();
    const res = await inject('PATCH', `/project/${p._id}`, { floors: reversed });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().floors, reversed);
    assert.deepEqual((await inject('GET', `/floors/${reversed[0]}`)).json().position, 0);
    const other = await createProject(t.app, owner.auth);
    const foreign = await createFloor(t.app, owner.auth, other._id);
    const bad = await inject('PATCH', `/project/${p._id}`, { floors: [floors[0], foreign._id] });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/floors/1');
    assert.equal((await inject('PATCH', `/project/${p._id}`, { floors: [floors[0], floors[0]] })).statusCode, 400);

    const f = floors[0]!;
    const units = [];
    for (let i = 0; i < 3; i++) units.push((await createUnit(t.app, owner.auth, p._id, { floor: f, position: i }))._id);
    const r2 = await inject('PATCH', `/floors/${f}`, { units: [units[2], units[0], units[1]] });
    assert.equal(r2.statusCode, 200, r2.body);
    assert.deepEqual(r2.json().units, [units[2], units[0], units[1]]);
    const foreignUnit = await createUnit(t.app, owner.auth, other._id);
    assert.equal((await inject('PATCH', `/floors/${f}`, { units: [foreignUnit._id] })).statusCode, 400);
  });

  test('moving a unit between floors updates both floors and both ETags; a floor of another project → 400', async () => {
    const p = await createProject(t.app, owner.auth);
    const a = await createFloor(t.app, owner.auth, p._id, { name: 'A' });
    const b = await createFloor(t.app, owner.auth, p._id, { name: 'B' });
    const u = await createUnit(t.app, owner.auth, p._id, { floor: a._id });
    const etagA = (await inject('GET', `/floors/${a._id}`)).headers.etag;
    const etagB = (await inject('GET', `/floors/${b._id}`)).headers.etag;
    const moved = await inject('PATCH', `/units/${u._id}`, { floor: b._id });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().floor, b._id);
    const [ga, gb] = [await inject('GET', `/floors/${a._id}`), await inject('GET', `/floors/${b._id}`)];
    assert.deepEqual(ga.json().units, []);
    assert.deepEqual(gb.json().units, [u._id]);
    assert.notEqual(ga.headers.etag, etagA);
    assert.notEqual(gb.headers.etag, etagB);
    const other = await createProject(t.app, owner.auth);
    const foreign = await createFloor(t.app, owner.auth, other._id);
    const bad = await inject('PATCH', `/units/${u._id}`, { floor: foreign._id });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/floor');
    assert.equal((await inject('POST', `/units?name=x&position=1&project=${p._id}&floor=${foreign._id}`)).statusCode, 400);
  });

  test('availability: any case in, lower case stored; unknown → 400; GET /units filters', async () => {
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id);
    const sold = await inject('PATCH', `/units/${u._id}`, { availability: 'SOLD' });
    assert.equal(sold.json().availability, 'sold');
    const bad = await inject('PATCH', `/units/${u._id}`, { availability: 'gone' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/availability');
    const other = await createUnit(t.app, owner.auth, p._id);
    const soldList = (await inject('GET', `/units?project=${p._id}&availability=Sold`)).json();
    assert.deepEqual(
      soldList.map((x: { _id: string }) => x._id),
      [u._id],
    );
    const avail = (await inject('GET', `/units?project=${p._id}&availability=available`)).json();
    assert.deepEqual(
      avail.map((x: { _id: string }) => x._id),
      [other._id],
    );
  });

  test('an expired hold reads as available with no expiry and is written back', async () => {
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id);
    const expires = new Date(clock.now() + 60_000).toISOString();
    const held = await inject('PATCH', `/units/${u._id}`, { availability: 'on_hold', onHoldExpiresAt: expires });
    assert.equal(held.json().availability, 'on_hold');
    assert.equal(held.json().onHoldExpiresAt, expires);
    assert.equal((await inject('GET', `/units/${u._id}`)).json().availability, 'on_hold');
    clock.advance(61_000);
    const after = (await inject('GET', `/units/${u._id}`)).json();
    assert.equal(after.availability, 'available');
    assert.equal(after.onHoldExpiresAt, undefined);
    const row = await t.db.kysely.selectFrom('units').select(['availability', 'on_hold_expires_at']).where('id', '=', u._id).executeTakeFirstOrThrow();
    assert.equal(row.availability, 'available');
    assert.equal(row.on_hold_expires_at, null);
    assert.equal((await inject('PATCH', `/units/${u._id}`, { availability: 'on_hold' })).statusCode, 400, 'a staff hold needs an expiry');
  });
});

describe('groups', () => {
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

describe('deletes and cascades', () => {
  test('deleting a project removes its floors, units, leads and group memberships; groups stay', async () => {
    const p = await createProject(t.app, owner.auth);
    const keep = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id });
    await insertLead(t.db.kysely, { id: newObjectId(), projectId: p._id, data: { firstName: 'A', email: 'a@example.com' } });
    const g = (await inject('POST', '/groups?name=G', { projects: [p._id, keep._id] })).json();
    assert.equal((await inject('DELETE', `/project/${p._id}`)).statusCode, 204);
    assert.equal((await inject('GET', `/project/${p._id}`)).statusCode, 404);
    assert.equal((await inject('GET', `/floors/${f._id}`)).statusCode, 404);
    assert.equal((await inject('GET', `/units/${u._id}`)).statusCode, 404);
    const leads = await t.db.kysely.selectFrom('leads').select('id').where('project_id', '=', p._id).execute();
    assert.equal(leads.length, 0);
    assert.deepEqual((await inject('GET', `/groups/${g._id}`)).json().projects, [keep._id]);
    assert.equal((await inject('DELETE', `/groups/${g._id}`)).statusCode, 204);
    assert.equal((await inject('GET', `/project/${keep._id}`)).statusCode, 200, 'deleting a group deletes no project');
  });

  test('deleting a floor deletes its units and leaves project.floors; deleting a unit leaves floor.units', async () => {
    const p = await createProject(t.app, owner.auth);
    const f1 = await createFloor(t.app, owner.auth, p._id, { position: 1 });
    const f2 = await createFloor(t.app, owner.auth, p._id, { position: 2 });
    const u1 = await createUnit(t.app, owner.auth, p._id, { floor: f1._id });
    const u2 = await createUnit(t.app, owner.auth, p._id, { floor: f2._id });
    const u3 = await createUnit(t.app, owner.auth, p._id, { floor: f2._id, position: 1 });
    assert.equal((await inject('DELETE', `/floors/${f1._id}`)).statusCode, 204);
    assert.equal((await inject('GET', `/units/${u1._id}`)).statusCode, 404);
    assert.deepEqual((await inject('GET', `/project/${p._id}`)).json().floors, [f2._id]);
    assert.equal((await inject('DELETE', `/units/${u2._id}`)).statusCode, 204);
    assert.deepEqual((await inject('GET', `/floors/${f2._id}`)).json().units, [u3._id]);
    assert.equal((await inject('DELETE', `/units/${u2._id}`)).statusCode, 404);
  });
});

describe('leads', () => {
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
    assert.equal((await inject('GET', '/leads')).statusCode, 400);
  });
});
