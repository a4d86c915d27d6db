import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertLead } from '../src/modules/leads/leads.repo.ts';
import { buildTestApp, caller, createFloor, createGroup, createProject, createUnit, userWithToken, type TestApp } from './helpers.ts';

/**
 * The access rules (docs/interface.md), route by route: owner, administrator, editor, stranger (404, never 403), platform admin, no token (401).
 * Every case builds its own records, so a delete in one row cannot hide a failure in another.
 */
type Who = 'owner' | 'administrator' | 'editor' | 'stranger' | 'admin' | 'anonymous';
const WHO: Who[] = ['owner', 'administrator', 'editor', 'stranger', 'admin', 'anonymous'];

let t: TestApp;
const people = {} as Record<Exclude<Who, 'anonymous'>, Awaited<ReturnType<typeof userWithToken>>>;

before(async () => {
  t = await buildTestApp();
  for (const who of ['owner', 'administrator', 'editor', 'stranger'] as const) people[who] = await userWithToken(t);
  people.admin = await userWithToken(t, { role: 'admin' });
});
after(() => t.close());

const headers = (who: Who) => (who === 'anonymous' ? {} : people[who].auth);

/** A project with one floor, one unit, one lead, and the administrator and editor on it. */
async function world() {
  const owner = people.owner.auth;
  const p = await createProject(t.app, owner, { body: { administrators: [people.administrator.id], editors: [people.editor.id], calKey: 'cal-secret' } });
  const f = await createFloor(t.app, owner, p._id, { position: 1 });
  const f2 = await createFloor(t.app, owner, p._id, { position: 2 });
  const u = await createUnit(t.app, owner, p._id, { floor: f._id, position: 1 });
  const u2 = await createUnit(t.app, owner, p._id, { floor: f._id, position: 2 });
  await insertLead(t.db.kysely, { id: newObjectId(), projectId: p._id, data: { firstName: 'Lee', email: 'lee@example.com' } });
  const g = await createGroup(t.app, owner, { body: { projects: [p._id], administrators: [people.administrator.id], editors: [people.editor.id] } });
  return { p: p._id, f: f._id, f2: f2._id, u: u._id, u2: u2._id, g: g._id };
}

type W = Awaited<ReturnType<typeof world>>;
interface Case {
  name: string;
  request: (w: W) => { method: string; url: string; payload?: unknown };
  expect: Record<Who, number>;
}

const ALL = (ok: number, overrides: Partial<Record<Who, number>> = {}): Record<Who, number> => ({
  owner: ok,
  administrator: ok,
  editor: ok,
  stranger: 404,
  admin: ok,
  anonymous: 401,
  ...overrides,
});

