import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, caller, createProject, createUser, ENGINE, login, openTestDb, TestClock, userWithToken, type TestApp, type TestDb } from './helpers.ts';

/** API tokens: created, listed without the secret, revoked at once on every node, scoped, hashed at rest. */
describe(`API tokens (${ENGINE})`, () => {
  const clock = new TestClock();
  let testDb: TestDb;
  let t: TestApp;
  /** A second node on the same database. */
  let other: TestApp;
  before(async () => {
    testDb = await openTestDb();
    t = await buildTestApp({ testDb, clock });
    other = await buildTestApp({ testDb, clock });
  });
  after(async () => {
    await other.close();
    await t.close();
    await testDb.drop();
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const problemOf = (res: LightMyRequestResponse, status: number, code?: string) => {
    assert.equal(res.statusCode, status, res.body);
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    if (code) assert.equal(res.json().code, code);
  };
  async function newToken(auth: { authorization: string }, body: Record<string, unknown> = { name: 'dashboard', scope: 'write' }) {
    const res = await t.app.inject({ method: 'POST', url: '/users/me/tokens', headers: auth, payload: body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { _id: string; name: string; scope: string; token: string; createdAt: string; expiresAt: string | null; lastUsedAt: string | null };
  }

  test('created with its secret once; listed without it, with lastUsedAt; acts as its user', async () => {
    const u = await userWithToken(t);
    const created = await newToken(u.auth, { name: 'Sales dashboard', scope: 'read', expiresInDays: 30 });
    assert.match(created.token, /^sst_[A-Za-z0-9_-]{43}$/);
    assert.match(created._id, /^[0-9a-f]{24}$/);
    assert.equal(created.name, 'Sales dashboard');
    assert.equal(created.scope, 'read');
    assert.equal(created.createdAt, new Date(clock.now()).toISOString());
    assert.equal(created.expiresAt, new Date(clock.now() + 30 * 86_400_000).toISOString());
    assert.equal(created.lastUsedAt, null);

    const me = await t.app.inject({ method: 'GET', url: '/users/me', headers: bearer(created.token) });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json()._id, u.id);

    const list = await t.app.inject({ method: 'GET', url: '/users/me/tokens', headers: u.auth });
    assert.equal(list.statusCode, 200);
    assert.equal(list.headers['cache-control'], 'no-store');
    assert.ok(!list.body.includes(created.token), 'the secret is never listed');
    const [row, ...rest] = list.json();
    assert.equal(rest.length, 0);
    assert.deepEqual(Object.keys(row).sort(), ['_id', 'createdAt', 'expiresAt', 'lastUsedAt', 'name', 'scope']);
    assert.equal(row.lastUsedAt, new Date(clock.now()).toISOString());
  });

  test('hashed at rest: the table holds the SHA-256 of the secret and nothing of the secret itself', async () => {
    const u = await userWithToken(t);
    const created = await newToken(u.auth);
    const rows = await testDb.db.kysely.selectFrom('api_tokens').selectAll().where('user_id', '=', u.id).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.token_hash, createHash('sha256').update(created.token).digest('base64url'));
    const secretPart = created.token.slice(4);
    assert.ok(!JSON.stringify(rows).includes(secretPart), 'no column holds the secret');
    const audit = await testDb.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'detail'])
      .where('actor_id', '=', u.id)
      .where('action', 'like', 'api_token%')
      .execute();
    assert.deepEqual(
      audit.map((a) => a.action),
      ['api_token_created'],
    );
    assert.ok(!JSON.stringify(audit).includes(secretPart));
  });

  test('the owner revokes; a stranger gets 404 and does not see it', async () => {
    const owner = await userWithToken(t);
    const stranger = await userWithToken(t);
    const created = await newToken(owner.auth);
    problemOf(await t.app.inject({ method: 'DELETE', url: `/users/me/tokens/${created._id}`, headers: stranger.auth }), 404, 'not_found');
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/users/me/tokens', headers: stranger.auth })).json(), []);
    assert.equal((await t.app.inject({ method: 'GET', url: '/users/me', headers: bearer(created.token) })).statusCode, 200, 'still works');

    const del = await t.app.inject({ method: 'DELETE', url: `/users/me/tokens/${created._id}`, headers: owner.auth });
    assert.equal(del.statusCode, 204, del.body);
    problemOf(await t.app.inject({ method: 'GET', url: '/users/me', headers: bearer(created.token) }), 401, 'unauthorized');
    problemOf(await t.app.inject({ method: 'DELETE', url: `/users/me/tokens/${created._id}`, headers: owner.auth }), 404);
    const audit = await testDb.db.kysely
      .selectFrom('audit_log')
      .select('action')
      .where('actor_id', '=', owner.id)
      .where('action', 'like', 'api_token%')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audit.map((a) => a.action),
      ['api_token_created', 'api_token_revoked'],
    );
  });

  test('revoked on one node → 401 at once on the other', async () => {
    const u = await userWithToken(t);
    const created = await newToken(u.auth);
    assert.equal((await other.app.inject({ method: 'GET', url: '/projects', headers: bearer(created.token) })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/users/me/tokens/${created._id}`, headers: u.auth })).statusCode, 204);
    // No clock moved: the other node knows the moment the row is gone.
    problemOf(await other.app.inject({ method: 'GET', url: '/projects', headers: bearer(created.token) }), 401, 'unauthorized');
  });

  test('read scope: GET works, anything that writes is 403 (creates, patches, bulk, imports, uploads, deletes)', async () => {
    const u = await userWithToken(t);
    const project = await createProject(t.app, u.auth);
    const read = await newToken(u.auth, { name: 'reader', scope: 'read' });
    const call = caller(t.app, bearer(read.token));
    assert.equal((await call('GET', '/projects')).statusCode, 200);
    assert.equal((await call('GET', `/project/${project._id}`)).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'HEAD', url: '/projects', headers: bearer(read.token) })).statusCode, 200);
    const writes: [Parameters<typeof call>[0], string, unknown][] = [
      ['POST', '/projects?name=x', undefined],
      ['PATCH', `/project/${project._id}`, { name: 'renamed' }],
      ['DELETE', `/project/${project._id}`, undefined],
      ['PATCH', '/units', []],
      ['POST', `/projects/${project._id}/inventory/import`, { rows: [] }],
      ['POST', '/media', {}],
      ['PATCH', '/users/me', { name: 'x' }],
      ['POST', `/projects/${project._id}/webhooks`, { url: 'https://example.com/hook', events: ['*'] }],
    ];
    for (const [method, url, body] of writes) problemOf(await call(method, url, body), 403, 'forbidden');
    assert.equal((await call('GET', `/project/${project._id}`)).json().name, project.name, 'nothing changed');

    const write = await newToken(u.auth, { name: 'writer', scope: 'write' });
    const res = await caller(t.app, bearer(write.token))('PATCH', `/project/${project._id}`, { name: 'renamed by token' });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('tokens are managed from a session only: a token (even write) cannot make or revoke tokens', async () => {
    const u = await userWithToken(t);
    const write = await newToken(u.auth);
    const call = caller(t.app, bearer(write.token));
    problemOf(await call('POST', '/users/me/tokens', { name: 'child', scope: 'write' }), 403, 'forbidden');
    problemOf(await call('DELETE', `/users/me/tokens/${write._id}`), 403, 'forbidden');
    assert.equal((await call('GET', '/users/me/tokens')).statusCode, 200);
  });

  test('lastUsedAt is written at most once a minute', async () => {
    const u = await userWithToken(t);
    const created = await newToken(u.auth);
    const use = () => t.app.inject({ method: 'GET', url: '/users/me', headers: bearer(created.token) });
    const lastUsed = async () =>
      (await testDb.db.kysely.selectFrom('api_tokens').select('last_used_at').where('id', '=', created._id).executeTakeFirstOrThrow()).last_used_at?.getTime();
    const first = clock.now();
    await use();
    assert.equal(await lastUsed(), first);
    clock.advance(30_000);
    await use();
    assert.equal(await lastUsed(), first, 'not written again within the minute');
    clock.advance(30_000);
    await use();
    assert.equal(await lastUsed(), first + 60_000);
  });

  test('an expired token, a token of a deleted user, a malformed one or one sent as the cookie → 401', async () => {
    const u = await userWithToken(t);
    const short = await newToken(u.auth, { name: 'short', scope: 'read', expiresInDays: 1 });
    const forever = await newToken(u.auth, { name: 'forever', scope: 'read' });
    assert.equal(forever.expiresAt, null);
    const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/users/me', headers });
    assert.equal((await me(bearer(short.token))).statusCode, 200);
    clock.advance(86_400_000 + 1000);
    problemOf(await me(bearer(short.token)), 401);
    assert.equal((await me(bearer(forever.token))).statusCode, 200);

    problemOf(await me(bearer(`${forever.token.slice(0, -1)}${forever.token.endsWith('A') ? 'B' : 'A'}`)), 401);
    problemOf(await me(bearer('sst_short')), 401);
    problemOf(await me({ cookie: `service=${forever.token}` }), 401);

    // Logging out with a token ends no token (only DELETE does), and a token cannot log in as someone else.
    assert.equal((await t.app.inject({ method: 'POST', url: '/users/logout', headers: bearer(forever.token) })).statusCode, 204);
    assert.equal((await me(bearer(forever.token))).statusCode, 200);

    await testDb.db.kysely.deleteFrom('users').where('id', '=', u.id).execute();
    problemOf(await me(bearer(forever.token)), 401);
  });

  test('an admin’s API token cannot impersonate', async () => {
    const admin = await userWithToken(t, { role: 'admin' });
    const target = await createUser(t.db);
    const token = await newToken(admin.auth);
    const res = await t.app.inject({ method: 'POST', url: '/users/login', headers: bearer(token.token), payload: { username: target.username } });
    problemOf(res, 400); // no session behind the header: an ordinary login, which needs the password
  });

  test('bad input names the field; at most 50 tokens a user (→ 409)', async () => {
    const u = await userWithToken(t);
    const post = (payload: unknown) => t.app.inject({ method: 'POST', url: '/users/me/tokens', headers: u.auth, payload: payload as object });
    for (const [payload, path] of [
      [{ scope: 'read' }, '/name'],
      [{ name: '', scope: 'read' }, '/name'],
      [{ name: 'x', scope: 'admin' }, '/scope'],
      [{ name: 'x', scope: 'read', expiresInDays: 0 }, '/expiresInDays'],
      [{ name: 'x', scope: 'read', expiresInDays: 10_000 }, '/expiresInDays'],
    ] as const) {
      const res = await post(payload);
      problemOf(res, 400);
      assert.ok(
        res.json().errors.some((e: { path: string }) => e.path === path),
        `${JSON.stringify(payload)} → ${res.body}`,
      );
    }
    for (let i = 0; i < 50; i++) await newToken(u.auth, { name: `t${i}`, scope: 'read' });
    problemOf(await post({ name: 'one too many', scope: 'read' }), 409, 'conflict');
    const list = (await t.app.inject({ method: 'GET', url: '/users/me/tokens', headers: u.auth })).json();
    assert.equal(list.length, 50);
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/users/me/tokens/${list[0]._id}`, headers: u.auth })).statusCode, 204);
    assert.equal((await post({ name: 'room again', scope: 'read' })).statusCode, 201);
  });

  test('a token authenticates through the other node and a fresh login session alike', async () => {
    const u = await createUser(t.db);
    const session = await login(other.app, u);
    const created = await newToken({ authorization: `Bearer ${session.token}` });
    assert.equal((await other.app.inject({ method: 'GET', url: '/users/me', headers: bearer(created.token) })).json()._id, u.id);
  });
});
