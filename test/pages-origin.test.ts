import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, defaultPagesUrl } from '../src/config.ts';
import { createGroup, createProject, createUnit, login, slug, testConfig, useOwnerApp, type OwnerApp } from './helpers.ts';

/**
 * The buyer's pages have an origin of their own (PAGES_URL): that host serves the pages and what they load, never a
 * session route and never with cookies; the console's host redirects pages there. The browser side of it is
 * test/pages-origin.e2e.test.ts.
 */
const PAGES = 'pages.example.test';
let f: OwnerApp;
useOwnerApp({ env: { PUBLIC_URL: 'https://console.example.test', PAGES_URL: `https://${PAGES}` } }, (fixture) => (f = fixture));

describe('PAGES_URL', () => {
  test('unset: the other loopback name on one machine, else pages.<console host>; the port is kept', () => {
    assert.equal(defaultPagesUrl('http://localhost:3000'), 'http://127.0.0.1:3000');
    assert.equal(defaultPagesUrl('http://127.0.0.1:8080'), 'http://localhost:8080');
    assert.equal(defaultPagesUrl('https://app.example.com'), 'https://pages.app.example.com');
    const config = testConfig({ PAGES_URL: '', PORT: '4321' });
    assert.equal(config.pagesUrl, 'http://127.0.0.1:4321');
    assert.equal(config.mail.publicUrl, 'http://localhost:4321');
  });

  test('on the console host name (another port is not enough) or not an origin → the process does not start', () => {
    assert.throws(
      () => testConfig({ PUBLIC_URL: 'http://localhost:3000', PAGES_URL: 'http://localhost:4000' }),
      (err: ConfigError) => err.problems.some((p) => p.includes('PAGES_URL')),
    );
    for (const bad of ['pages.example.com', 'https://pages.example.com/p', 'ftp://pages.example.com']) {
      assert.throws(
        () => testConfig({ PAGES_URL: bad }),
        (err: ConfigError) => err.problems.some((p) => p.startsWith('PAGES_URL')),
        bad,
      );
    }
    assert.equal(testConfig({ PAGES_URL: 'https://Homes.Example.com/' }).pagesUrl, 'https://homes.example.com');
  });
});