const CASES: Case[] = [
  { name: 'GET /project/{id}', request: (w) => ({ method: 'GET', url: `/project/${w.p}` }), expect: ALL(200) },
  { name: 'PATCH /project/{id} content', request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { colorBase: '#000000' } }), expect: ALL(200) },
  {
    name: 'PATCH /project/{id} a secret',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { pvPassword: 's3cret' } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} an integration setting',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { ftpUrl: 'ftp://x' } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} editors',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { editors: [] } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} invites',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { invites: [{ email: 'x@example.com', level: 'editor' }] } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} owner',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { user: people.stranger.id } }),
    expect: ALL(400, { administrator: 403, editor: 403 }),
  },
  { name: 'DELETE /project/{id}', request: (w) => ({ method: 'DELETE', url: `/project/${w.p}` }), expect: ALL(204, { administrator: 403, editor: 403 }) },
  { name: 'POST /floors', request: (w) => ({ method: 'POST', url: `/floors?project=${w.p}&name=New&position=9` }), expect: ALL(201) },
  { name: 'GET /floors?project=', request: (w) => ({ method: 'GET', url: `/floors?project=${w.p}` }), expect: ALL(200) },
  { name: 'GET /floors/{id}', request: (w) => ({ method: 'GET', url: `/floors/${w.f}` }), expect: ALL(200) },
  { name: 'PATCH /floors/{id}', request: (w) => ({ method: 'PATCH', url: `/floors/${w.f}`, payload: { name: 'Renamed' } }), expect: ALL(200) },
  { name: 'DELETE /floors/{id}', request: (w) => ({ method: 'DELETE', url: `/floors/${w.f}` }), expect: ALL(204, { editor: 403 }) },
  { name: 'POST /units', request: (w) => ({ method: 'POST', url: `/units?project=${w.p}&name=N&position=1` }), expect: ALL(201) },
  { name: 'GET /units?project=', request: (w) => ({ method: 'GET', url: `/units?project=${w.p}` }), expect: ALL(200) },
  { name: 'GET /units/{id}', request: (w) => ({ method: 'GET', url: `/units/${w.u}` }), expect: ALL(200) },
  { name: 'PATCH /units/{id}', request: (w) => ({ method: 'PATCH', url: `/units/${w.u}`, payload: { price: 1 } }), expect: ALL(200) },
  { name: 'DELETE /units/{id}', request: (w) => ({ method: 'DELETE', url: `/units/${w.u}` }), expect: ALL(204, { editor: 403 }) },
  { name: 'GET /leads?project=', request: (w) => ({ method: 'GET', url: `/leads?project=${w.p}` }), expect: ALL(200, { editor: 403 }) },
  { name: 'GET /groups/{id}', request: (w) => ({ method: 'GET', url: `/groups/${w.g}` }), expect: ALL(200) },
  { name: 'PATCH /groups/{id}', request: (w) => ({ method: 'PATCH', url: `/groups/${w.g}`, payload: { theme: 'dark' } }), expect: ALL(200) },
  {
    name: 'PATCH /groups/{id} administrators',
    request: (w) => ({ method: 'PATCH', url: `/groups/${w.g}`, payload: { administrators: [] } }),
    expect: ALL(200, { editor: 403 }),
  },
  { name: 'DELETE /groups/{id}', request: (w) => ({ method: 'DELETE', url: `/groups/${w.g}` }), expect: ALL(204, { administrator: 403, editor: 403 }) },
  // More rows of the access table: integration settings by prefix, administrators, allocations, reorders, owners of groups.
  {
    name: 'PATCH /project/{id} pvUsername',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { pvUsername: 'svc' } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} payProviderClientId',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { payProviderClientId: 'acct_1' } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} ftpPort',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { ftpPort: 2121 } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} administrators',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { administrators: [people.administrator.id, people.stranger.id] } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} allocations',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { allocations: [{ name: 'A', allocation: '1' }] } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} a secret cleared',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { calKey: null } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /project/{id} floors (reorder)',
    request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { floors: [w.f2, w.f] } }),
    expect: ALL(200),
  },
  {
    name: 'PATCH /projects/{id} content (alias)',
    request: (w) => ({ method: 'PATCH', url: `/projects/${w.p}`, payload: { showPrices: false } }),
    expect: ALL(200),
  },
  { name: 'GET /projects/{id} (alias)', request: (w) => ({ method: 'GET', url: `/projects/${w.p}` }), expect: ALL(200) },
  {
    name: 'DELETE /projects/{id} (alias)',
    request: (w) => ({ method: 'DELETE', url: `/projects/${w.p}` }),
    expect: ALL(204, { administrator: 403, editor: 403 }),
  },
  { name: 'POST /units on a floor', request: (w) => ({ method: 'POST', url: `/units?project=${w.p}&floor=${w.f}&name=N&position=2` }), expect: ALL(201) },
  { name: 'GET /units?project=&floor=', request: (w) => ({ method: 'GET', url: `/units?project=${w.p}&floor=${w.f}` }), expect: ALL(200) },
  { name: 'PATCH /units/{id} floor (move)', request: (w) => ({ method: 'PATCH', url: `/units/${w.u}`, payload: { floor: w.f2 } }), expect: ALL(200) },
  {
    name: 'PATCH /floors/{id} units (reorder)',
    request: (w) => ({ method: 'PATCH', url: `/floors/${w.f}`, payload: { units: [w.u2, w.u] } }),
    expect: ALL(200),
  },
  {
    name: 'PATCH /groups/{id} editors',
    request: (w) => ({ method: 'PATCH', url: `/groups/${w.g}`, payload: { editors: [] } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /groups/{id} invites',
    request: (w) => ({ method: 'PATCH', url: `/groups/${w.g}`, payload: { invites: [{ email: 'x@example.com', level: 'editor' }] } }),
    expect: ALL(200, { editor: 403 }),
  },
  {
    name: 'PATCH /groups/{id} owner',
    request: (w) => ({ method: 'PATCH', url: `/groups/${w.g}`, payload: { user: people.stranger.id } }),
    expect: ALL(400, { administrator: 403, editor: 403 }),
  },
  { name: 'PATCH /groups/{id} projects', request: (w) => ({ method: 'PATCH', url: `/groups/${w.g}`, payload: { projects: [] } }), expect: ALL(200) },
];

for (const c of CASES) {
  describe(c.name, () => {
    for (const who of WHO) {
      test(`${who} → ${c.expect[who]}`, async () => {
        const w = await world();
        const { method, url, payload } = c.request(w);
        // A refused change must leave the record exactly as it was.
        const target = method === 'PATCH' || method === 'DELETE' ? url : undefined;
        const before = target && (await t.app.inject({ method: 'GET', url: target, headers: people.owner.auth })).json();
        const res = await t.app.inject({ method: method as 'GET', url, headers: headers(who), ...(payload ? { payload: payload as object } : {}) });
        assert.equal(res.statusCode, c.expect[who], `${who} ${method} ${url}: ${res.body}`);
        if (res.statusCode >= 400) assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
        if (res.statusCode === 401) assert.match(String(res.headers['www-authenticate']), /^Bearer/);
        if (res.statusCode === 403) assert.equal(res.json().code, 'forbidden');
        if (res.statusCode === 404) assert.equal(res.json().code, 'not_found');
        if (target && res.statusCode >= 400) {
          assert.deepEqual((await t.app.inject({ method: 'GET', url: target, headers: people.owner.auth })).json(), before, 'nothing written');
        }
      });
    }
  });
}

describe('ids that arrive in a body or query', () => {
  test("creating a floor or unit under someone else's project → 404; with a project that does not exist → 404", async () => {
    const w = await world();
    for (const url of [`/floors?project=${w.p}&name=x&position=1`, `/units?project=${w.p}&name=x&position=1`]) {
      assert.equal((await t.app.inject({ method: 'POST', url, headers: people.stranger.auth })).statusCode, 404, url);
    }
    const missing = newObjectId();
    assert.equal((await t.app.inject({ method: 'POST', url: `/floors?project=${missing}&name=x`, headers: people.owner.auth })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'POST', url: '/floors?name=x', headers: people.owner.auth })).statusCode, 400);
  });

  test("adding a project the caller cannot see to a group → 400; the caller's own → 200", async () => {
    const w = await world();
    const theirs = await createProject(t.app, people.stranger.auth);
    const bad = await t.app.inject({ method: 'PATCH', url: `/groups/${w.g}`, headers: people.owner.auth, payload: { projects: [theirs._id] } });
    assert.equal(bad.statusCode, 400);
    const ok = await t.app.inject({ method: 'PATCH', url: `/groups/${w.g}`, headers: people.owner.auth, payload: { projects: [w.p] } });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json().projects, [w.p]);
  });

  test('an editor who sends back the whole fetched record, administrators and all, succeeds', async () => {
    const w = await world();
    await t.app.inject({
      method: 'PATCH',
      url: `/project/${w.p}`,
      headers: people.owner.auth,
      payload: { ftpUrl: 'ftp://files.example.com', pvPassword: 'x' },
    });
    const fetched = (await t.app.inject({ method: 'GET', url: `/project/${w.p}`, headers: people.editor.auth })).json();
    const res = await t.app.inject({ method: 'PATCH', url: `/project/${w.p}`, headers: people.editor.auth, payload: { ...fetched, name: 'Editor was here' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, 'Editor was here');
    const group = (await t.app.inject({ method: 'GET', url: `/groups/${w.g}`, headers: people.editor.auth })).json();
    assert.equal((await t.app.inject({ method: 'PATCH', url: `/groups/${w.g}`, headers: people.editor.auth, payload: group })).statusCode, 200);
  });
});

