import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { CreateUserBody } from '../src/modules/users/users.schemas.ts';
import { buildTestApp, ENGINE, type TestApp } from './helpers.ts';

describe(`OpenAPI document and reference page (${ENGINE})`, () => {
  let t: TestApp;
  let doc: any;
  before(async () => {
    t = await buildTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = res.json();
  });
  after(() => t.close());

  test('OpenAPI 3.1.0, interface version 1.0.0, with a license', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
    assert.ok(doc.info.title);
    assert.ok(doc.info.license?.name);
  });

  test('bearer and cookie security schemes, applied to the whole interface', () => {
    // The bearer is a session's JWT or an opaque API token: the format says both, not "JWT" alone.
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT or sst_ API token',
      description: 'A session token from a login (a JWT) or an API token from POST /users/me/tokens (opaque, starting `sst_`)',
    });
    assert.deepEqual(doc.components.securitySchemes.cookieAuth, { type: 'apiKey', in: 'cookie', name: 'service' });
    assert.deepEqual(doc.security, [{ bearerAuth: [] }, { cookieAuth: [] }]);
    // Operations reachable without a token say so.
    assert.deepEqual(doc.paths['/health'].get.security, []);
    assert.ok(doc.paths['/users/login'].post.security.some((s: object) => Object.keys(s).length === 0));
    assert.equal(doc.paths['/users/me'].get.security, undefined, 'protected operations inherit the global requirement');
  });

  test('login: JSON body and query parameters, username an e-mail, its answers and problems', () => {
    const op = doc.paths['/users/login']?.post;
    assert.ok(op, 'POST /users/login documented');
    const body = op.requestBody.content['application/json'].schema;
    assert.equal(body.properties.username.format, 'email');
    const query = op.parameters
      .filter((p: { in: string }) => p.in === 'query')
      .map((p: { name: string }) => p.name)
      .sort();
    assert.deepEqual(query, ['password', 'username']);
    for (const status of ['200', '400', '401', '403', '405', '429', '500']) assert.ok(op.responses[status], `login documents ${status}`);
    assert.ok(op.responses['401'].content['application/problem+json']);
  });

  test('generated from the schemas that validate requests', () => {
    const schema = doc.paths['/users'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys(CreateUserBody.properties).sort());
    assert.deepEqual([...schema.required].sort(), [...(CreateUserBody.required ?? [])].sort());
    assert.equal(schema.additionalProperties, false);
    assert.ok(doc.components.schemas.Problem, 'the Problem schema is a component');
  });

  test('every operation has a unique operationId and at least one 4XX or 5XX problem', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        assert.ok(op.operationId, `${method} ${path} has an operationId`);
        assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} is unique`);
        ids.add(op.operationId);
      }
    }
    // Verbs, not paths: test/openapi-conventions.test.ts holds every operation to them.
    assert.ok(ids.has('logIn'));
    assert.ok(ids.has('getCurrentUser'));
  });

  test('hidden routes (405 answers, the document itself) are not operations', () => {
    assert.equal(doc.paths['/users/login'].get, undefined);
    assert.equal(doc.paths['/openapi.json'], undefined);
  });

  test('GET /docs is an HTML reference page', async () => {
    let url = '/docs';
    let res = await t.app.inject({ method: 'GET', url });
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 5; hops++) {
      const location = String(res.headers.location);
      url = location.startsWith('/') ? location : new URL(location, `http://x${url.endsWith('/') ? url : `${url}/`}`).pathname;
      res = await t.app.inject({ method: 'GET', url });
    }
    assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /<html/i);
  });

  test('redocly lint passes on the exported document', { timeout: 120_000 }, () => {
    const exported = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/export-openapi.ts'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    assert.equal(exported.status, 0, exported.stderr);
    const fromScript = JSON.parse(exported.stdout);
    assert.deepEqual(Object.keys(fromScript.paths).sort(), Object.keys(doc.paths).sort(), 'the script exports what the service serves');
    // The name `npm run lint:openapi` uses (recommended-strict, no ignore file).
    writeFileSync('openapi.gen.json', exported.stdout);
    const lint = spawnSync('npx', ['--no-install', 'redocly', 'lint', 'openapi.gen.json', '--config', 'redocly.yaml', '--format', 'summary'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    assert.equal(lint.status, 0, `${lint.stdout}\n${lint.stderr}`);
  });
});
