import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { HTML_ROUTES } from '../src/http/openapi-document.ts';
import { ENGINE, HIGH_RATE_LIMITS, login, useOwnerApp, type OwnerApp } from './helpers.ts';

/**
 * The document lists every route the server answers, and every status the hooks shared by all
 * routes can answer on each. The routes come from the app itself (its router), so a route added
 * later is held to this without editing the test.
 */
type Json = Record<string, any>;

const API_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** What the router serves that is not API: pages for people (the reference, the guides, the console, the buyer's pages, their assets). */
const NOT_API = (url: string) =>
  HTML_ROUTES.has(url) ||
  url === '/openapi.json' ||
  url === '/docs' ||
  url.startsWith('/docs/') ||
  url.startsWith('/p/assets/') ||
  url === '/embed.js' || // the embed SDK, a script asset like the page's own
  url.startsWith('/admin/assets/') ||
  url.includes('*');
const OBJECT_ID = '65f0c0ffee00000000000001';

/** Every (method, path) the router holds, read from its printed tree (Fastify has no other way to list routes). */
export function routesOf(app: FastifyInstance): { method: string; url: string }[] {
  const out: { method: string; url: string }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const url = stack.join('');
    for (const method of (m[3] ?? '').split(', ')) if (API_METHODS.has(method)) out.push({ method, url });
  }
  return out;
}

/** A path of the document (`/units/{id}`) with every parameter filled in, or with `value` in each. */
const fill = (path: string, value = OBJECT_ID) => path.replace(/\{[^}]+\}|:[A-Za-z]+/g, value);

describe(`OpenAPI document covers every route and every shared answer (${ENGINE})`, () => {
  let f: OwnerApp;
  // Imports take larger bodies than the 1 MiB of everything else; here theirs is 1 MiB too, so one probe fits all.
  useOwnerApp({ env: { ...HIGH_RATE_LIMITS, PUBLIC_URL: 'http://127.0.0.1', INVENTORY_MAX_FILE_MB: '1' } }, (fixture) => (f = fixture));
  let doc: Json;
  const ops = () => {
    const out: { method: string; path: string; op: Json }[] = [];
    for (const [path, methods] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(methods)) out.push({ method: method.toUpperCase(), path, op });
    }
    return out;
  };

  test('every route the router serves is an operation of the document (or a 405 for a method the path does not take)', async () => {
    doc = (await f.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const routes = routesOf(f.t.app);
    assert.ok(routes.length > 100, `${routes.length} routes read from the router`);
    const missing: string[] = [];
    let documented = 0;
    for (const { method, url } of routes) {
      if (NOT_API(url)) continue;
      const path = url.replace(/:([A-Za-z]+)/g, '{$1}');
      if (doc.paths[path]?.[method.toLowerCase()]) {
        documented++;
        continue;
      }
      // Other methods on a known path answer 405 with Allow (app.ts); anything else is served and undocumented.
      const res = await f.t.app.inject({ method: method as InjectOptions['method'], url: fill(url) });
      if (res.statusCode !== 405) missing.push(`${method} ${path} (${res.statusCode})`);
    }
    assert.deepEqual(missing, []);
    assert.equal(documented, ops().length, 'every operation is a route');
    for (const method of ['get', 'patch', 'delete']) assert.ok(doc.paths['/projects/{id}']?.[method], `${method} /projects/{id} (the alias) is documented`);
  });

  test('a parameter with a default is not required', () => {
    for (const { method, path, op } of ops()) {
      for (const p of (op.parameters ?? []) as Json[]) {
        if (p.schema?.default !== undefined) assert.notEqual(p.required, true, `${method} ${path} ${p.name} has a default`);
      }
    }
  });

  test('each operation declares what the shared hooks answer, and does answer it', async () => {
    const { app } = f.t;
    const problems: string[] = [];
    const probe = async (what: string, op: Json, options: InjectOptions, expected?: number) => {
      const res = await app.inject(options);
      if (expected !== undefined && res.statusCode !== expected) problems.push(`${what}: ${res.statusCode}, expected ${expected}`);
      if (!op.responses[String(res.statusCode)]) problems.push(`${what}: answered ${res.statusCode}, not declared`);
      if (res.headers['x-ratelimit-limit'] !== undefined && !op.responses['429']) problems.push(`${what}: rate limited, 429 not declared`);
      return res;
    };
    for (const { method, path, op } of ops()) {
      const m = method as InjectOptions['method'];
      const url = fill(path);
      const at = `${method} ${path}`;
      // A session of its own for each operation: POST /users/logout ends the one it is sent with.
      const bearer = { authorization: `Bearer ${(await login(app, f.owner)).token}` };
      // Server-side failures and unavailability (database, store, start-up) can come anywhere.
      for (const status of ['500', '503']) if (!op.responses[status]) problems.push(`${at}: ${status} not declared`);
      // No credentials: 401 wherever the document says credentials are needed.
      await probe(`${at} without credentials`, op, { method: m, url }, op.security === undefined ? 401 : undefined);
      // A well-formed request with ids that name nothing.
      await probe(`${at} with unknown ids`, op, { method: m, url, headers: bearer, ...(WRITES.has(method) ? { payload: {} } : {}) });
      // The buyer's pages host serves the public API and media only.
      const onPagesHost = path.startsWith('/public/') || path === '/media/{name}' || path === '/health' || path === '/ready';
      await probe(`${at} on the pages host`, op, { method: m, url, headers: { host: 'pages.localhost' } }, onPagesHost ? undefined : 404);
      if (path.includes('{')) {
        await probe(`${at} with a 101-character segment`, op, { method: m, url: fill(path, 'a'.repeat(101)), headers: bearer }, 414);
        await probe(`${at} with a bad percent-encoding`, op, { method: m, url: fill(path, '%E0%A4%A'), headers: bearer }, 400);
      }
      if (!WRITES.has(method)) continue;
      const big = { 'content-type': 'application/json', ...bearer };
      await probe(`${at} with a body over 1 MiB`, op, { method: m, url, headers: big, payload: `"${'x'.repeat(1024 * 1024)}"` }, 413);
      const unknownType = { 'content-type': 'application/x-unknown', ...bearer };
      await probe(`${at} with a body of a type no route reads`, op, { method: m, url, headers: unknownType, payload: 'hello' }, 415);
      if (!path.startsWith('/public/')) {
        // A cookie-authenticated change from another site (CSRF), and in the authenticated scope a read-only token, → 403.
        const csrf = { cookie: 'service=x', origin: 'https://elsewhere.example' };
        await probe(`${at} cookie-authenticated from another site`, op, { method: m, url, headers: csrf }, 403);
      }
    }
    assert.deepEqual(problems, []);
  });
});
