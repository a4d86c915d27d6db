import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.ts';
import { problemFromDatabaseError } from '../src/db/pg-errors.ts';
import { ERROR_CODES } from '../src/http/errors.ts';
import { createUser, ENGINE, openTestDb, testConfig, userWithToken, type TestApp, type TestDb } from './helpers.ts';

const PROBLEM_KEYS = ['type', 'title', 'status', 'detail', 'code'];

function assertProblem(res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  for (const k of PROBLEM_KEYS) assert.ok(k in body, `problem has ${k}: ${res.body}`);
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.title, ERROR_CODES[code as keyof typeof ERROR_CODES]);
  assert.equal(typeof body.type, 'string');
  assert.ok(!/\bat \S+ \(|node_modules|\/src\//.test(res.body), `no stack or paths: ${res.body}`);
  return body;
}

describe(`problem details for every error (${ENGINE})`, () => {
  let testDb: TestDb;
  let app: FastifyInstance;
  let t: TestApp;
  let logged = '';
  before(async () => {
    testDb = await openTestDb();
    const config = testConfig({ LOG_LEVEL: 'error' });
    const stream = new Writable({
      write(chunk, _enc, done) {
        logged += chunk.toString();
        done();
      },
    });
    app = await buildApp({ config, db: testDb.db, logger: { level: 'error', stream } });
    // Routes added before ready inherit the app's error handler, as every real route does.
    app.get('/test/boom', { schema: { hide: true } }, async () => {
      throw new Error('secret internal detail: password=hunter2 at /srv/app/src/thing.ts');
    });
    app.get('/test/sql', { schema: { hide: true } }, async () => {
      throw Object.assign(new Error('duplicate key value violates unique constraint "users_username_key"'), { code: '23505' });
    });
    await app.ready();
    t = { app, db: testDb.db, config, close: () => app.close() };
  });
  after(async () => {
    await app.close();
    await testDb.drop();
  });

  test('unknown route → 404 not_found', async () => {
    const res = await app.inject({ method: 'GET', url: '/no/such/route?x=1' });
    const body = assertProblem(res, 404, 'not_found');
    assert.ok(!body.detail.includes('x=1'));
    assertProblem(await app.inject({ method: 'POST', url: '/nothing-here', payload: {} }), 404, 'not_found');
  });

  test('known path, other method → 405 with Allow', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/users/me' });
    assertProblem(res, 405, 'method_not_allowed');
    assert.deepEqual(String(res.headers.allow).split(', ').sort(), ['GET', 'HEAD', 'PATCH']);
  });

  test('HEAD on a POST-only path → 405 with Allow: POST', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/users/login' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'POST');
  });

  test('invalid body → 400 invalid_body with one errors[] entry per bad field, JSON-pointer paths', async () => {
    const admin = await userWithToken(t, { role: 'admin' });
    const res = await app.inject({ method: 'POST', url: '/users', headers: admin.auth, payload: { username: 'nope', password: 1, extra: true } });
    const body = assertProblem(res, 400, 'invalid_body');
    const paths = body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ['/extra', '/password', '/username']);
    for (const e of body.errors) assert.equal(typeof e.message, 'string');
  });

  test('nested bad field → its full path', async () => {
    const u = await userWithToken(t);
    const res = await app.inject({ method: 'PATCH', url: '/users/me', headers: u.auth, payload: { preferences: { hideLoadingLogo: 'yes' } } });
    const body = assertProblem(res, 400, 'invalid_body');
    assert.deepEqual(
      body.errors.map((e: { path: string }) => e.path),
      ['/preferences/hideLoadingLogo'],
    );
  });

  test('invalid query → 400 invalid_query with errors[].path', async () => {
    const res = await app.inject({ method: 'POST', url: '/users/login?username=not-an-email&password=x' });
    const body = assertProblem(res, 400, 'invalid_query');
    assert.deepEqual(
      body.errors.map((e: { path: string }) => e.path),
      ['/username'],
    );
  });

  test('malformed JSON → 400 invalid_json', async () => {
    const res = await app.inject({ method: 'POST', url: '/users/login', headers: { 'content-type': 'application/json' }, payload: '{"username": ' });
    assertProblem(res, 400, 'invalid_json');
  });

  test('a body over 1 MiB → 413 payload_too_large', async () => {
    const big = JSON.stringify({ username: 'a@example.com', password: 'x'.repeat(1024 * 1024) });
    const res = await app.inject({ method: 'POST', url: '/users/login', headers: { 'content-type': 'application/json' }, payload: big });
    assertProblem(res, 413, 'payload_too_large');
  });

  test('a body just under 1 MiB is read (and then validated)', async () => {
    const body = JSON.stringify({ username: 'a@example.com', password: 'x'.repeat(1000 * 1000) });
    assert.ok(Buffer.byteLength(body) < 1024 * 1024);
    const res = await app.inject({ method: 'POST', url: '/users/login', headers: { 'content-type': 'application/json' }, payload: body });
    assertProblem(res, 400, 'invalid_body'); // password longer than 1024: validation, not 413
  });

  test('text/plain and other media types → 415 unsupported_media_type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await app.inject({ method: 'POST', url: '/users/login', headers: { 'content-type': type }, payload: 'username=a@example.com' });
      assertProblem(res, 415, 'unsupported_media_type');
    }
  });

  test('401 → unauthorized problem with WWW-Authenticate', async () => {
    const res = await app.inject({ method: 'GET', url: '/users/me' });
    assertProblem(res, 401, 'unauthorized');
    assert.match(String(res.headers['www-authenticate']), /^Bearer/);
  });

  test('wrong credentials → 401 invalid_credentials', async () => {
    const res = await app.inject({ method: 'POST', url: '/users/login', payload: { username: 'nobody@example.com', password: 'x' } });
    assertProblem(res, 401, 'invalid_credentials');
  });

  test('403 → forbidden problem', async () => {
    const u = await userWithToken(t);
    assertProblem(
      await app.inject({ method: 'POST', url: '/users', headers: u.auth, payload: { username: 'x@example.com', password: 'long enough pw' } }),
      403,
      'forbidden',
    );
  });

  test('a unique violation → 409 conflict, through the SQLSTATE map', async () => {
    const admin = await userWithToken(t, { role: 'admin' });
    const existing = await createUser(t.db);
    const res = await app.inject({ method: 'POST', url: '/users', headers: admin.auth, payload: { username: existing.username, password: 'long enough pw' } });
    const body = assertProblem(res, 409, 'conflict');
    assert.ok(!body.detail.includes('users_username_key'), 'no constraint names');
    const raw = assertProblem(await app.inject({ method: 'GET', url: '/test/sql' }), 409, 'conflict');
    assert.ok(!JSON.stringify(raw).includes('users_username_key'));
  });

  test('429 → rate_limited problem with Retry-After', async () => {
    const limited = await buildApp({ config: testConfig({ LOGIN_RATE_PER_MINUTE: '1' }), db: testDb.db, logger: false });
    try {
      await limited.inject({ method: 'POST', url: '/users/login', payload: { username: 'a@example.com', password: 'x' } });
      const res = await limited.inject({ method: 'POST', url: '/users/login', payload: { username: 'a@example.com', password: 'x' } });
      assertProblem(res, 429, 'rate_limited');
      assert.ok(Number(res.headers['retry-after']) > 0);
    } finally {
      await limited.close();
    }
  });

  test('an unexpected error → 500 with only a request id; the log has the rest', async () => {
    logged = '';
    const res = await app.inject({ method: 'GET', url: '/test/boom', headers: { 'x-request-id': 'trace-500-abc' } });
    const body = assertProblem(res, 500, 'internal');
    assert.equal(body.requestId, 'trace-500-abc');
    assert.equal(res.headers['x-request-id'], 'trace-500-abc');
    assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'requestId', 'status', 'title', 'type']);
    assert.ok(!res.body.includes('hunter2') && !res.body.includes('secret internal') && !res.body.includes('thing.ts'), res.body);
    assert.match(logged, /trace-500-abc/);
    assert.match(logged, /secret internal detail/);
    assert.match(logged, /"stack"/);
  });

  test('X-Request-Id: a valid one is echoed, an invalid or missing one replaced by a fresh id', async () => {
    const echoed = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123.DEF:456_x' } });
    assert.equal(echoed.headers['x-request-id'], 'abc-123.DEF:456_x');
    for (const bad of ['has spaces in it', 'x'.repeat(129), 'inject<script>']) {
      const res = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': bad } });
      assert.notEqual(res.headers['x-request-id'], bad);
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    }
    const a = await app.inject({ method: 'GET', url: '/health' });
    const b = await app.inject({ method: 'GET', url: '/no/such' });
    assert.match(String(a.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.match(String(b.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });

  test('security headers on answers and on errors', async () => {
    for (const res of [await app.inject({ method: 'GET', url: '/health' }), await app.inject({ method: 'GET', url: '/no/such' })]) {
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
      assert.ok(res.headers['content-security-policy'], 'CSP');
      assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(res.headers['x-powered-by'], undefined);
    }
  });

  test('HSTS only when cookies are Secure (served over TLS)', async () => {
    assert.equal((await app.inject({ method: 'GET', url: '/health' })).headers['strict-transport-security'], undefined);
    const secure = await buildApp({ config: testConfig({ COOKIE_SECURE: 'true' }), db: testDb.db, logger: false });
    try {
      const res = await secure.inject({ method: 'GET', url: '/health' });
      assert.match(String(res.headers['strict-transport-security']), /max-age=31536000/);
    } finally {
      await secure.close();
    }
  });
});

describe('SQLSTATE map (src/db/pg-errors.ts)', () => {
  const cases: Array<[Record<string, string>, number | undefined, string | undefined]> = [
    [{ code: '23505' }, 409, 'conflict'],
    [{ code: '40001' }, 409, 'conflict'],
    [{ code: '40P01' }, 409, 'conflict'],
    [{ code: '22P02' }, 400, 'invalid_body'],
    [{ code: '23503' }, 400, 'invalid_body'],
    [{ code: '23502' }, 400, 'invalid_body'],
    [{ code: '23514' }, 400, 'invalid_body'],
    [{ code: '22001' }, 400, 'invalid_body'],
    [{ code: '08006' }, 503, 'database_unavailable'],
    [{ code: '08001' }, 503, 'database_unavailable'],
    [{ code: '53300' }, 503, 'database_unavailable'],
    [{ code: '57P01' }, 503, 'database_unavailable'],
    [{ code: '57P03' }, 503, 'database_unavailable'],
    [{ code: '57014' }, 503, 'database_unavailable'],
    [{ code: 'ECONNREFUSED' }, 503, 'database_unavailable'],
    [{ code: 'ECONNRESET' }, 503, 'database_unavailable'],
    [{ code: 'ETIMEDOUT' }, 503, 'database_unavailable'],
    [{ message: 'timeout exceeded when trying to connect' }, 503, 'database_unavailable'],
    [{ message: 'Connection terminated unexpectedly' }, 503, 'database_unavailable'],
    [{ code: '42P01', message: 'relation "x" does not exist' }, undefined, undefined],
    [{ code: '42601', message: 'syntax error' }, undefined, undefined],
    [{ message: 'something else entirely' }, undefined, undefined],
  ];
  for (const [err, status, code] of cases) {
    test(`${JSON.stringify(err)} → ${status ?? 'unmapped (500)'}`, () => {
      const mapped = problemFromDatabaseError(err);
      assert.equal(mapped?.status, status);
      assert.equal(mapped?.code, code);
      if (mapped) assert.ok(mapped.code in ERROR_CODES);
    });
  }
});