describe('the pages host', () => {
  test('serves the page, the public bundle, assets and health checks', async () => {
    const namespace = slug();
    await createProject(f.t.app, f.owner.auth, { query: { namespace } });
    const page = await f.t.app.inject({ method: 'GET', url: `/p/${namespace}`, headers: { host: PAGES } });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.equal((await f.t.app.inject({ method: 'GET', url: `/public/projects/${namespace}`, headers: { host: PAGES } })).statusCode, 200);
    assert.equal((await f.t.app.inject({ method: 'GET', url: '/p/assets/demo-hero.webp', headers: { host: PAGES } })).statusCode, 200);
    assert.equal((await f.t.app.inject({ method: 'GET', url: '/health', headers: { host: `${PAGES}:443` } })).statusCode, 200);
    const preflight = await f.t.app.inject({
      method: 'OPTIONS',
      url: '/public/leads',
      headers: { host: PAGES, origin: 'https://homes.example.org', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.statusCode, 204);
  });

  test('answers no session route, with a token cookie or not, and no console (404 problem)', async () => {
    const { token } = await login(f.t.app, f.owner);
    const cookie = `service=${token}`;
    for (const [method, url] of [
      ['GET', '/users/me'],
      ['GET', '/projects'],
      ['GET', '/leads'],
      ['POST', '/users/login'],
      ['POST', '/users/refresh'],
      ['PATCH', '/project/0123456789abcdef01234567'],
      ['GET', '/admin'],
      ['GET', '/admin/projects'],
      ['GET', '/openapi.json'],
    ] as const) {
      const res = await f.t.app.inject({ method, url, headers: { host: PAGES, cookie, origin: `https://${PAGES}` } });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.match(res.headers['content-type'] as string, /application\/problem\+json/);
      assert.equal(res.headers['set-cookie'], undefined);
    }
  });
});

describe("the console's host", () => {
  test('redirects pages to the pages origin (308, path and query kept); assets and the public API stay', async () => {
    const namespace = slug();
    await createProject(f.t.app, f.owner.auth, { query: { namespace } });
    const g = await createGroup(f.t.app, f.owner.auth, { query: { namespace: slug('g') } });
    for (const url of [`/p/${namespace}?utm_source=mail`, `/p/${namespace}/units/0123456789abcdef01234567`, `/g/${g.namespace}`]) {
      const res = await f.t.app.inject({ method: 'GET', url, headers: { host: 'console.example.test' } });
      assert.equal(res.statusCode, 308, url);
      assert.equal(res.headers.location, `https://${PAGES}${url}`);
    }
    assert.equal((await f.t.app.inject({ method: 'GET', url: '/p/assets/demo-hero.webp', headers: { host: 'console.example.test' } })).statusCode, 200);
    assert.equal((await f.t.app.inject({ method: 'GET', url: `/public/projects/${namespace}` })).statusCode, 200);
  });

  test("never serves a project's host-name page, whatever host name a project claims", async () => {
    const namespace = slug();
    await createProject(f.t.app, f.owner.auth, { query: { namespace, hostName: 'console.example.test' } });
    const res = await f.t.app.inject({ method: 'GET', url: '/', headers: { host: 'console.example.test' } });
    assert.equal(res.statusCode, 404);
    assert.match(res.headers['content-type'] as string, /application\/problem\+json/);
  });

  test("the console's HTML names the pages origin", async () => {
    const html = (await f.t.app.inject({ method: 'GET', url: '/admin', headers: { host: 'console.example.test' } })).body;
    assert.match(html, new RegExp(`data-pages="https://${PAGES}"`));
  });
});

describe("a unit's sandboxed frames (embed code, button snippet)", () => {
  test('served on the pages host and beside a project on its own host name, always sandboxed; the console host redirects; none without code', async () => {
    const namespace = slug();
    const hostName = `${namespace}.homes.example.org`;
    const p = await createProject(f.t.app, f.owner.auth, {
      query: { namespace, hostName },
      body: { customButtonEnabled: true, customButtonText: 'Book', customButtonActionType: 'snippet' },
    });
    const marked = await createUnit(f.t.app, f.owner.auth, p._id, { body: { embedCode: '<p>EMBED-MARK</p>', customButtonSnippet: '<p>SNIPPET-MARK</p>' } });
    const bare = await createUnit(f.t.app, f.owner.auth, p._id, { name: 'Bare' });
    for (const [frame, mark] of [
      ['embed', 'EMBED-MARK'],
      ['button', 'SNIPPET-MARK'],
    ] as const) {
      const url = `/p/${namespace}/units/${marked._id}/${frame}`;
      for (const host of [PAGES, hostName]) {
        const res = await f.t.app.inject({ method: 'GET', url, headers: { host } });
        assert.equal(res.statusCode, 200, `${host}${url}`);
        assert.match(res.body, new RegExp(mark));
        const csp = res.headers['content-security-policy'] as string;
        assert.match(csp, /^sandbox allow-scripts /);
        assert.doesNotMatch(csp, /allow-same-origin/);
        assert.equal(res.headers['x-frame-options'], undefined);
      }
      const onConsole = await f.t.app.inject({ method: 'GET', url, headers: { host: 'console.example.test' } });
      assert.equal(onConsole.statusCode, 308);
      assert.equal(onConsole.headers.location, `https://${PAGES}${url}`);
      const none = await f.t.app.inject({ method: 'GET', url: `/p/${namespace}/units/${bare._id}/${frame}`, headers: { host: PAGES } });
      assert.equal(none.statusCode, 404);
    }
    // The snippet runs only while the project's button takes the snippet action.
    const res = await f.t.app.inject({ method: 'PATCH', url: `/project/${p._id}`, headers: f.owner.auth, payload: { customButtonActionType: 'url' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await f.t.app.inject({ method: 'GET', url: `/p/${namespace}/units/${marked._id}/button`, headers: { host: PAGES } })).statusCode, 404);
    const other = await f.t.app.inject({ method: 'GET', url: `/p/${namespace}/units/${marked._id}/script`, headers: { host: PAGES } });
    assert.equal(other.statusCode, 400);
  });
});
