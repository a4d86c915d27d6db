import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import { generateApi } from 'swagger-typescript-api';
import { buildTestApp, createUser, ENGINE, TEST_PASSWORD, type TestApp } from './helpers.ts';

/**
 * Issue 12, point 1: clients generated from the live document by three generators compile under `strict`, and a
 * typed scenario runs through the openapi-fetch client against the service on a real socket, with no casts.
 */
const SCENARIO = `
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export async function scenario(baseUrl: string, username: string, password: string, namespace: string): Promise<string[]> {
  const steps: string[] = [];
  // JSON answers and problem+json errors; GET /units and /leads also offer text/csv, for spreadsheet exports.
  const api = createClient<paths, \`application/\${string}json\`>({ baseUrl });
  const login = await api.POST('/users/login', { body: { username, password } });
  if (!login.data) throw new Error('login: ' + (login.error?.code ?? 'no answer'));
  const token = login.data.access_token;
  api.use({ onRequest: ({ request }) => { request.headers.set('Authorization', 'Bearer ' + token); return request; } });
  steps.push('login');

  const bad = await api.POST('/users/login', { body: { username, password: 'wrong password' } });
  if (bad.error?.code !== 'invalid_credentials') throw new Error('typed error expected');
  steps.push('typed error ' + bad.error.status);

  const project = await api.POST('/projects', { params: { query: { name: 'Harbour View', namespace }, header: { 'Idempotency-Key': 'create-' + namespace } } });
  if (!project.data) throw new Error('project: ' + (project.error?.detail ?? ''));
  const projectId = project.data._id;
  const floor = await api.POST('/floors', { params: { query: { project: projectId, name: 'Ground' } } });
  if (!floor.data) throw new Error('floor');
  for (const [name, price] of [['G-01', 300000], ['G-02', 450000], ['G-03', 600000]] as const) {
    const unit = await api.POST('/units', { params: { query: { project: projectId, name, floor: floor.data._id } }, body: { price, bedrooms: '2' } });
    if (!unit.data) throw new Error('unit ' + name);
  }
  steps.push('created');

  const list = await api.GET('/units', {
    params: { query: { project: projectId, filters: { priceMin: 400000 }, options: { limit: 1, sort: '-name' } } },
  });
  if (!list.data) throw new Error('list: ' + (list.error?.detail ?? ''));
  const total = list.response.headers.get('X-Total-Count');
  const first = list.data[0];
  if (!first) throw new Error('empty list');
  steps.push('listed ' + first.name + ' of ' + total);

  const staleTag = '"' + (first.__v + 5) + '"';
  const stale = await api.PATCH('/units/{id}', { params: { path: { id: first._id }, header: { 'If-Match': staleTag } }, body: { price: 1 } });
  if (stale.error?.code !== 'precondition_failed') throw new Error('stale If-Match must be refused');
  const tag = '"' + first.__v + '"';
  const patched = await api.PATCH('/units/{id}', { params: { path: { id: first._id }, header: { 'If-Match': tag } }, body: { price: 610000 } });
  if (!patched.data) throw new Error('patch');
  steps.push('patched to ' + patched.data.price + ' v' + patched.data.__v);

  // Adding the floor changed the project's floors, so its version moved on: read it again.
  const current = await api.GET('/project/{id}', { params: { path: { id: projectId } } });
  if (!current.data) throw new Error('project');
  const settings = await api.PATCH('/project/{id}', {
    params: { path: { id: projectId }, header: { 'If-Match': '"' + current.data.__v + '"' } },
    body: { enableForms: true, onHoldExperienceEnabled: true },
  });
  if (!settings.data) throw new Error('settings: ' + (settings.error?.detail ?? ''));

  const bundle = await api.GET('/public/projects/{namespace}', { params: { path: { namespace } } });
  const etag = bundle.response.headers.get('ETag');
  if (!bundle.data || !etag) throw new Error('bundle');
  const again = await api.GET('/public/projects/{namespace}', { params: { path: { namespace }, header: { 'If-None-Match': etag } } });
  steps.push('bundle ' + again.response.status);

  const lead = await api.POST('/public/leads', { body: { namespace, firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', phone: '+1 555 0100' } });
  if (!lead.data) throw new Error('lead: ' + (lead.error?.detail ?? ''));
  const hold = await api.POST('/public/units/{id}/hold', {
    params: { path: { id: first._id } },
    body: { firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', phone: '+1 555 0100' },
  });
  if (!hold.data) throw new Error('hold: ' + (hold.error?.detail ?? ''));
  steps.push('held ' + hold.data.availability);

  const leads = await api.GET('/leads', { params: { query: { project: projectId, options: { sort: 'createdAt' } } } });
  if (!leads.data) throw new Error('leads');
  steps.push('leads ' + leads.data.map((l) => l.source ?? '').join(','));
  return steps;
}
`;

describe(`generated clients from the live document (${ENGINE})`, () => {
  let t: TestApp;
  let baseUrl: string;
  let dir: string;
  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_URL: 'http://127.0.0.1' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    assert.ok(address && typeof address === 'object');
    baseUrl = `http://127.0.0.1:${address.port}`;
    dir = mkdtempSync(join(tmpdir(), 'showsuite-clients-'));
    // Generated code and the scenario resolve openapi-fetch from the project's own packages, offline.
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
    const res = await fetch(`${baseUrl}/openapi.json`);
    writeFileSync(join(dir, 'openapi.json'), await res.text());
    writeFileSync(join(dir, 'scenario.ts'), SCENARIO);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('openapi-typescript, @hey-api/openapi-ts and swagger-typescript-api output compiles under strict', { timeout: 180_000 }, async () => {
    const document = join(dir, 'openapi.json');
    writeFileSync(join(dir, 'schema.ts'), astToString(await openapiTS(pathToFileURL(document))));
    await heyApi({
      input: document,
      output: { path: join(dir, 'hey') },
      plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
      logs: { level: 'silent' },
    });
    await generateApi({ input: document, output: join(dir, 'sta'), fileName: 'api.ts', httpClientType: 'fetch', silent: true });
    const program = ts.createProgram([join(dir, 'schema.ts'), join(dir, 'scenario.ts'), join(dir, 'hey', 'index.ts'), join(dir, 'sta', 'api.ts')], {
      strict: true,
      noEmit: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n') + (d.file ? ` (${d.file.fileName.slice(dir.length)})` : ''));
    assert.deepEqual(diagnostics.slice(0, 20), []);
    assert.ok(
      program.getSourceFiles().some((f) => f.fileName.endsWith('/hey/sdk.gen.ts')),
      'the hey-api SDK was generated',
    );
  });

  test('the typed openapi-fetch scenario runs against the service', { timeout: 120_000 }, async () => {
    const user = await createUser(t.db);
    const { scenario } = (await import(pathToFileURL(join(dir, 'scenario.ts')).href)) as {
      scenario: (baseUrl: string, username: string, password: string, namespace: string) => Promise<string[]>;
    };
    const steps = await scenario(baseUrl, user.username, TEST_PASSWORD, `harbour-${user.id.slice(-8)}`);
    assert.deepEqual(steps, [
      'login',
      'typed error 401',
      'created',
      'listed G-03 of 2',
      'patched to 610000 v2',
      'bundle 304',
      'held on_hold',
      'leads presentation,hold',
    ]);
  });
});
