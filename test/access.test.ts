import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertLead } from '../src/modules/leads/leads.repo.ts';
import { buildTestApp, createFloor, createProject, createUnit, userWithToken, type TestApp } from './helpers.ts';

/**
 * CONTRACT §3, route by route: owner, administrator, editor, stranger (404, never 403), platform admin, no token (401).
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
  const p = await createProject(t.app, owner, { body: { administrators: [people.administrator.id], editors: [people.editor.id] } });
  const f = await createFloor(t.app, owner, p._id);
  const u = await createUnit(t.app, owner, p._id, { floor: f._id });
  await insertLead(t.db.kysely, { id: newObjectId(), projectId: p._id, data: { firstName: 'Lee', email: 'lee@example.com' } });
  const g = (await t.app.inject({ method: 'POST', url: '/groups?name=G', headers: owner, payload: { administrators: [people.administrator.id], editors: [people.editor.id] } })).json();
  return { p: p._id, f: f._id, u: u._id, g: g._id };
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
  { name: 'PATCH /project/{id} a secret', request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { pvPassword: 's3cret' } }), expect: ALL(200, { editor: 403 }) },
  { name: 'PATCH /project/{id} an integration setting', request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { ftpUrl: 'ftp://x' } }), expect: ALL(200, { editor: 403 }) },
  { name: 'PATCH /project/{id} editors', request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { editors: [] } }), expect: ALL(200, { editor: 403 }) },
  { name: 'PATCH /project/{id} invites', request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { invites: [{ email: 'x@example.com', level: 'editor' }] } }), expect: ALL(200, { editor: 403 }) },
  { name: 'PATCH /project/{id} owner', request: (w) => ({ method: 'PATCH', url: `/project/${w.p}`, payload: { user: people.stranger.id } }), expect: ALL(200, { administrator: 403, editor: 403 }) },
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
  { name: 'PATCH /groups/{id} administrators', request: (w) => ({ method: 'PATCH', url: `/groups/${w.g}`, payload: { administrators: [] } }), expect: ALL(200, { editor: 403 }) },
  { name: 'DELETE /groups/{id}', request: (w) => ({ method: 'DELETE', url: `/groups/${w.g}` }), expect: ALL(204, { administrator: 403, editor: 403 }) },
];

for (const c of CASES) {
  describe(c.name, () => {
    for (const who of WHO) {
      test(`${who} → ${c.expect[who]}`, async () => {
        const w = await world();
        const { method, url, payload } = c.request(w);
        const res = await t.app.inject({ method: method as 'GET', url, headers: headers(who), ...(payload ? { payload: payload as object } : {}) });
        assert.equal(res.statusCode, c.expect[who], `${who} ${method} ${url}: ${res.body}`);
        if (res.statusCode >= 400) assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
        if (res.statusCode === 401) assert.match(String(res.headers['www-authenticate']), /^Bearer/);
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
    await t.app.inject({ method: 'PATCH', url: `/project/${w.p}`, headers: people.owner.auth, payload: { ftpUrl: 'ftp://files.example.com', pvPassword: 'x' } });
    const fetched = (await t.app.inject({ method: 'GET', url: `/project/${w.p}`, headers: people.editor.auth })).json();
    const res = await t.app.inject({ method: 'PATCH', url: `/project/${w.p}`, headers: people.editor.auth, payload: { ...fetched, name: 'Editor was here' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, 'Editor was here');
    const group = (await t.app.inject({ method: 'GET', url: `/groups/${w.g}`, headers: people.editor.auth })).json();
    assert.equal((await t.app.inject({ method: 'PATCH', url: `/groups/${w.g}`, headers: people.editor.auth, payload: group })).statusCode, 200);
  });
});
