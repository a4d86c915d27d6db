import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { hashToken } from '../src/http/auth.ts';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertInvite } from '../src/modules/invites/invites.repo.ts';
import { buildTestApp, createProject, createUser, freePort, login, slug, useOwnerApp, type OwnerApp } from './helpers.ts';

/**
 * What every answer and every cookie-authenticated change owe a browser: no-store on what a session reads,
 * Retry-After on a 503, a missing Origin judged by Sec-Fetch-Site and Referer, and one lockout for every check of
 * an account's password.
 */
let f: OwnerApp;
useOwnerApp({ env: { LOGIN_MAX_FAILURES: '3' } }, (fixture) => (f = fixture));

describe('Cache-Control: no-store', () => {
  test('on answers to authenticated requests (records, lists, the leads CSV, a 401) and on sign-in answers; not on public reads', async () => {
    const namespace = slug();
    const p = await createProject(f.t.app, f.owner.auth, { query: { namespace } });
    for (const [url, headers] of [
      ['/users/me', {}],
      [`/projects/${p._id}`, {}],
      ['/projects', {}],
      [`/leads?project=${p._id}`, {}],
      [`/leads?project=${p._id}`, { accept: 'text/csv' }],
    ] as const) {
      const res = await f.call('GET', url, undefined, headers);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['cache-control'], 'no-store', url);
    }
    const { token } = await login(f.t.app, f.owner);
    const byCookie = await f.t.app.inject({ method: 'GET', url: '/users/me', headers: { cookie: `service=${token}` } });
    assert.equal(byCookie.headers['cache-control'], 'no-store');
    const unsigned = await f.t.app.inject({ method: 'GET', url: '/projects' });
    assert.equal(unsigned.statusCode, 401);
    assert.equal(unsigned.headers['cache-control'], 'no-store');
    const signIn = await f.t.app.inject({ method: 'POST', url: '/users/login', payload: { username: f.owner.username, password: f.owner.password } });
    assert.equal(signIn.headers['cache-control'], 'no-store');
    const bundle = await f.t.app.inject({ method: 'GET', url: `/public/projects/${namespace}` });
    assert.match(String(bundle.headers['cache-control']), /public/);
  });
});

describe('cookie-authenticated changes without Origin', () => {
  const patch = async (headers: Record<string, string>) => {
    const p = await createProject(f.t.app, f.owner.auth);
    const { token } = await login(f.t.app, f.owner);
    const res = await f.t.app.inject({
      method: 'PATCH',
      url: `/project/${p._id}`,
      headers: { cookie: `service=${token}`, ...headers },
      payload: { address: 'x' },
    });
    return res;
  };

  test('Sec-Fetch-Site: cross-site → 403; same-origin, same-site, none → allowed', async () => {
    const refused = await patch({ 'sec-fetch-site': 'cross-site' });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().code, 'csrf_rejected');
    for (const site of ['same-origin', 'same-site', 'none']) assert.equal((await patch({ 'sec-fetch-site': site })).statusCode, 200, site);
  });

  test('then Referer: another origin (or a bad one) → 403; this host → allowed; neither header (a program) → allowed', async () => {
    for (const referer of ['https://evil.example/page', 'not a url']) {
      const res = await patch({ referer });
      assert.equal(res.statusCode, 403, referer);
      assert.equal(res.json().code, 'csrf_rejected');
    }
    assert.equal((await patch({ 'sec-fetch-site': 'cross-site', referer: 'http://localhost/admin' })).statusCode, 403, 'cross-site decides first');
    assert.equal((await patch({ referer: 'http://localhost/admin/projects' })).statusCode, 200);
    assert.equal((await patch({})).statusCode, 200);
    // A bearer token is not a cookie: no Origin, Referer or Sec-Fetch-Site is asked of it.
    const p = await createProject(f.t.app, f.owner.auth);
    const bearer = await f.call('PATCH', `/project/${p._id}`, { address: 'y' }, { 'sec-fetch-site': 'cross-site', referer: 'https://evil.example/' });
    assert.equal(bearer.statusCode, 200);
  });
});

describe('accepting an invitation as an existing account', () => {
  test("checks that account's password inside the login lockout: the same failures count, and a full counter refuses both", async () => {
    const invitee = await createUser(f.t.db, { username: `invitee-${slug()}@example.com` });
    const p = await createProject(f.t.app, f.owner.auth);
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await insertInvite(f.t.db.kysely, {
      id: newObjectId(now),
      tokenHash: hashToken(token),
      kind: 'project',
      targetId: p._id,
      email: invitee.username,
      level: 'editor',
      invitedBy: f.owner.id,
      createdAt: new Date(now),
      expiresAt: new Date(now + 86_400_000),
    });
    const accept = (password: string) => f.t.app.inject({ method: 'POST', url: `/invites/${token}/accept`, payload: { password } });
    const loginAs = (password: string) => f.t.app.inject({ method: 'POST', url: '/users/login', payload: { username: invitee.username, password } });
    // Three failures (LOGIN_MAX_FAILURES=3), two through the invitation and one through login.
    assert.equal((await accept('wrong one')).statusCode, 401);
    assert.equal((await loginAs('wrong two')).statusCode, 401);
    assert.equal((await accept('wrong three')).statusCode, 401);
    // The counter is full: the right password is refused through either door until the window ends.
    const locked = await accept(invitee.password);
    assert.equal(locked.statusCode, 429);
    assert.ok(Number(locked.headers['retry-after']) > 0);
    assert.equal((await loginAs(invitee.password)).statusCode, 429);
  });
});

describe('503', () => {
  test('carries Retry-After (the rate-limit store unreachable)', async () => {
    const t = await buildTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
    try {
      const user = await createUser(t.db);
      const res = await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: user.username, password: user.password } });
      assert.equal(res.statusCode, 503);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.ok(Number(res.headers['retry-after']) > 0, `Retry-After: ${String(res.headers['retry-after'])}`);
    } finally {
      await t.close();
    }
  });
});