describe('more of the rules', () => {
  test('a stranger cannot tell a hidden record from an absent one: same status and code, even with a stale If-Match or a bad body', async () => {
    const w = await world();
    const stranger = caller(t.app, people.stranger.auth);
    for (const [kind, id] of [
      ['project', w.p],
      ['floors', w.f],
      ['units', w.u],
      ['groups', w.g],
    ] as const) {
      const hidden = await stranger('PATCH', `/${kind}/${id}`, { name: 'x' }, { 'if-match': '"0"' });
      const absent = await stranger('PATCH', `/${kind}/${newObjectId()}`, { name: 'x' }, { 'if-match': '"0"' });
      assert.equal(hidden.statusCode, 404, kind);
      assert.equal(absent.statusCode, 404, kind);
      assert.equal(hidden.json().code, absent.json().code);
      assert.equal(hidden.json().title, absent.json().title);
      assert.ok(!hidden.body.includes(id), 'the refusal does not echo the id');
    }
    for (const url of [`/floors?project=${w.p}`, `/units?project=${w.p}`, `/leads?project=${w.p}`]) {
      assert.equal((await stranger('GET', url)).statusCode, 404, url);
    }
    const listed = await stranger('GET', '/groups');
    assert.ok(!listed.json().some((g: { _id: string }) => g._id === w.g), 'GET /groups hides it');
    const projects = await stranger('GET', '/projects');
    assert.ok(!projects.json().some((p: { _id: string }) => p._id === w.p), 'GET /projects hides it');
  });

  test('an editor who sends back the whole fetched record unchanged (administrators, integration fields, allocations) → 200, no new version', async () => {
    const w = await world();
    await t.app.inject({
      method: 'PATCH',
      url: `/project/${w.p}`,
      headers: people.owner.auth,
      payload: {
        ftpUrl: 'ftp://files.example.com',
        pvUsername: 'svc',
        allocations: [{ name: 'A', password: 'pw', allocation: '1' }],
        invites: [{ email: 'i@example.com', level: 'editor' }],
      },
    });
    const ed = caller(t.app, people.editor.auth);
    for (const url of [`/project/${w.p}`, `/groups/${w.g}`, `/floors/${w.f}`, `/units/${w.u}`]) {
      const fetched = await ed('GET', url);
      const res = await ed('PATCH', url, fetched.json());
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.equal(res.headers.etag, fetched.headers.etag, `${url}: nothing written`);
    }
    // The same record with one managed field really changed → 403, and nothing (not even the allowed part) is written.
    const fetched = (await ed('GET', `/project/${w.p}`)).json();
    const refused = await ed('PATCH', `/project/${w.p}`, { ...fetched, name: 'Editor was here', ftpUrl: 'ftp://elsewhere.example.com' });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json().detail, /ftpUrl/);
    assert.equal((await ed('GET', `/project/${w.p}`)).json().name, fetched.name);
    const ok = await ed('PATCH', `/project/${w.p}`, { ...fetched, name: 'Editor was here' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().name, 'Editor was here');
    // Clearing a secret that is not set is no change, so an editor may send it.
    assert.equal((await ed('PATCH', `/project/${w.p}`, { srToken: null })).statusCode, 200);
  });

  test('the owner cannot put the project in another account: one answer for an existing and an unknown id', async () => {
    const w = await world();
    const recipient = await userWithToken(t);
    const own = caller(t.app, people.owner.auth);
    const existing = await own('PATCH', `/project/${w.p}`, { user: recipient.id });
    const unknown = await own('PATCH', `/project/${w.p}`, { user: 'ffffffffffffffffffffffff' });
    assert.equal(existing.statusCode, 400, existing.body);
    assert.deepEqual(existing.json().errors, [
      { path: '/user', message: 'cannot be changed here: send an invitation with level "owner"; the project changes owner when it is accepted' },
    ]);
    assert.equal(unknown.statusCode, existing.statusCode);
    assert.deepEqual(unknown.json(), existing.json());
    // Nothing moved: the owner keeps it, the would-be recipient does not see it.
    const kept = await own('GET', `/project/${w.p}`);
    assert.equal(kept.json().user, people.owner.id);
    assert.equal((await caller(t.app, recipient.auth)('GET', `/project/${w.p}`)).statusCode, 404);
    // Sending the current owner back is no change.
    assert.equal((await own('PATCH', `/project/${w.p}`, { user: people.owner.id })).statusCode, 200);
  });

  test('ids in a body or query that point at records of a project the caller cannot see', async () => {
    const w = await world();
    const mine = await createProject(t.app, people.stranger.auth);
    const myFloor = await createFloor(t.app, people.stranger.auth, mine._id);
    const myUnit = await createUnit(t.app, people.stranger.auth, mine._id, { floor: myFloor._id });
    const s = caller(t.app, people.stranger.auth);
    // A unit of mine moved onto their floor; a unit of theirs listed on my floor; their floors in my project's order.
    const move = await s('PATCH', `/units/${myUnit._id}`, { floor: w.f });
    assert.equal(move.statusCode, 400);
    assert.equal(move.json().errors[0].path, '/floor');
    assert.equal((await s('PATCH', `/floors/${myFloor._id}`, { units: [myUnit._id, w.u] })).statusCode, 400);
    assert.equal((await s('PATCH', `/project/${mine._id}`, { floors: [myFloor._id, w.f] })).statusCode, 400);
    assert.equal((await s('POST', `/units?project=${mine._id}&floor=${w.f}&name=x&position=1`)).statusCode, 400);
    // Filtering my units by their floor shows nothing of theirs.
    assert.deepEqual((await s('GET', `/units?project=${mine._id}&floor=${w.f}`)).json(), []);
    // Their project in my group; their records untouched.
    const g = await createGroup(t.app, people.stranger.auth);
    const bad = await s('PATCH', `/groups/${g._id}`, { projects: [mine._id, w.p] });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/projects/1');
    const owner = caller(t.app, people.owner.auth);
    assert.deepEqual((await owner('GET', `/floors/${w.f}`)).json().units, [w.u, w.u2]);
    assert.equal((await owner('GET', `/units/${myUnit._id}`)).statusCode, 404, "and the owner cannot see the stranger's unit either");
  });

  test('an editor of a group cannot add a project they cannot see; an administrator of a project can group it', async () => {
    const w = await world();
    const hidden = await createProject(t.app, people.owner.auth);
    const g = await createGroup(t.app, people.owner.auth, { body: { editors: [people.editor.id] } });
    const ed = caller(t.app, people.editor.auth);
    assert.equal((await ed('PATCH', `/groups/${g._id}`, { projects: [hidden._id] })).statusCode, 400);
    assert.equal((await ed('PATCH', `/groups/${g._id}`, { projects: [w.p] })).statusCode, 200, 'the editor can see w.p');
    const mine = await createGroup(t.app, people.administrator.auth, { body: { projects: [w.p] } });
    assert.deepEqual(mine.projects, [w.p]);
  });

  test('creating a group or listing needs a token; any signed-in user may create a group', async () => {
    for (const url of ['/projects', '/groups']) {
      const anon = await t.app.inject({ method: 'GET', url });
      assert.equal(anon.statusCode, 401, url);
      assert.match(String(anon.headers['www-authenticate']), /^Bearer/);
    }
    assert.equal((await t.app.inject({ method: 'POST', url: '/groups?name=G' })).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'POST', url: '/projects?name=P' })).statusCode, 401);
    assert.equal((await caller(t.app, people.stranger.auth)('POST', '/groups?name=Mine')).statusCode, 201);
  });
});
