import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as argon2 from '@node-rs/argon2';
import { Redis } from 'ioredis';
import type { LightMyRequestResponse } from 'fastify';
import { Passwords } from '../src/lib/passwords.ts';
import { redisKeyDigest } from '../src/http/counters.ts';
import {
  accessClaims,
  buildTestApp,
  createUser,
  ENGINE,
  jwtClaims,
  login,
  openTestDb,
  signTestJwt,
  TEST_JWT_SECRET,
  TestClock,
  userWithToken,
  type TestApp,
  type TestDb,
} from './helpers.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';

function assertProblem(res: LightMyRequestResponse, status: number, code?: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.equal(body.status, status);
  if (code) assert.equal(body.code, code);
  return body;
}

function assertUnauthorized(res: LightMyRequestResponse) {
  assertProblem(res, 401);
  assert.match(String(res.headers['www-authenticate']), /^Bearer/);
}

const cookieOf = (res: LightMyRequestResponse, name: string) => res.cookies.find((c) => c.name === name);

describe(`login (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/users/me', headers });

  test('JSON body logs in and answers with both shapes of the spec', async () => {
    const u = await createUser(t.db, { profile: { name: 'Ada', lastName: 'Lovelace' } });
    const res = await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: u.username, password: u.password } });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    // The guide's shape.
    assert.equal(body.message, 'Login successful');
    assert.equal(typeof body.access_token, 'string');
    assert.equal(body.access_token.split('.').length, 3);
    // The reference's shape: the User record with `token`.
    assert.equal(body.token, body.access_token);
    assert.equal(body._id, u.id);
    assert.equal(body.username, u.username);
    assert.equal(body.role, 'user');
    assert.equal(body.name, 'Ada');
    assert.equal(body.fullName, 'Ada Lovelace');
    assert.ok(!('password' in body) && !('password_hash' in body) && !('passwordHash' in body));
    const claims = jwtClaims(body.access_token);
    assert.equal(claims.sub, u.id);
    for (const c of ['sid', 'jti', 'iat', 'exp']) assert.ok(claims[c], `claim ${c}`);
    assert.equal(claims.iss, 'showsuite');
    assert.equal(claims.aud, 'showsuite-api');
    assert.equal(claims.exp - claims.iat, 86_400);
    assert.equal((await me({ authorization: `Bearer ${body.access_token}` })).statusCode, 200);
  });

  test('query parameters log in too, and the body wins over them', async () => {
    const u = await createUser(t.db);
    const q = `username=${encodeURIComponent(u.username)}&password=${encodeURIComponent(u.password)}`;
    const byQuery = await t.app.inject({ method: 'POST', url: `/users/login?${q}` });
    assert.equal(byQuery.statusCode, 200, byQuery.body);
    assert.equal(byQuery.json()._id, u.id);

    const bodyWins = await t.app.inject({
      method: 'POST',
      url: `/users/login?username=${encodeURIComponent(u.username)}&password=wrong-password`,
      payload: { password: u.password },
    });
    assert.equal(bodyWins.statusCode, 200, bodyWins.body);

    const bodyWrong = await t.app.inject({ method: 'POST', url: `/users/login?${q}`, payload: { password: 'wrong-password' } });
    assertProblem(bodyWrong, 401, 'invalid_credentials');
  });

  test('cookies: service 1 day, serviceRefresh 7 days on /users, both HttpOnly', async () => {
    const u = await createUser(t.db);
    const res = await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: u.username, password: u.password } });
    const access = cookieOf(res, 'service');
    const refresh = cookieOf(res, 'serviceRefresh');
    assert.ok(access && refresh, 'both cookies set');
    assert.equal(access.value, res.json().access_token);
    assert.equal(access.maxAge, 86_400);
    assert.equal(access.path, '/');
    assert.equal(access.httpOnly, true);
    assert.equal(access.sameSite, 'Lax');
    assert.equal(access.secure, undefined, 'not Secure with COOKIE_SECURE unset');
    assert.equal(refresh.maxAge, 604_800);
    assert.equal(refresh.path, '/users');
    assert.equal(refresh.httpOnly, true);
    assert.equal(refresh.sameSite, 'Strict');
    assert.ok(refresh.value.length >= 32);
  });

  test('role integration: a 90-day service cookie and token, no refresh cookie', async () => {
    const u = await createUser(t.db, { role: 'integration' });
    const res = await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: u.username, password: u.password } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(cookieOf(res, 'service')?.maxAge, 7_776_000);
    assert.equal(cookieOf(res, 'serviceRefresh'), undefined);
    const claims = jwtClaims(res.json().access_token);
    assert.equal(claims.exp - claims.iat, 7_776_000);
    assert.equal((await me({ authorization: `Bearer ${res.json().access_token}` })).statusCode, 200);
  });

  test('a username that is not an e-mail address → 400 naming it, in the body and in the query', async () => {
    const body = assertProblem(await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: 'not-an-email', password: 'x' } }), 400);
    assert.ok(
      body.errors.some((e: { path: string }) => e.path === '/username'),
      JSON.stringify(body),
    );
    const query = assertProblem(await t.app.inject({ method: 'POST', url: '/users/login?username=not-an-email&password=x' }), 400);
    assert.ok(
      query.errors.some((e: { path: string }) => e.path === '/username'),
      JSON.stringify(query),
    );
    const missing = assertProblem(await t.app.inject({ method: 'POST', url: '/users/login', payload: { password: 'x' } }), 400);
    assert.ok(missing.errors.some((e: { path: string }) => e.path === '/username'));
  });

  test('unknown user and wrong password give the same 401, and both verify a hash', async () => {
    const u = await createUser(t.db);
    const verified: Array<string | undefined> = [];
    const original = Passwords.prototype.verify;
    Passwords.prototype.verify = function (this: Passwords, storedHash, password) {
      verified.push(storedHash);
      return original.call(this, storedHash, password);
    };
    let wrong: LightMyRequestResponse;
    let unknown: LightMyRequestResponse;
    try {
      wrong = await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: u.username, password: 'wrong password' } });
      unknown = await t.app.inject({
        method: 'POST',
        url: '/users/login',
        payload: { username: `nobody-${randomBytes(4).toString('hex')}@example.com`, password: 'wrong password' },
      });
    } finally {
      Passwords.prototype.verify = original;
    }
    assertProblem(wrong, 401, 'invalid_credentials');
    assert.equal(unknown.statusCode, wrong.statusCode);
    assert.equal(unknown.body, wrong.body);
    const comparable = (r: LightMyRequestResponse) => {
      const h = { ...r.headers };
      for (const k of ['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset']) delete h[k];
      return h;
    };
    assert.deepEqual(comparable(unknown), comparable(wrong));
    // The unknown user's request verified against a (dummy) hash too, not a shortcut.
    assert.equal(verified.length, 2);
    assert.equal(typeof verified[0], 'string');
    assert.equal(verified[1], undefined);
  });

  test('Passwords.verify without a stored hash still runs argon2 verify, against an argon2id dummy', async () => {
    const calls: string[] = [];
    const passwords = new Passwords(
      { memoryCost: 1024, timeCost: 1, parallelism: 1 },
      {
        hash: (p, o) => argon2.hash(p, o),
        verify: (h, p) => {
          calls.push(h);
          return argon2.verify(h, p);
        },
      },
    );
    assert.equal(await passwords.verify(undefined, 'anything'), false);
    assert.equal(calls.length, 1);
    assert.match(calls[0]!, /^\$argon2id\$/);
    const stored = await passwords.hash('s3cret-password');
    assert.equal(await passwords.verify(stored, 's3cret-password'), true);
    assert.equal(await passwords.verify(stored, 'other'), false);
    assert.equal(calls.length, 3);
  });

  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'] as const) {
    test(`${method} /users/login → 405 with Allow: POST`, async () => {
      const res = await t.app.inject({ method, url: '/users/login' });
      assertProblem(res, 405, 'method_not_allowed');
      assert.equal(res.headers.allow, 'POST');
    });
  }

  test('impersonation: an admin token naming another user (no password) logs in as that user, audited', async () => {
    const admin = await userWithToken(t, { role: 'admin' });
    const b = await createUser(t.db);
    const res = await t.app.inject({ method: 'POST', url: '/users/login', headers: admin.auth, payload: { username: b.username } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json()._id, b.id);
    assert.equal(jwtClaims(res.json().access_token).sub, b.id);
    const meRes = await me({ authorization: `Bearer ${res.json().access_token}` });
    assert.equal(meRes.json()._id, b.id);
    const audit = await t.db.kysely.selectFrom('audit_log').select(['actor_id', 'action']).where('subject_id', '=', b.id).execute();
    assert.deepEqual(audit, [{ actor_id: admin.id, action: 'impersonate' }]);
    const session = await t.db.kysely
      .selectFrom('sessions')
      .select(['user_id', 'impersonator_id'])
      .where('id', '=', jwtClaims(res.json().access_token).sid)
      .executeTakeFirstOrThrow();
    assert.deepEqual(session, { user_id: b.id, impersonator_id: admin.id });
  });

  test('impersonation by a non-admin → 403, even with the correct password', async () => {
    const a = await userWithToken(t);
    const b = await createUser(t.db);
    const res = await t.app.inject({ method: 'POST', url: '/users/login', headers: a.auth, payload: { username: b.username, password: b.password } });
    assertProblem(res, 403, 'forbidden');
    assert.equal(cookieOf(res, 'service'), undefined);
    const noPassword = await t.app.inject({ method: 'POST', url: '/users/login', headers: a.auth, payload: { username: b.username } });
    assertProblem(noPassword, 403, 'forbidden');
    const audit = await t.db.kysely.selectFrom('audit_log').select('id').where('subject_id', '=', b.id).execute();
    assert.equal(audit.length, 0);
  });
});

describe(`sessions: refresh, logout, password change (${ENGINE})`, () => {
  let testDb: TestDb;
  let t: TestApp;
  before(async () => {
    testDb = await openTestDb();
    t = await buildTestApp({ testDb });
  });
  after(async () => {
    await t.close();
    await testDb.drop();
  });

  const me = (app: TestApp, token: string) => app.app.inject({ method: 'GET', url: '/users/me', headers: { authorization: `Bearer ${token}` } });
  const refresh = (app: TestApp, token: string, via: 'cookie' | 'body' = 'cookie') =>
    app.app.inject({
      method: 'POST',
      url: '/users/refresh',
      ...(via === 'cookie' ? { cookies: { serviceRefresh: token } } : { payload: { refresh_token: token } }),
    });

  test('refresh rotates: a new access token and a new refresh token, by cookie or body', async () => {
    const u = await createUser(t.db);
    const first = await login(t.app, u);
    const r1 = await refresh(t, first.refreshToken!);
    assert.equal(r1.statusCode, 200, r1.body);
    const b1 = r1.json();
    assert.notEqual(b1.refresh_token, first.refreshToken);
    assert.equal(b1.token, b1.access_token);
    assert.equal(cookieOf(r1, 'serviceRefresh')?.value, b1.refresh_token);
    assert.equal(cookieOf(r1, 'serviceRefresh')?.maxAge, 604_800);
    assert.equal(cookieOf(r1, 'service')?.value, b1.access_token);
    assert.equal(jwtClaims(b1.access_token).sid, jwtClaims(first.token).sid, 'same session, same family');
    assert.equal((await me(t, b1.access_token)).statusCode, 200);
    const r2 = await refresh(t, b1.refresh_token, 'body');
    assert.equal(r2.statusCode, 200, r2.body);
    assert.notEqual(r2.json().refresh_token, b1.refresh_token);
  });

  test('an unknown refresh token, or none → 401', async () => {
    assertUnauthorized(await refresh(t, 'not-a-real-token'));
    assertUnauthorized(await t.app.inject({ method: 'POST', url: '/users/refresh' }));
  });

  test('reusing a refresh token revokes the whole family, on every node after its session cache', async () => {
    const clock = new TestClock();
    // A second node on the same database, with its own session cache.
    const other = await buildTestApp({ testDb, clock });
    try {
      const u = await createUser(t.db);
      const first = await login(t.app, u);
      const r1 = (await refresh(t, first.refreshToken!)).json();
      const r2 = (await refresh(t, r1.refresh_token)).json();
      assert.equal((await me(other, r2.access_token)).statusCode, 200, 'the other node has checked and cached the session');

      assertUnauthorized(await refresh(t, first.refreshToken!)); // reuse of the oldest
      assertUnauthorized(await refresh(t, r2.refresh_token)); // the newest is dead too
      assertUnauthorized(await me(t, r2.access_token)); // this node knows at once
      assertUnauthorized(await me(t, first.token));
      clock.advance((t.config.limits.sessionCacheSec + 1) * 1000);
      assertUnauthorized(await me(other, r2.access_token)); // the other node once its cache expires
      const session = await t.db.kysely.selectFrom('sessions').select('revoked_at').where('id', '=', jwtClaims(first.token).sid).executeTakeFirstOrThrow();
      assert.ok(session.revoked_at);
    } finally {
      await other.close();
    }
  });

  test('a reuse ends only its own family: another login of the same user lives on', async () => {
    const u = await createUser(t.db);
    const a = await login(t.app, u);
    const b = await login(t.app, u);
    await refresh(t, a.refreshToken!);
    assertUnauthorized(await refresh(t, a.refreshToken!));
    assert.equal((await me(t, b.token)).statusCode, 200);
    assert.equal((await refresh(t, b.refreshToken!)).statusCode, 200);
  });

  test('integration users cannot refresh (no refresh token)', async () => {
    const u = await createUser(t.db, { role: 'integration' });
    const l = await login(t.app, u);
    assert.equal(l.refreshToken, undefined);
    assertUnauthorized(await t.app.inject({ method: 'POST', url: '/users/refresh' }));
  });

  test('logout → 204, clears both cookies, ends access and refresh tokens', async () => {
    const u = await createUser(t.db);
    const l = await login(t.app, u);
    const res = await t.app.inject({
      method: 'POST',
      url: '/users/logout',
      headers: { authorization: `Bearer ${l.token}` },
      cookies: { serviceRefresh: l.refreshToken! },
    });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    for (const name of ['service', 'serviceRefresh']) {
      const c = cookieOf(res, name);
      assert.ok(c, `${name} cleared`);
      assert.equal(c.value, '');
      assert.ok(c.maxAge === 0 || (c.expires instanceof Date && c.expires.getTime() <= Date.now()), `${name} expired`);
    }
    assert.equal(cookieOf(res, 'serviceRefresh')?.path, '/users');
    assertUnauthorized(await me(t, l.token));
    assertUnauthorized(await refresh(t, l.refreshToken!));
  });

  test('logout by the cookie alone ends the session too', async () => {
    const u = await createUser(t.db);
    const l = await login(t.app, u);
    const res = await t.app.inject({ method: 'POST', url: '/users/logout', cookies: { service: l.token } });
    assert.equal(res.statusCode, 204);
    assertUnauthorized(await me(t, l.token));
    assertUnauthorized(await refresh(t, l.refreshToken!));
  });

  test('a password change ends every session of the user', async () => {
    const u = await createUser(t.db);
    const a = await login(t.app, u);
    const b = await login(t.app, u);
    const stranger = await userWithToken(t);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/users/me',
      headers: { authorization: `Bearer ${a.token}` },
      payload: { currentPassword: u.password, password: 'a brand new password' },
    });
    assert.equal(res.statusCode, 200, res.body);
    for (const token of [a.token, b.token]) assertUnauthorized(await me(t, token));
    for (const rt of [a.refreshToken!, b.refreshToken!]) assertUnauthorized(await refresh(t, rt));
    assert.equal((await me(t, stranger.token)).statusCode, 200, "another user's session is untouched");
    const relogin = await login(t.app, { username: u.username, password: 'a brand new password' });
    assert.equal((await me(t, relogin.token)).statusCode, 200);
  });
});

describe(`access tokens (${ENGINE})`, () => {
  let t: TestApp;
  let user: Awaited<ReturnType<typeof userWithToken>>;
  let sid: string;
  before(async () => {
    t = await buildTestApp();
    user = await userWithToken(t);
    sid = jwtClaims(user.token).sid;
  });
  after(() => t.close());

  const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/users/me', headers });
  const bearer = (token: string) => me({ authorization: `Bearer ${token}` });

  test('a token signed by hand with the right claims is accepted (the control for the cases below)', async () => {
    const res = await bearer(signTestJwt(accessClaims(user.id, sid)));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json()._id, user.id);
  });

  test('no credentials → 401 with WWW-Authenticate: Bearer', async () => {
    assertUnauthorized(await me({}));
    assertUnauthorized(await me({ authorization: 'Basic dXNlcjpwYXNz' }));
    assertUnauthorized(await me({ authorization: 'Bearer' }));
  });

  const bad: Array<[string, () => string]> = [
    [
      'a tampered signature',
      () => {
        const good = signTestJwt(accessClaims(user.id, sid));
        const [h, p, s] = good.split('.');
        return `${h}.${p}.${s!.slice(0, -2)}${s!.endsWith('AA') ? 'BB' : 'AA'}`;
      },
    ],
    [
      'a tampered payload',
      () => {
        const good = signTestJwt(accessClaims(user.id, sid));
        const [h, , s] = good.split('.');
        const other = Buffer.from(JSON.stringify({ ...accessClaims(user.id, sid), role: 'admin' })).toString('base64url');
        return `${h}.${other}.${s}`;
      },
    ],
    ['alg none', () => signTestJwt(accessClaims(user.id, sid), { alg: 'none' })],
    ['alg HS512 with the right secret', () => signTestJwt(accessClaims(user.id, sid), { alg: 'HS512' })],
    ['alg HS384 with the right secret', () => signTestJwt(accessClaims(user.id, sid), { alg: 'HS384' })],
    ['another secret', () => signTestJwt(accessClaims(user.id, sid), { secret: `${TEST_JWT_SECRET}-other` })],
    ['a wrong issuer', () => signTestJwt({ ...accessClaims(user.id, sid), iss: 'someone-else' })],
    ['a wrong audience', () => signTestJwt({ ...accessClaims(user.id, sid), aud: 'another-api' })],
    [
      'no issuer or audience',
      () => {
        const { iss: _i, aud: _a, ...rest } = accessClaims(user.id, sid);
        return signTestJwt(rest);
      },
    ],
    ['an expired token', () => signTestJwt(accessClaims(user.id, sid, Date.now() - 7_200_000, 3600))],
    [
      'no exp',
      () => {
        const { exp: _e, ...rest } = accessClaims(user.id, sid);
        return signTestJwt(rest);
      },
    ],
    ['a session that does not exist', () => signTestJwt(accessClaims(user.id, 'aaaaaaaaaaaaaaaaaaaaaaaa'))],
    ['a session of another user', () => signTestJwt(accessClaims('bbbbbbbbbbbbbbbbbbbbbbbb', sid))],
    ['garbage', () => 'not.a.jwt'],
  ];
  for (const [name, make] of bad) {
    test(`${name} → 401 with WWW-Authenticate`, async () => {
      const token = make();
      assertUnauthorized(await bearer(token));
      assertUnauthorized(await me({ cookie: `service=${token}` }));
    });
  }

  test('an expired token is rejected by the clock the app runs on', async () => {
    const clock = new TestClock();
    const other = await buildTestApp({ clock });
    try {
      const u = await userWithToken(other);
      assert.equal((await other.app.inject({ method: 'GET', url: '/users/me', headers: u.auth })).statusCode, 200);
      clock.advance(86_400_000 + 1000);
      assertUnauthorized(await other.app.inject({ method: 'GET', url: '/users/me', headers: u.auth }));
    } finally {
      await other.close();
    }
  });

  test('the service cookie authenticates GET /users/me', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/users/me', cookies: { service: user.token } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json()._id, user.id);
  });

  test('the bearer header wins over the cookie', async () => {
    const other = await userWithToken(t);
    const res = await t.app.inject({ method: 'GET', url: '/users/me', headers: other.auth, cookies: { service: user.token } });
    assert.equal(res.json()._id, other.id);
  });
});

describe(`cross-site request forgery (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { CORS_ORIGINS: 'https://app.example,https://admin.example' } });
  });
  after(() => t.close());

  const patch = (headers: Record<string, string>, cookies?: Record<string, string>) =>
    t.app.inject({ method: 'PATCH', url: '/users/me', headers, payload: { phone: '+1 555 0100' }, ...(cookies ? { cookies } : {}) });

  test('cookie alone from a foreign Origin → 403 csrf_rejected, nothing written', async () => {
    const u = await userWithToken(t);
    const res = await patch({ origin: 'https://evil.example' }, { service: u.token });
    assertProblem(res, 403, 'csrf_rejected');
    const row = await t.db.kysely.selectFrom('users').select('profile').where('id', '=', u.id).executeTakeFirstOrThrow();
    assert.equal((row.profile as Record<string, unknown>).phone, undefined);
  });

  test('cookie from an Origin in CORS_ORIGINS → 200', async () => {
    const u = await userWithToken(t);
    const res = await patch({ origin: 'https://admin.example' }, { service: u.token });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().phone, '+1 555 0100');
    assert.equal(res.headers['access-control-allow-origin'], 'https://admin.example');
    assert.equal(res.headers['access-control-allow-credentials'], 'true');
  });

  test('cookie with no Origin (same-site or non-browser client) → 200', async () => {
    const u = await userWithToken(t);
    assert.equal((await patch({}, { service: u.token })).statusCode, 200);
  });

  test('a bearer header from a foreign Origin → 200 (a header cannot be forged cross-site)', async () => {
    const u = await userWithToken(t);
    const res = await patch({ origin: 'https://evil.example', ...u.auth });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });

  test('reads with the cookie from a foreign Origin are not blocked (GET is not state-changing)', async () => {
    const u = await userWithToken(t);
    const res = await t.app.inject({ method: 'GET', url: '/users/me', headers: { origin: 'https://evil.example' }, cookies: { service: u.token } });
    assert.equal(res.statusCode, 200);
  });

  test('logout by cookie from a foreign Origin → 403', async () => {
    const u = await userWithToken(t);
    const res = await t.app.inject({ method: 'POST', url: '/users/logout', headers: { origin: 'https://evil.example' }, cookies: { service: u.token } });
    assertProblem(res, 403, 'csrf_rejected');
    assert.equal((await t.app.inject({ method: 'GET', url: '/users/me', headers: u.auth })).statusCode, 200);
  });
});

