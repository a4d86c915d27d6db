import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES } from '../src/http/errors.ts';
import { OPERATION_VERBS } from '../src/http/openapi-document.ts';
import { buildTestApp, ENGINE, type TestApp } from './helpers.ts';

/** The document as an integrator's generator meets it: every operation held to the same conventions (issue 12, point 4). */
type Json = Record<string, any>;

const PUBLIC_URL = 'https://api.showsuite.test';
const RECORDS = ['Project', 'Floor', 'Unit', 'Group', 'Lead', 'Invite'];

describe(`OpenAPI conventions (${ENGINE})`, () => {
  let t: TestApp;
  let doc: Json;
  const ops: { method: string; path: string; op: Json }[] = [];
  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_URL } });
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const [path, methods] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(methods)) ops.push({ method: method.toUpperCase(), path, op });
    }
  });
  after(() => t.close());

  const param = (p: Json): Json => (p.$ref ? doc.components.parameters[String(p.$ref).split('/').pop()!] : p);
  const params = (op: Json): Json[] => ((op.parameters ?? []) as Json[]).map(param);

  test('operationIds read as verbs and are unique: listProjects, holdUnit, …', () => {
    const ids = new Set<string>();
    const verbs = new RegExp(`^(${OPERATION_VERBS.join('|')})[A-Z][A-Za-z]*$`);
    for (const { method, path, op } of ops) {
      assert.match(op.operationId, verbs, `${method} ${path}: ${op.operationId}`);
      assert.ok(!ids.has(op.operationId), `${op.operationId} is unique`);
      ids.add(op.operationId);
    }
    for (const id of ['listProjects', 'createProject', 'updateUnit', 'holdUnit', 'listUnits', 'logIn', 'getPresentation']) assert.ok(ids.has(id), id);
  });

  test('every operation has a defined tag, a summary, and an example', () => {
    const tags = new Map<string, Json>((doc.tags as Json[]).map((tag) => [tag.name as string, tag]));
    for (const { method, path, op } of ops) {
      const what = `${method} ${path}`;
      assert.ok(op.tags?.length, `${what} has a tag`);
      for (const tag of op.tags) assert.ok(tags.get(tag)?.description, `${what}: tag ${tag} is defined with a description`);
      assert.ok(op.summary, `${what} has a summary`);
      const media = [op.requestBody?.content?.['application/json'], ...Object.values<Json>(op.responses).map((r) => r.content?.['application/json'])];
      const shown = media.some((m) => m?.example !== undefined) || params(op).some((p) => p.example !== undefined);
      assert.ok(shown, `${what} shows an example`);
    }
  });

  test('no HTML routes; servers from PUBLIC_URL; info.description is the integrator’s guide', () => {
    for (const path of Object.keys(doc.paths)) assert.ok(!/^\/(p|g|admin)(\/|$)/.test(path) && path !== '/', `${path} is not an HTML page`);
    assert.deepEqual(
      doc.servers.map((s: Json) => s.url),
      [PUBLIC_URL],
    );
    for (const word of ['Authentication', '90 days', '7 days', 'integration', 'If-Match', 'Errors', 'Idempotency-Key', 'Rate limits', 'csrf_rejected'])
      assert.ok(doc.info.description.includes(word), `info.description explains ${word}`);
  });

  test('object-valued queries are deep objects; conditional and idempotency headers are declared', () => {
    for (const { method, path, op } of ops) {
      const what = `${method} ${path}`;
      for (const p of params(op)) if (p.in === 'query' && p.schema?.type === 'object') assert.equal(p.style, 'deepObject', `${what} ?${p.name}`);
      const names = params(op).map((p) => String(p.name).toLowerCase());
      if (op.responses['412'] && (method === 'PATCH' || method === 'DELETE')) assert.ok(names.includes('if-match'), `${what} declares If-Match`);
      if (op.responses['304']) assert.ok(names.includes('if-none-match'), `${what} declares If-None-Match`);
    }
    for (const path of ['/units/{id}', '/floors/{id}', '/groups/{id}', '/project/{id}']) {
      for (const method of ['patch', 'delete']) assert.ok(doc.paths[path][method].responses['412'], `${method} ${path} may answer 412`);
    }
    for (const path of ['/projects', '/groups', '/floors', '/units', '/public/leads', '/public/units/{id}/hold']) {
      assert.ok(
        params(doc.paths[path].post).some((p) => p.name === 'Idempotency-Key'),
        `POST ${path} declares Idempotency-Key`,
      );
    }
    const units = params(doc.paths['/units'].post);
    assert.ok(units.find((p) => p.name === 'name')?.required && units.find((p) => p.name === 'project')?.required, 'a unit needs name and project');
    assert.equal(doc.paths['/units'].post.requestBody.required, false, 'a create needs no body');
  });

  test('response headers are declared: X-Request-Id everywhere, paging, creation, rate limits, replays', () => {
    for (const { method, path, op } of ops) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        assert.ok(response.headers?.['X-Request-Id'], `${method} ${path} ${status} declares X-Request-Id`);
        if (status === '429') for (const h of ['Retry-After', 'X-RateLimit-Limit']) assert.ok(response.headers[h], `${method} ${path} 429 declares ${h}`);
      }
    }
    for (const path of ['/projects', '/groups', '/floors', '/units', '/leads']) assert.ok(doc.paths[path].get.responses['200'].headers['X-Total-Count'], path);
    for (const path of ['/projects', '/groups', '/floors', '/units']) {
      const created = doc.paths[path].post.responses['201'].headers;
      for (const h of ['Location', 'ETag', 'Idempotent-Replayed']) assert.ok(created[h], `POST ${path} 201 declares ${h}`);
    }
  });

  test('records: __v and server-kept fields readOnly, secrets writeOnly, every field described, availability an enum', () => {
    for (const name of RECORDS) {
      const schema = doc.components.schemas[name];
      for (const [key, s] of Object.entries<Json>(schema.properties)) {
        assert.ok(s.description || s.$ref, `${name}.${key} has a description`);
        if (['_id', '__v', 'createdAt', 'updatedAt', 'configuredSecrets'].includes(key)) assert.equal(s.readOnly, true, `${name}.${key} is readOnly`);
      }
    }
    for (const name of ['Project', 'Floor', 'Unit', 'Group']) assert.ok(doc.components.schemas[name].required.includes('__v'), `${name} always carries __v`);
    const patch = doc.paths['/project/{id}'].patch.requestBody.content['application/json'].schema;
    const body = patch.$ref ? doc.components.schemas[String(patch.$ref).split('/').pop()!] : patch;
    for (const secret of ['sfSecret', 'ftpPassword', 'calKey']) assert.equal(body.properties[secret].writeOnly, true, `${secret} is writeOnly`);
    const availability = doc.components.schemas.Unit.properties.availability;
    const values = (availability.anyOf ?? [availability]).flatMap((s: Json) => s.enum ?? (s.const !== undefined ? [s.const] : []));
    assert.deepEqual(values, ['available', 'on_hold', 'reserved', 'sold', 'leased', 'unavailable']);
  });

  test('the guides the reference links to are served; the reference page keeps "Try it out"', async () => {
    const links = [...String(doc.info.description).matchAll(/\]\((\/docs\/guides\/[a-z-]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length >= 5, 'info.description links the guides');
    for (const link of links) {
      const res = await t.app.inject({ method: 'GET', url: link });
      assert.equal(res.statusCode, 200, link);
      assert.match(String(res.headers['content-type']), /^text\/markdown/);
      assert.match(res.body, /^# /, `${link} is a Markdown guide`);
    }
    const errors = await t.app.inject({ method: 'GET', url: '/docs/guides/errors' });
    for (const code of Object.keys(ERROR_CODES)) assert.ok(errors.body.includes(code), `the errors guide names ${code}`);
    const unknown = await t.app.inject({ method: 'GET', url: '/docs/guides/secrets' });
    assert.equal(unknown.statusCode, 404);
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
  });

  test('Problem.code is the closed catalogue of docs/errors.md', () => {
    const code = doc.components.schemas.Problem.properties.code;
    const values = (code.anyOf ?? [code]).flatMap((s: Json) => s.enum ?? (s.const !== undefined ? [s.const] : []));
    assert.deepEqual(values.sort(), Object.keys(ERROR_CODES).sort());
  });
});
