import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { ensureAdmin } from '../src/bootstrap.ts';
import { buildTestApp, caller, createProject, createUser, ENGINE, login, testConfig, userWithToken, type TestApp } from './helpers.ts';

const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as FastifyBaseLogger;
const email = (prefix = 'u') => `${prefix}-${randomBytes(5).toString('hex')}@example.com`;

describe(`POST /users (${ENGINE})`, () => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof userWithToken>>;
  before(async () => {
    t = await buildTestApp();
    admin = await userWithToken(t, { role: 'admin' });
  });
  after(() => t.close());

  const create = (headers: Record<string, string>, payload: unknown) => t.app.inject({ method: 'POST', url: '/users', headers, payload: payload as object });

  test('an admin creates a user → 201 with Location; the user can log in; no hash in the answer', async () => {
    const username = email('new');
    const res = await create(admin.auth, { username, password: 'long enough pw', name: 'Grace', lastName: 'Hopper' });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.match(body._id, /^[0-9a-f]{24}$/);
    assert.equal(res.headers.location, `/users/${body._id}`);
    assert.equal(body.username, username);
    assert.equal(body.role, 'user');
    assert.equal(body.fullName, 'Grace Hopper');
    assert.deepEqual(
      Object.keys(body).filter((k) => /pass|hash/i.test(k)),
      [],
    );
    const l = await login(t.app, { username, password: 'long enough pw' });
    assert.equal(l.body._id, body._id);
  });

  test('an admin may set the role', async () => {
    const res = await create(admin.auth, { username: email('int'), password: 'long enough pw', role: 'integration' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().role, 'integration');
  });

  test('a user (or integration) → 403, and nothing is created', async () => {
    for (const role of ['user', 'integration'] as const) {
      const caller = await userWithToken(t, { role });
      const username = email('nope');
      const res = await create(caller.auth, { username, password: 'long enough pw' });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().code, 'forbidden');
      const row = await t.db.kysely.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
      assert.equal(row, undefined);
    }
  });

  test('no token → 401', async () => {
    const res = await create({}, { username: email(), password: 'long enough pw' });
    assert.equal(res.statusCode, 401);
  });

  test('a duplicate username (any case) → 409 conflict', async () => {
    const existing = await createUser(t.db);
    for (const username of [existing.username, existing.username.toUpperCase()]) {
      const res = await create(admin.auth, { username, password: 'long enough pw' });
      assert.equal(res.statusCode, 409, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.json().code, 'conflict');
    }
  });

  const badBodies: Array<[string, Record<string, unknown>, string]> = [
    ['a username that is not an e-mail', { username: 'bob', password: 'long enough pw' }, '/username'],
    ['a missing username', { password: 'long enough pw' }, '/username'],
    ['a short password', { username: 'x@example.com', password: 'short' }, '/password'],
    ['an unknown role', { username: 'x@example.com', password: 'long enough pw', role: 'root' }, '/role'],
    ['an unknown field', { username: 'x@example.com', password: 'long enough pw', isAdmin: true }, '/isAdmin'],
    ['a field of the wrong type', { username: 'x@example.com', password: 'long enough pw', name: 42 }, '/name'],
  ];
  for (const [what, body, path] of badBodies) {
    test(`${what} → 400 naming ${path}`, async () => {
      const res = await create(admin.auth, body);
      assert.equal(res.statusCode, 400, res.body);
      const problem = res.json();
      assert.equal(problem.code, 'invalid_body');
      assert.ok(
        problem.errors.some((e: { path: string }) => e.path === path),
        JSON.stringify(problem.errors),
      );
    });
  }
});