describe(`login rate limits (${ENGINE})`, () => {
  const attempt = (t: TestApp, username: string, password: string) => t.app.inject({ method: 'POST', url: '/users/login', payload: { username, password } });

  test('10 failures for one username from one address, then every attempt (even correct) → 429 with Retry-After', async () => {
    const t = await buildTestApp();
    try {
      const u = await createUser(t.db);
      for (let i = 0; i < 10; i++) assertProblem(await attempt(t, u.username, 'wrong password'), 401, 'invalid_credentials');
      const locked = await attempt(t, u.username, u.password);
      assertProblem(locked, 429, 'rate_limited');
      const retry = Number(locked.headers['retry-after']);
      assert.ok(Number.isInteger(retry) && retry > 0 && retry <= 900, `Retry-After ${locked.headers['retry-after']}`);
      // Another username from the same address is not locked.
      const other = await createUser(t.db);
      assert.equal((await attempt(t, other.username, other.password)).statusCode, 200);
    } finally {
      await t.close();
    }
  });

  test('the lockout ends with its window (LOGIN_FAILURE_WINDOW_SEC), and a success clears the count', async () => {
    const clock = new TestClock();
    const t = await buildTestApp({ clock, env: { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW_SEC: '60' } });
    try {
      const u = await createUser(t.db);
      for (let i = 0; i < 2; i++) assertProblem(await attempt(t, u.username, 'wrong password'), 401);
      assert.equal((await attempt(t, u.username, u.password)).statusCode, 200, 'a success before the limit clears the count');
      for (let i = 0; i < 3; i++) assertProblem(await attempt(t, u.username, 'wrong password'), 401);
      const locked = assertProblem(await attempt(t, u.username, u.password), 429);
      assert.equal(locked.code, 'rate_limited');
      clock.advance(61_000);
      assert.equal((await attempt(t, u.username, u.password)).statusCode, 200);
    } finally {
      await t.close();
    }
  });

  test('past LOGIN_RATE_PER_MINUTE attempts from one address → 429 with Retry-After', async () => {
    const t = await buildTestApp({ env: { LOGIN_RATE_PER_MINUTE: '3' } });
    try {
      const u = await createUser(t.db);
      for (let i = 0; i < 3; i++) assert.equal((await attempt(t, u.username, u.password)).statusCode, 200);
      const res = await attempt(t, u.username, u.password);
      assertProblem(res, 429, 'rate_limited');
      assert.ok(Number(res.headers['retry-after']) > 0, `Retry-After ${res.headers['retry-after']}`);
      // Another address is not limited.
      const elsewhere = await t.app.inject({
        method: 'POST',
        url: '/users/login',
        remoteAddress: '10.1.2.3',
        payload: { username: u.username, password: u.password },
      });
      assert.equal(elsewhere.statusCode, 200);
    } finally {
      await t.close();
    }
  });

  test('with REDIS_URL the failure lockout lives in Redis under REDIS_PREFIX, keyed by digests, shared by every node', async () => {
    // Every node of a deployment has the same SECRET_KEY (the key check holds them to it), so the same digests.
    const secretKey = randomBytes(32);
    const prefix = `test-${randomBytes(4).toString('hex')}:`;
    const env = { REDIS_URL, LOGIN_RATE_PER_MINUTE: '100000', SECRET_KEY: secretKey.toString('hex'), REDIS_PREFIX: prefix };
    const testDb = await openTestDb();
    const nodeA = await buildTestApp({ env, testDb });
    const nodeB = await buildTestApp({ env, testDb });
    const redis = new Redis(REDIS_URL);
    try {
      const u = await createUser(testDb.db, { username: `redis-${randomBytes(6).toString('hex')}@example.com` });
      for (let i = 0; i < 10; i++) assertProblem(await attempt(i % 2 ? nodeA : nodeB, u.username, 'wrong password'), 401);
      const key = `${prefix}rl:${redisKeyDigest(secretKey)(`login-fail:127.0.0.1:${u.username}`)}`;
      assert.equal(await redis.get(key), '10');
      assert.ok((await redis.pttl(key)) > 0);
      // No key of this service names the address or the e-mail, and every one is under the prefix.
      const keys = await redis.keys(`${prefix}*`);
      assert.ok(keys.length >= 2, keys.join(', ')); // the lockout and the per-route limit of the login route
      for (const k of keys) assert.doesNotMatch(k, /127\.0\.0\.1|@|redis-/, k);
      assert.deepEqual(await redis.keys(`*${u.username}*`), []);
      for (const node of [nodeA, nodeB]) {
        const res = await attempt(node, u.username, u.password);
        assertProblem(res, 429, 'rate_limited');
        assert.ok(Number(res.headers['retry-after']) > 0);
      }
      await redis.del(key);
      assert.equal((await attempt(nodeB, u.username, u.password)).statusCode, 200);
    } finally {
      const left = await redis.keys(`${prefix}*`);
      if (left.length) await redis.del(...left);
      redis.disconnect();
      await nodeA.close();
      await nodeB.close();
      await testDb.drop();
    }
  });

  test('with Redis unreachable, login answers 503 problem+json (not 500), and other routes work', async () => {
    const net = await import('node:net');
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as import('node:net').AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const t = await buildTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    try {
      const u = await userWithToken(t).catch((e: Error) => e);
      assert.ok(u instanceof Error && /503/.test(u.message), String(u));
      const res = await attempt(t, 'someone@example.com', 'whatever');
      assertProblem(res, 503, 'rate_limit_unavailable');
      assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    } finally {
      await t.close();
    }
  });
});
