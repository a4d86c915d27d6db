import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINE, createProject, useOwnerApp, type OwnerApp } from './helpers.ts';

/**
 * CORS for the origins in CORS_ORIGINS (every method, the headers a dashboard sends, the headers it must read),
 * nothing at all for any other origin, and OPTIONS that is not a preflight (204 with Allow). The browser's side
 * of the same (a page on another origin) is in built-server.built.test.ts.
 */
const LISTED = 'https://dashboard.example';
let f: OwnerApp;
useOwnerApp({ env: { CORS_ORIGINS: `https://other.example, ${LISTED}` } }, (fixture) => (f = fixture));

const preflight = (url: string, origin: string, method: string, headers = 'authorization,content-type,if-match') =>
  f.t.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });
const list = (header: unknown) =>
  String(header ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

describe(`CORS and OPTIONS (${ENGINE})`, () => {
  test('a listed origin: the preflight names every method and the headers a dashboard sends', async () => {
    const p = await createProject(f.t.app, f.owner.auth);
    for (const method of ['PATCH', 'DELETE', 'PUT']) {
      const res = await preflight(`/project/${p._id}`, LISTED, method);
      assert.equal(res.statusCode, 204, res.body);
      assert.equal(res.headers['access-control-allow-origin'], LISTED);
      assert.equal(res.headers['access-control-allow-credentials'], 'true');
      assert.deepEqual(list(res.headers['access-control-allow-methods']), ['get', 'head', 'post', 'put', 'patch', 'delete']);
      const allowed = list(res.headers['access-control-allow-headers']);
      for (const h of ['authorization', 'content-type', 'if-match', 'if-none-match', 'idempotency-key', 'last-event-id']) assert.ok(allowed.includes(h), h);
      assert.match(String(res.headers.vary), /origin/i);
    }
  });

  test('a listed origin: answers expose ETag, Location, X-Total-Count, X-Request-Id, Retry-After and the rate-limit headers', async () => {
    const res = await f.t.app.inject({ method: 'GET', url: '/projects', headers: { ...f.owner.auth, origin: LISTED } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], LISTED);
    const exposed = list(res.headers['access-control-expose-headers']);
    for (const h of ['etag', 'location', 'x-total-count', 'x-request-id', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      assert.ok(exposed.includes(h), h);
  });

  test('an origin not listed gets no CORS header at all, on a preflight or an answer', async () => {
    const p = await createProject(f.t.app, f.owner.auth);
    const answers = [
      await preflight(`/project/${p._id}`, 'https://evil.example', 'PATCH'),
      await f.t.app.inject({ method: 'GET', url: `/project/${p._id}`, headers: { ...f.owner.auth, origin: 'https://evil.example' } }),
      await f.t.app.inject({ method: 'GET', url: `/project/${p._id}`, headers: { ...f.owner.auth, origin: `${LISTED}.evil.example` } }),
    ];
    for (const res of answers) {
      const cors = Object.keys(res.headers).filter((h) => h.startsWith('access-control-'));
      assert.deepEqual(cors, [], `${res.statusCode}: ${JSON.stringify(res.headers)}`);
    }
  });

  test('OPTIONS that is not a preflight: 204 with the path’s methods in Allow; an unknown path → 404 problem+json', async () => {
    const p = await createProject(f.t.app, f.owner.auth);
    const cases: [string, string[]][] = [
      [`/project/${p._id}`, ['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS']],
      ['/projects', ['GET', 'HEAD', 'POST', 'OPTIONS']],
      ['/public/leads', ['POST', 'OPTIONS']],
      ['/docs', ['GET', 'HEAD', 'OPTIONS']],
    ];
    for (const [url, methods] of cases) {
      // With no Origin, and with an Origin but no requested method: neither is a preflight.
      for (const headers of [{}, { origin: LISTED }]) {
        const res = await f.t.app.inject({ method: 'OPTIONS', url, headers });
        assert.equal(res.statusCode, 204, `${url}: ${res.body}`);
        assert.deepEqual(
          list(res.headers.allow),
          methods.map((m) => m.toLowerCase()),
          url,
        );
        assert.equal(res.body, '');
      }
    }
    for (const url of ['/no-such-path', '/docs/no-such-page', '/public/no-such-thing']) {
      const res = await f.t.app.inject({ method: 'OPTIONS', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.json().code, 'not_found');
    }
  });

  test('public routes keep their own open CORS for embedding', async () => {
    const res = await preflight('/public/leads', 'https://any-site.example', 'POST', 'content-type,idempotency-key');
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    // A holder's page on another site releases its hold.
    const release = await preflight(`/public/holds/${'A'.repeat(43)}`, 'https://any-site.example', 'DELETE', '');
    assert.equal(release.statusCode, 204);
    assert.equal(release.headers['access-control-allow-origin'], '*');
    assert.ok(list(release.headers['access-control-allow-methods']).includes('delete'));
  });
});