describe(`GET and PATCH /users/me (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const get = (auth: Record<string, string>) => t.app.inject({ method: 'GET', url: '/users/me', headers: auth });
  const patch = (auth: Record<string, string>, payload: Record<string, unknown>) => t.app.inject({ method: 'PATCH', url: '/users/me', headers: auth, payload });

  test("GET /users/me is the caller's own record, without secrets", async () => {
    const a = await userWithToken(t);
    const b = await userWithToken(t);
    const res = await get(a.auth);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body._id, a.id);
    assert.equal(body.username, a.username);
    assert.deepEqual(body.projects, []);
    assert.deepEqual(body.groups, []);
    assert.ok(body.createdAt && body.updatedAt);
    assert.deepEqual(
      Object.keys(body).filter((k) => /pass|hash|secret|resetToken/i.test(k)),
      [],
    );
    assert.equal((await get(b.auth)).json()._id, b.id);
  });

  test("the record lists the projects and groups the user owns or manages, and no one else's", async () => {
    const a = await userWithToken(t);
    const b = await userWithToken(t);
    const project = await t.app.inject({ method: 'POST', url: '/projects?name=Tower', headers: a.auth });
    assert.equal(project.statusCode, 201, project.body);
    const group = await t.app.inject({ method: 'POST', url: '/groups?name=Portfolio', headers: a.auth });
    assert.equal(group.statusCode, 201, group.body);
    const mine = (await get(a.auth)).json();
    assert.deepEqual(mine.projects, [project.json()._id]);
    assert.deepEqual(mine.groups, [group.json()._id]);
    assert.deepEqual((await login(t.app, a)).body.projects, [project.json()._id]);
    const theirs = (await get(b.auth)).json();
    assert.deepEqual(theirs.projects, []);
    assert.deepEqual(theirs.groups, []);
    // An editor sees it listed too.
    const shared = await t.app.inject({ method: 'PATCH', url: `/project/${project.json()._id}`, headers: a.auth, payload: { editors: [b.id] } });
    assert.equal(shared.statusCode, 200, shared.body);
    assert.deepEqual((await get(b.auth)).json().projects, [project.json()._id]);
    // Sending the record back with its lists unchanged is no change.
    assert.equal((await patch(a.auth, { ...mine, phone: '1' })).statusCode, 200);
    assert.equal((await patch(a.auth, { projects: [] })).statusCode, 400);
  });

  test('names, phone, company, address and preferences change, and stay changed', async () => {
    const a = await userWithToken(t);
    const changes = {
      name: 'Katherine',
      lastName: 'Johnson',
      phone: '+1 555 0199',
      companyName: 'NASA',
      country: 'US',
      address1: '1 Langley Blvd',
      address2: 'Bldg 1244',
      city: 'Hampton',
      region: 'VA',
      zip: '23681',
      preferences: { hideBrandingIcon: true, hideLoadingLogo: false },
    };
    const res = await patch(a.auth, changes);
    assert.equal(res.statusCode, 200, res.body);
    for (const [k, v] of Object.entries(changes)) assert.deepEqual(res.json()[k], v, k);
    const again = (await get(a.auth)).json();
    for (const [k, v] of Object.entries(changes)) assert.deepEqual(again[k], v, k);
    assert.equal(again.fullName, 'Katherine Johnson');
  });

  test('a PATCH changes only the fields it sends', async () => {
    const a = await userWithToken(t);
    await patch(a.auth, { phone: '111', city: 'Paris' });
    const res = await patch(a.auth, { city: 'Lyon' });
    assert.equal(res.json().phone, '111');
    assert.equal(res.json().city, 'Lyon');
  });

  for (const [field, value] of [
    ['role', 'admin'],
    ['username', 'someone-else@example.com'],
    ['paymentsAccountId', 'acct_123'],
    ['paymentsOnboardingDone', true],
    ['subscription', { plan: 'gold' }],
    ['appliedTrial', true],
  ] as const) {
    test(`changing ${field} → 400 naming it, nothing written`, async () => {
      const a = await userWithToken(t);
      const res = await patch(a.auth, { [field]: value, phone: '222' });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'invalid_body');
      assert.ok(
        res.json().errors.some((e: { path: string }) => e.path === `/${field}`),
        res.body,
      );
      const after = (await get(a.auth)).json();
      assert.equal(after.phone, undefined);
      assert.equal(after.role, 'user');
      assert.equal(after.username, a.username);
    });
  }

  test('a fetched record sent back whole (role, username unchanged, server-kept fields) → 200', async () => {
    const a = await userWithToken(t);
    const record = (await get(a.auth)).json();
    const res = await patch(a.auth, { ...record, __v: 0, configuredSecrets: [], phone: '333' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().phone, '333');
    assert.equal(res.json()._id, a.id);
    // The login answer sent back works too.
    const loginBody = (await login(t.app, a)).body;
    assert.equal((await patch({ authorization: `Bearer ${loginBody.access_token}` }, { ...loginBody, city: 'Oslo' })).statusCode, 200);
  });

  test('an unknown field → 400 naming it', async () => {
    const a = await userWithToken(t);
    const res = await patch(a.auth, { favouriteColour: 'blue' });
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().errors.some((e: { path: string }) => e.path === '/favouriteColour'));
  });

  test('password needs currentPassword, and the right one', async () => {
    const a = await userWithToken(t);
    const missing = await patch(a.auth, { password: 'a new password' });
    assert.equal(missing.statusCode, 400);
    assert.ok(missing.json().errors.some((e: { path: string }) => e.path === '/currentPassword'));
    const wrong = await patch(a.auth, { password: 'a new password', currentPassword: 'not it at all' });
    assert.equal(wrong.statusCode, 400);
    assert.ok(wrong.json().errors.some((e: { path: string }) => e.path === '/currentPassword'));
    // Neither attempt changed anything: the old password still logs in, the session lives.
    assert.equal((await get(a.auth)).statusCode, 200);
    await login(t.app, a);
  });

  test('a password change takes effect: the new password logs in, the old one does not', async () => {
    const a = await userWithToken(t);
    const res = await patch(a.auth, { password: 'a new password', currentPassword: a.password });
    assert.equal(res.statusCode, 200, res.body);
    const old = await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: a.username, password: a.password } });
    assert.equal(old.statusCode, 401);
    await login(t.app, { username: a.username, password: 'a new password' });
    assert.equal((await get(a.auth)).statusCode, 401, 'the session that changed it ended too');
  });

  test('a short new password → 400 naming password', async () => {
    const a = await userWithToken(t);
    const res = await patch(a.auth, { password: 'short', currentPassword: a.password });
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().errors.some((e: { path: string }) => e.path === '/password'));
  });

  test('no token → 401', async () => {
    assert.equal((await get({})).statusCode, 401);
    assert.equal((await patch({}, { phone: '1' })).statusCode, 401);
  });
});

describe(`ensureAdmin (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const rows = (username: string) => t.db.kysely.selectFrom('users').select(['id', 'role', 'password_hash']).where('username', '=', username).execute();

  test('creates the ADMIN_EMAIL administrator once; later runs leave it as it is', async () => {
    const username = email('admin');
    const config = testConfig({ ADMIN_EMAIL: username, ADMIN_PASSWORD: 'admin password 1' });
    await ensureAdmin(config, t.db, silent);
    const first = await rows(username);
    assert.equal(first.length, 1);
    assert.equal(first[0]!.role, 'admin');
    const l = await login(t.app, { username, password: 'admin password 1' });
    assert.equal(l.body.role, 'admin');

    // A second start, even with another password, changes nothing.
    await ensureAdmin(testConfig({ ADMIN_EMAIL: username, ADMIN_PASSWORD: 'other password 2' }), t.db, silent);
    assert.deepEqual(await rows(username), first);
  });

  test('several nodes starting at once create exactly one', async () => {
    const username = email('admin');
    const config = testConfig({ ADMIN_EMAIL: username, ADMIN_PASSWORD: 'admin password 1' });
    await Promise.all([1, 2, 3, 4].map(() => ensureAdmin(config, t.db, silent)));
    assert.equal((await rows(username)).length, 1);
  });

  test('an existing user of that name is left alone (not promoted)', async () => {
    const u = await createUser(t.db);
    await ensureAdmin(testConfig({ ADMIN_EMAIL: u.username.toUpperCase(), ADMIN_PASSWORD: 'admin password 1' }), t.db, silent);
    const r = await rows(u.username);
    assert.equal(r.length, 1);
    assert.equal(r[0]!.role, 'user');
  });

  test('without ADMIN_EMAIL nothing is created', async () => {
    const before = await t.db.kysely.selectFrom('users').select(t.db.kysely.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    await ensureAdmin(testConfig(), t.db, silent);
    const after = await t.db.kysely.selectFrom('users').select(t.db.kysely.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });
});

describe('the User record as a versioned record', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('GET and PATCH /users/me carry an ETag; a stale If-Match → 412 and nothing written', async () => {
    const me = await userWithToken(t);
    const got = await t.app.inject({ method: 'GET', url: '/users/me', headers: me.auth });
    const etag = String(got.headers.etag);
    assert.match(etag, /^"\d+"$/);
    const stale = await t.app.inject({ method: 'PATCH', url: '/users/me', headers: { ...me.auth, 'if-match': '"999"' }, payload: { city: 'Lyon' } });
    assert.equal(stale.statusCode, 412);
    assert.equal(stale.json().code, 'precondition_failed');
    assert.equal((await t.app.inject({ method: 'GET', url: '/users/me', headers: me.auth })).json().city, undefined);
    const ok = await t.app.inject({ method: 'PATCH', url: '/users/me', headers: { ...me.auth, 'if-match': etag }, payload: { city: 'Lyon' } });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().city, 'Lyon');
    assert.notEqual(ok.headers.etag, etag);
  });
});

