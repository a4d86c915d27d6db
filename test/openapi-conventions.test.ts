import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ERROR_CODES } from '../src/http/errors.ts';
import { findDocsDir } from '../src/http/openapi.ts';
import { OPERATION_VERBS } from '../src/http/openapi-document.ts';
import { buildTestApp, caller, createProject, createUnit, ENGINE, freePort, slug, tempDir, TEST_JWT_SECRET, userWithToken, type TestApp } from './helpers.ts';

/** The document as an integrator's generator meets it: every operation held to the same conventions. */
type Json = Record<string, any>;

const PUBLIC_URL = 'https://api.showsuite.test';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The meaning the original interface description gives each field of Project, Floor, Unit, Group and Lead (its
 * "Meaning" columns and bracketed notes; remarks on the payload shape left out), taken from it once.
 */
const FIELD_MEANINGS = join(ROOT, 'test', 'support', 'field-meanings.json');
const AVAILABILITY = ['available', 'on_hold', 'reserved', 'sold', 'leased', 'unavailable'];
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;
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

  test('every operation declares a 2xx answer, but the single sign-on callback (a redirect only, by nature)', () => {
    for (const { method, path, op } of ops) {
      const ok = Object.keys(op.responses).some((s) => /^2/.test(s));
      if (method === 'GET' && path === '/auth/oidc/callback')
        assert.deepEqual(
          Object.keys(op.responses).filter((s) => /^[23]/.test(s)),
          ['302'],
        );
      else assert.ok(ok, `${method} ${path} declares a 2xx answer`);
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

  test('object-valued queries are one parameter per field (filters[priceMin]); conditional and idempotency headers are declared', () => {
    for (const { method, path, op } of ops) {
      const what = `${method} ${path}`;
      for (const p of params(op)) if (p.in === 'query') assert.notEqual(p.schema?.type, 'object', `${what} ?${p.name} is a plain parameter`);
      const names = params(op).map((p) => String(p.name).toLowerCase());
      // The bulk PATCH /units takes each unit's version in its item's `ifMatch`, not as a header.
      if (what === 'PATCH /units') assert.ok(!names.includes('if-match'), `${what} declares no If-Match header`);
      else if (op.responses['412'] && (method === 'PATCH' || method === 'DELETE')) assert.ok(names.includes('if-match'), `${what} declares If-Match`);
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
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.match(res.body, /<h1 id=/, `${link} is a rendered guide`);
    }
    const errors = await t.app.inject({ method: 'GET', url: '/docs/guides/errors' });
    for (const code of Object.keys(ERROR_CODES)) assert.ok(errors.body.includes(code), `the errors guide names ${code}`);
    const unknown = await t.app.inject({ method: 'GET', url: '/docs/guides/secrets' });
    assert.equal(unknown.statusCode, 404);
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
  });

  const schemaOf = (s: Json): Json => (s.$ref ? doc.components.schemas[String(s.$ref).split('/').pop()!] : s);
  const bodyOf = (path: string, method: string): Json => schemaOf(doc.paths[path][method].requestBody.content['application/json'].schema);
  /** A validator for a schema of the document, its `$ref`s resolved in the document's components. */
  const validatorOf = (schema: Json) => {
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    ajv.addFormat('email-list', true);
    return ajv.compile({ ...schema, components: doc.components });
  };

  test('Lead: an output schema requiring what every stored lead has, checked against real answers; LeadInput and PublicLeadInput for inputs', async () => {
    const lead = doc.components.schemas.Lead;
    assert.deepEqual(
      [...lead.required].sort(),
      ['_id', '__v', 'project', 'firstName', 'lastName', 'email', 'source', 'status', 'assignee', 'notes', 'createdAt', 'updatedAt'].sort(),
      "the server-kept fields, the sales team's (status, assignee, notes; null when unset), and what every way of making a lead requires or sets",
    );
    assert.equal(doc.components.schemas.LeadInput.required, undefined, 'a lead sent back in a Project PATCH may carry any of its fields');
    const patch = bodyOf('/project/{id}', 'patch');
    assert.equal(patch.properties.leads.items.$ref, '#/components/schemas/LeadInput');
    assert.equal(doc.paths['/public/leads'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/PublicLeadInput');
    assert.equal(doc.paths['/leads'].get.responses['200'].content['application/json'].schema.items.$ref, '#/components/schemas/Lead');

    // Every way a lead is made (an enquiry, a hold, the waitlist), then read back as an integrator does.
    const owner = await userWithToken(t);
    const namespace = slug('lead');
    const p = await createProject(t.app, owner.auth, {
      query: { namespace },
      body: { enableForms: true, onHoldExperienceEnabled: true, waitlistEnabled: true },
    });
    const unit = await createUnit(t.app, owner.auth, p._id);
    const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };
    const made = [
      await t.app.inject({ method: 'POST', url: '/public/leads', payload: { namespace, ...visitor }, remoteAddress: '192.0.2.71' }),
      await t.app.inject({ method: 'POST', url: `/public/units/${unit._id}/hold`, payload: visitor, remoteAddress: '192.0.2.72' }),
      await t.app.inject({ method: 'POST', url: '/public/waitlist', payload: { project: p._id, ...visitor, phone: undefined }, remoteAddress: '192.0.2.73' }),
    ];
    for (const res of made) assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
    const created = validatorOf(doc.paths['/public/leads'].post.responses['201'].content['application/json'].schema);
    assert.ok(created(made[0]!.json()), JSON.stringify(created.errors));
    const leads = await t.app.inject({ method: 'GET', url: `/leads?project=${p._id}`, headers: owner.auth });
    assert.equal(leads.json().length, 3);
    const valid = validatorOf(lead);
    for (const row of leads.json()) assert.ok(valid(row), `${row.source}: ${JSON.stringify(valid.errors)}`);
    assert.deepEqual(
      leads
        .json()
        .map((l: Json) => l.source)
        .sort(),
      ['hold', 'presentation', 'waitlist'],
    );
  });

  test('POST /public/leads: one of project and namespace is required, in the schema and in the service as before', async () => {
    for (const path of ['/public/leads', '/public/waitlist']) {
      assert.deepEqual(bodyOf(path, 'post').anyOf, [{ required: ['project'] }, { required: ['namespace'] }], path);
    }
    const owner = await userWithToken(t);
    const namespace = slug('either');
    const p = await createProject(t.app, owner.auth, { query: { namespace }, body: { enableForms: true } });
    const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };
    const post = (payload: Json) => t.app.inject({ method: 'POST', url: '/public/leads', payload, remoteAddress: '192.0.2.74' });
    const neither = await post(visitor);
    assert.equal(neither.statusCode, 400);
    assert.equal(neither.json().code, 'invalid_body');
    assert.equal(neither.json().detail, 'project or namespace is required');
    assert.deepEqual(neither.json().errors, [{ path: '/project', message: 'is required (or namespace)' }]);
    // Both: the id decides, the namespace is not looked at.
    const both = await post({ project: p._id, namespace: slug('elsewhere'), ...visitor });
    assert.equal(both.statusCode, 201, both.body);
    assert.equal(both.json().project, p._id);
    // A bad field is still named first, whatever names the project.
    const bad = await post({ ...visitor, email: 'nope' });
    assert.deepEqual(
      bad.json().errors.map((e: Json) => e.path),
      ['/email'],
    );
  });

  test('availability is the lower-case enum everywhere (record, bodies, query); any case is still accepted and stored in lower case', async () => {
    const enumOf = (s: Json) => schemaOf(s).enum as string[] | undefined;
    assert.deepEqual(enumOf(doc.components.schemas.Unit.properties.availability), AVAILABILITY);
    for (const [path, method] of [
      ['/units', 'post'],
      ['/units/{id}', 'patch'],
    ] as const) {
      const availability = bodyOf(path, method).properties.availability;
      assert.deepEqual(enumOf(availability), AVAILABILITY, `${method} ${path}`);
      assert.match(availability.description, /any case is accepted.*stored in lower case/i);
    }
    assert.deepEqual(enumOf(schemaOf(bodyOf('/units', 'patch').items).properties.availability), AVAILABILITY, 'PATCH /units items');
    const query = params(doc.paths['/units'].get);
    assert.deepEqual(enumOf(query.find((p) => p.name === 'availability')!.schema), AVAILABILITY, 'GET /units?availability=');
    const filters = query.find((p) => p.name === 'filters[availability]')!.schema;
    assert.equal(filters.pattern, `^(${AVAILABILITY.join('|')})(,(${AVAILABILITY.join('|')}))*$`, 'a comma-separated list of the enum');

    const owner = await userWithToken(t);
    const call = caller(t.app, owner.auth);
    const p = await createProject(t.app, owner.auth);
    const made = await call('POST', `/units?project=${p._id}&name=A1`, { availability: 'Reserved' });
    assert.equal(made.json().availability, 'reserved');
    const u = made.json()._id as string;
    assert.equal((await call('PATCH', `/units/${u}`, { availability: 'SOLD' })).json().availability, 'sold');
    const bulk = await call('PATCH', '/units', [{ _id: u, availability: 'LeAsEd' }]);
    assert.equal(bulk.statusCode, 200, bulk.body);
    assert.equal(bulk.json()[0].availability, 'leased');
    const listed = (url: string) => call('GET', url).then((r) => r.json().map((x: Json) => x._id));
    assert.deepEqual(await listed(`/units?project=${p._id}&availability=LEASED`), [u]);
    assert.deepEqual(await listed(`/units?project=${p._id}&filters[availability]=Sold,LEASED`), [u]);
    assert.deepEqual(await listed(`/units?project=${p._id}&filters=${encodeURIComponent('{"availability":"Leased"}')}`), [u]);
    for (const bad of ['gone', 'ſold', 'sold ', '']) {
      const res = await call('PATCH', `/units/${u}`, { availability: bad });
      assert.equal(res.statusCode, 400, bad);
      assert.deepEqual(
        res.json().errors.map((e: Json) => e.path),
        ['/availability'],
      );
    }
    assert.equal((await call('GET', `/units?project=${p._id}&availability=g0ne`)).statusCode, 400);
    assert.equal((await call('PATCH', '/units', [{ _id: u, availability: 'nope' }])).statusCode, 400);
  });

  test('create inputs: required query parameters, the same fields in the body named as the alternative (the service takes either)', async () => {
    for (const [path, required] of [
      ['/projects', ['name']],
      ['/groups', ['name']],
      ['/floors', ['project', 'name']],
      ['/units', ['project', 'name']],
    ] as const) {
      const op = doc.paths[path].post;
      const body = bodyOf(path, 'post');
      for (const name of required) {
        const q = params(op).find((p) => p.in === 'query' && p.name === name)!;
        assert.equal(q.required, true, `POST ${path} ?${name} is required`);
        assert.match(q.description, new RegExp(`JSON body's \`${name}\``), `POST ${path} ?${name} names the body alternative`);
        assert.match(body.properties[name].description, /query parameter of the same name.*one of the two is required/, `POST ${path} body ${name}`);
      }
      assert.equal(op.requestBody.required, false, `POST ${path} needs no body`);
    }
    assert.doesNotMatch(String(bodyOf('/floors/{id}', 'patch').properties.name.description ?? ''), /query parameter/, 'a PATCH body keeps its own text');
    // What the document says, the service does: in the body alone, or in both places with the query winning.
    const owner = await userWithToken(t);
    const call = caller(t.app, owner.auth);
    const p = await createProject(t.app, owner.auth);
    const inBody = await call('POST', '/floors', { project: p._id, name: 'From the body' });
    assert.equal(inBody.statusCode, 201, inBody.body);
    const both = await call('POST', `/floors?project=${p._id}&name=Query`, { name: 'Body' });
    assert.equal(both.json().name, 'Query');
    const neither = await call('POST', `/floors?project=${p._id}`);
    assert.deepEqual(neither.json().errors, [{ path: '/name', message: 'is required' }]);
  });

  test('every field the interface gives a meaning to says it: Project, Floor, Unit, Group and Lead', () => {
    const meanings = JSON.parse(readFileSync(FIELD_MEANINGS, 'utf8')) as Record<string, Record<string, string>>;
    let checked = 0;
    for (const [name, fields] of Object.entries(meanings)) {
      const props = doc.components.schemas[name].properties as Json;
      for (const [field, meaning] of Object.entries(fields)) {
        assert.ok(props[field], `${name}.${field} is in the document`);
        const description = String(props[field].description ?? '');
        assert.ok(description.toLowerCase().includes(meaning.toLowerCase()), `${name}.${field}: "${description}" says the interface's "${meaning}"`);
        checked++;
      }
    }
    assert.ok(checked > 100, `${checked} fields checked`);
    for (const name of ['Project', 'Floor', 'Unit', 'Group', 'Lead'])
      assert.ok(Object.keys(meanings[name] ?? {}).length, `the interface gives ${name} meanings`);
  });

  test('the guides are found from the package, not the working directory', async () => {
    assert.equal(findDocsDir(join(ROOT, 'src', 'http')), join(ROOT, 'docs'), 'from the sources');
    assert.equal(findDocsDir(join(ROOT, 'dist')), join(ROOT, 'docs'), 'from the bundle in dist/');
    assert.equal(findDocsDir(tmpdir()), undefined);
    // The built service, started as `npm start` starts it (building dist/ when it is missing or stale) but from
    // another directory, serves them too.
    const port = await freePort();
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs')], {
      cwd: tmpdir(),
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        JWT_SECRET: TEST_JWT_SECRET,
        SECRET_KEY: 'ab'.repeat(32),
        SEED_DEMO: 'false',
        LOG_LEVEL: 'warn',
        DATA_DIR: tempDir(),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr.on('data', (d) => (errors += d));
    try {
      let status = 0;
      for (let i = 0; i < 360 && status !== 200 && child.exitCode === null; i++) {
        status = await fetch(`http://127.0.0.1:${port}/ready`).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 200) await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal(status, 200, errors);
      // The console's and the API's host by default (127.0.0.1 serves the buyer's pages).
      const guide = await fetch(`http://localhost:${port}/docs/guides/errors`);
      assert.equal(guide.status, 200);
      assert.match(await guide.text(), /<h1 id="errors">Errors<\/h1>/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(undefined)));
    }
  });

  test('Problem.code is the closed catalogue of docs/errors.md', () => {
    const code = doc.components.schemas.Problem.properties.code;
    const values = (code.anyOf ?? [code]).flatMap((s: Json) => s.enum ?? (s.const !== undefined ? [s.const] : []));
    assert.deepEqual(values.sort(), Object.keys(ERROR_CODES).sort());
  });
});