describe(`the owner's worked-out fields on GET /users/me (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());
  const me = async (auth: Record<string, string>) => (await t.app.inject({ method: 'GET', url: '/users/me', headers: auth })).json();

  test('administrators and editors: the other people of the user’s projects in each role; a stranger sees none of them', async () => {
    const owner = await userWithToken(t);
    const [admin, editor, other, stranger] = await Promise.all([userWithToken(t), userWithToken(t), userWithToken(t), userWithToken(t)]);
    const p = await createProject(t.app, owner.auth);
    const q = await createProject(t.app, owner.auth);
    const call = caller(t.app, owner.auth);
    assert.equal((await call('PATCH', `/project/${p._id}`, { administrators: [admin.id], editors: [editor.id] })).statusCode, 200);
    assert.equal((await call('PATCH', `/project/${q._id}`, { editors: [other.id, editor.id] })).statusCode, 200);
    const sorted = (ids: string[]) => [...ids].sort();
    const mine = await me(owner.auth);
    assert.deepEqual(mine.administrators, [admin.id]);
    assert.deepEqual(mine.editors, sorted([editor.id, other.id]));
    // The editor of both sees the administrator and the other editor, never themselves.
    const theirs = await me(editor.auth);
    assert.deepEqual(theirs.administrators, [admin.id]);
    assert.deepEqual(theirs.editors, [other.id]);
    // The editor of q alone shares nothing with the administrator of p.
    assert.deepEqual((await me(other.auth)).administrators, []);
    assert.deepEqual((await me(other.auth)).editors, [editor.id]);
    const none = await me(stranger.auth);
    assert.deepEqual([none.administrators, none.editors, none.invites], [[], [], []]);
  });

  test('invites: the invitations to the user’s address still pending, with their project or group; not once accepted or revoked', async () => {
    const owner = await userWithToken(t);
    const invitee = await userWithToken(t);
    const p = await createProject(t.app, owner.auth, { name: 'Harbour Lofts' });
    const g = await t.app.inject({ method: 'POST', url: '/groups?name=Portfolio', headers: owner.auth });
    const call = caller(t.app, owner.auth);
    const toP = await call('POST', `/projects/${p._id}/invites`, { email: invitee.username.toUpperCase(), firstName: 'Ada', level: 'editor' });
    assert.equal(toP.statusCode, 201, toP.body);
    const toG = await call('POST', `/groups/${g.json()._id}/invites`, { email: invitee.username, level: 'administrator' });
    assert.equal(toG.statusCode, 201, toG.body);
    await call('POST', `/projects/${p._id}/invites`, { email: 'someone-else@example.com', level: 'editor' });
    const listed = (await me(invitee.auth)).invites;
    assert.deepEqual(listed, [
      { ...toP.json(), project: { _id: p._id, name: 'Harbour Lofts' } },
      { ...toG.json(), group: { _id: g.json()._id, name: 'Portfolio' } },
    ]);
    // The inviter's own record lists no invitation of theirs: it is not addressed to them.
    assert.deepEqual((await me(owner.auth)).invites, []);
    assert.equal((await call('DELETE', `/projects/${p._id}/invites/${toP.json()._id}`)).statusCode, 204);
    assert.deepEqual(
      (await me(invitee.auth)).invites.map((i: { _id: string }) => i._id),
      [toG.json()._id],
    );
  });

  test('experimentalFeatures is the user’s own switch; projectNameURL proposes a free namespace from the company, else the name', async () => {
    const a = await userWithToken(t);
    const call = caller(t.app, a.auth);
    assert.equal((await me(a.auth)).experimentalFeatures, undefined);
    const on = await call('PATCH', '/users/me', { experimentalFeatures: true });
    assert.equal(on.statusCode, 200, on.body);
    assert.equal((await me(a.auth)).experimentalFeatures, true);

    const company = `Bay Façade ${randomBytes(3).toString('hex')}`;
    const slug = company.toLowerCase().replace('ç', 'c').replace(/ /g, '-');
    await call('PATCH', '/users/me', { companyName: company, name: 'Ida', lastName: 'Wells' });
    assert.equal((await me(a.auth)).projectNameURL, slug);
    // Taken: the next free one.
    await createProject(t.app, a.auth, { query: { namespace: slug } });
    assert.equal((await me(a.auth)).projectNameURL, `${slug}-2`);
    await createProject(t.app, a.auth, { query: { namespace: `${slug}-2` } });
    assert.equal((await me(a.auth)).projectNameURL, `${slug}-3`);
    // It is worked out, not chosen: another sent back is ignored; without a company, the name's.
    const sent = await call('PATCH', '/users/me', { projectNameURL: 'mine' });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(sent.json().projectNameURL, `${slug}-3`);
    // The PATCH answer already proposes from the new value.
    assert.match((await call('PATCH', '/users/me', { companyName: '' })).json().projectNameURL, /^ida-wells(-\d+)?$/);
    assert.match((await me(a.auth)).projectNameURL, /^ida-wells(-\d+)?$/);
  });
});
