import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import { generate as orval } from 'orval';
import { generateSource as oazapfts } from 'oazapfts';
import { generateApi } from 'swagger-typescript-api';
import { buildTestApp, createUser, ENGINE, freePort, TEST_PASSWORD, type TestApp } from './helpers.ts';

/**
 * Clients generated from the served document by four generators
 * (openapi-typescript + openapi-fetch, @hey-api/openapi-ts, orval's fetch client, oazapfts) compile under `strict`
 * together with one scenario each, and each scenario runs against the service on a real socket: log in, create a
 * project, a floor and units (inputs in the query, no body), search units with filters and paging, change a unit
 * with If-Match (a stale one → 412), change prices in bulk, read the leads. No cast (`as`), no request written by
 * hand: every call is a generated function, and the scenarios are the same for every generator. When a generator
 * cannot do a step, the document changes, not the scenario (docs/interface.md, "OpenAPI and generated clients").
 */
type Scenario = (baseUrl: string, username: string, password: string, namespace: string) => Promise<string[]>;

const EXPECTED = ['login', 'created 3', 'listed G-03 of 2', 'stale 412 precondition_failed', 'patched 610000 v2', 'bulk 2', 'leads 1'];

const OPENAPI_FETCH = `
import createClient from 'openapi-fetch';
import type { paths } from './openapi-fetch/schema';

export async function scenario(baseUrl: string, username: string, password: string, namespace: string): Promise<string[]> {
  const steps: string[] = [];
  // JSON answers and problem+json errors; GET /units and /leads also offer text/csv, for spreadsheet exports.
  const api = createClient<paths, \`application/\${string}json\`>({ baseUrl });
  const login = await api.POST('/users/login', { body: { username, password } });
  if (!login.data) throw new Error('login: ' + (login.error?.code ?? 'no answer'));
  const token = login.data.access_token;
  api.use({ onRequest: ({ request }) => { request.headers.set('Authorization', 'Bearer ' + token); return request; } });
  steps.push('login');

  const project = await api.POST('/projects', { params: { query: { name: 'Harbour View' } }, body: { namespace, enableForms: true } });
  if (!project.data) throw new Error('project: ' + (project.error?.detail ?? ''));
  const projectId = project.data._id;
  const floor = await api.POST('/floors', { params: { query: { project: projectId, name: 'Ground' } } });
  if (!floor.data) throw new Error('floor: ' + (floor.error?.detail ?? ''));
  let created = 0;
  for (const [name, price] of [['G-01', 300000], ['G-02', 450000], ['G-03', 600000]] as const) {
    const unit = await api.POST('/units', { params: { query: { project: projectId, name, floor: floor.data._id } }, body: { price, bedrooms: '2' } });
    if (!unit.data) throw new Error('unit ' + name + ': ' + (unit.error?.detail ?? ''));
    created++;
  }
  steps.push('created ' + created);

  const list = await api.GET('/units', {
    params: { query: { project: projectId, 'filters[priceMin]': 400000, 'options[limit]': 1, 'options[sort]': '-name' } },
  });
  if (!list.data) throw new Error('list: ' + (list.error?.detail ?? ''));
  const first = list.data[0];
  if (!first) throw new Error('empty list');
  steps.push('listed ' + first.name + ' of ' + list.response.headers.get('X-Total-Count'));

  const stale = await api.PATCH('/units/{id}', { params: { path: { id: first._id }, header: { 'If-Match': '"' + (first.__v + 5) + '"' } }, body: { price: 1 } });
  steps.push('stale ' + stale.response.status + ' ' + (stale.error?.code ?? ''));
  const patched = await api.PATCH('/units/{id}', { params: { path: { id: first._id }, header: { 'If-Match': '"' + first.__v + '"' } }, body: { price: 610000 } });
  if (!patched.data) throw new Error('patch: ' + (patched.error?.detail ?? ''));
  steps.push('patched ' + patched.data.price + ' v' + patched.data.__v);

  const all = await api.GET('/units', { params: { query: { project: projectId, 'filters[priceMax]': 500000 } } });
  if (!all.data) throw new Error('all');
  const bulk = await api.PATCH('/units', { body: all.data.map((u) => ({ _id: u._id, price: (u.price ?? 0) + 1000, ifMatch: '"' + u.__v + '"' })) });
  if (!bulk.data) throw new Error('bulk: ' + (bulk.error?.detail ?? ''));
  steps.push('bulk ' + bulk.data.length);

  const lead = await api.POST('/public/leads', { body: { namespace, firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', phone: '+1 555 0100' } });
  if (!lead.data) throw new Error('lead: ' + (lead.error?.detail ?? ''));
  const leads = await api.GET('/leads', { params: { query: { project: projectId, 'options[sort]': 'createdAt' } } });
  if (!leads.data) throw new Error('leads');
  steps.push('leads ' + leads.data.length);
  return steps;
}
`;

const HEY_API = `
import { client } from './hey-api/client.gen';
import { createFloor, createProject, createUnit, listLeads, listUnits, logIn, submitLead, updateUnit, updateUnits } from './hey-api';

export async function scenario(baseUrl: string, username: string, password: string, namespace: string): Promise<string[]> {
  const steps: string[] = [];
  client.setConfig({ baseUrl });
  const login = await logIn({ body: { username, password } });
  if (!login.data) throw new Error('login: ' + (login.error?.code ?? 'no answer'));
  client.setConfig({ baseUrl, headers: { Authorization: 'Bearer ' + login.data.access_token } });
  steps.push('login');

  const project = await createProject({ query: { name: 'Harbour View' }, body: { namespace, enableForms: true } });
  if (!project.data) throw new Error('project: ' + (project.error?.detail ?? ''));
  const projectId = project.data._id;
  const floor = await createFloor({ query: { project: projectId, name: 'Ground' } });
  if (!floor.data) throw new Error('floor: ' + (floor.error?.detail ?? ''));
  let created = 0;
  for (const [name, price] of [['G-01', 300000], ['G-02', 450000], ['G-03', 600000]] as const) {
    const unit = await createUnit({ query: { project: projectId, name, floor: floor.data._id }, body: { price, bedrooms: '2' } });
    if (!unit.data) throw new Error('unit ' + name + ': ' + (unit.error?.detail ?? ''));
    created++;
  }
  steps.push('created ' + created);

  const list = await listUnits({ query: { project: projectId, 'filters[priceMin]': 400000, 'options[limit]': 1, 'options[sort]': '-name' } });
  if (!list.data) throw new Error('list: ' + (list.error?.detail ?? ''));
  const first = list.data[0];
  if (!first) throw new Error('empty list');
  steps.push('listed ' + first.name + ' of ' + list.response.headers.get('X-Total-Count'));

  const stale = await updateUnit({ path: { id: first._id }, headers: { 'If-Match': '"' + (first.__v + 5) + '"' }, body: { price: 1 } });
  steps.push('stale ' + stale.response.status + ' ' + (stale.error?.code ?? ''));
  const patched = await updateUnit({ path: { id: first._id }, headers: { 'If-Match': '"' + first.__v + '"' }, body: { price: 610000 } });
  if (!patched.data) throw new Error('patch: ' + (patched.error?.detail ?? ''));
  steps.push('patched ' + patched.data.price + ' v' + patched.data.__v);

  const all = await listUnits({ query: { project: projectId, 'filters[priceMax]': 500000 } });
  if (!all.data) throw new Error('all');
  const bulk = await updateUnits({ body: all.data.map((u) => ({ _id: u._id, price: (u.price ?? 0) + 1000, ifMatch: '"' + u.__v + '"' })) });
  if (!bulk.data) throw new Error('bulk: ' + (bulk.error?.detail ?? ''));
  steps.push('bulk ' + bulk.data.length);

  const lead = await submitLead({ body: { namespace, firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', phone: '+1 555 0100' } });
  if (!lead.data) throw new Error('lead: ' + (lead.error?.detail ?? ''));
  const leads = await listLeads({ query: { project: projectId, 'options[sort]': 'createdAt' } });
  if (!leads.data) throw new Error('leads');
  steps.push('leads ' + leads.data.length);
  return steps;
}
`;

const ORVAL = `
import { createFloor, createProject, createUnit, listLeads, listUnits, logIn, submitLead, updateUnit, updateUnits } from './orval/api';

export async function scenario(_baseUrl: string, username: string, password: string, namespace: string): Promise<string[]> {
  const steps: string[] = [];
  // The base URL is the document's server (PUBLIC_URL), written into the generated code.
  const login = await logIn({ username, password });
  if (login.status !== 200) throw new Error('login: ' + login.data.code);
  const auth = { headers: { Authorization: 'Bearer ' + login.data.access_token } };
  steps.push('login');

  const project = await createProject({ name: 'Harbour View' }, { namespace, enableForms: true }, undefined, auth);
  if (project.status !== 201) throw new Error('project: ' + project.data.detail);
  const projectId = project.data._id;
  const floor = await createFloor({ project: projectId, name: 'Ground' }, undefined, undefined, auth);
  if (floor.status !== 201) throw new Error('floor: ' + floor.data.detail);
  let created = 0;
  for (const [name, price] of [['G-01', 300000], ['G-02', 450000], ['G-03', 600000]] as const) {
    const unit = await createUnit({ project: projectId, name, floor: floor.data._id }, { price, bedrooms: '2' }, undefined, auth);
    if (unit.status !== 201) throw new Error('unit ' + name + ': ' + unit.data.detail);
    created++;
  }
  steps.push('created ' + created);

  const list = await listUnits({ project: projectId, 'filters[priceMin]': 400000, 'options[limit]': 1, 'options[sort]': '-name' }, auth);
  if (list.status !== 200) throw new Error('list: ' + list.data.detail);
  const first = list.data[0];
  if (!first) throw new Error('empty list');
  steps.push('listed ' + first.name + ' of ' + list.headers.get('X-Total-Count'));

  const stale = await updateUnit(first._id, { price: 1 }, { 'If-Match': '"' + (first.__v + 5) + '"' }, auth);
  steps.push('stale ' + stale.status + ' ' + (stale.status === 412 ? stale.data.code : ''));
  const patched = await updateUnit(first._id, { price: 610000 }, { 'If-Match': '"' + first.__v + '"' }, auth);
  if (patched.status !== 200) throw new Error('patch: ' + patched.data.detail);
  steps.push('patched ' + patched.data.price + ' v' + patched.data.__v);

  const all = await listUnits({ project: projectId, 'filters[priceMax]': 500000 }, auth);
  if (all.status !== 200) throw new Error('all');
  const bulk = await updateUnits(all.data.map((u) => ({ _id: u._id, price: (u.price ?? 0) + 1000, ifMatch: '"' + u.__v + '"' })), auth);
  if (bulk.status !== 200) throw new Error('bulk: ' + bulk.data.detail);
  steps.push('bulk ' + bulk.data.length);

  const lead = await submitLead({ namespace, firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', phone: '+1 555 0100' });
  if (lead.status !== 201) throw new Error('lead: ' + lead.data.detail);
  const leads = await listLeads({ project: projectId, 'options[sort]': 'createdAt' }, auth);
  if (leads.status !== 200) throw new Error('leads');
  steps.push('leads ' + leads.data.length);
  return steps;
}
`;

const OAZAPFTS = `
import * as api from './oazapfts/api';

export async function scenario(baseUrl: string, username: string, password: string, namespace: string): Promise<string[]> {
  const steps: string[] = [];
  api.defaults.baseUrl = baseUrl;
  const login = await api.logIn({ username, password });
  if (login.status !== 200) throw new Error('login: ' + login.data.code);
  api.defaults.headers = { Authorization: 'Bearer ' + login.data.access_token };
  steps.push('login');

  const project = await api.createProject('Harbour View', { namespace, enableForms: true });
  if (project.status !== 201) throw new Error('project: ' + project.data.detail);
  const projectId = project.data._id;
  const floor = await api.createFloor(projectId, 'Ground');
  if (floor.status !== 201) throw new Error('floor: ' + floor.data.detail);
  let created = 0;
  for (const [name, price] of [['G-01', 300000], ['G-02', 450000], ['G-03', 600000]] as const) {
    const unit = await api.createUnit(name, projectId, { price, bedrooms: '2' }, { floor: floor.data._id });
    if (unit.status !== 201) throw new Error('unit ' + name + ': ' + unit.data.detail);
    created++;
  }
  steps.push('created ' + created);

  const list = await api.listUnits(projectId, { filtersPriceMin: 400000, optionsLimit: 1, optionsSort: '-name' });
  if (list.status !== 200) throw new Error('list: ' + list.data.detail);
  const first = list.data[0];
  if (!first) throw new Error('empty list');
  steps.push('listed ' + first.name + ' of ' + list.headers.get('X-Total-Count'));

  const stale = await api.updateUnit(first._id, { price: 1 }, { ifMatch: '"' + (first.__v + 5) + '"' });
  steps.push('stale ' + stale.status + ' ' + (stale.status === 412 ? stale.data.code : ''));
  const patched = await api.updateUnit(first._id, { price: 610000 }, { ifMatch: '"' + first.__v + '"' });
  if (patched.status !== 200) throw new Error('patch: ' + patched.data.detail);
  steps.push('patched ' + patched.data.price + ' v' + patched.data.__v);

  const all = await api.listUnits(projectId, { filtersPriceMax: 500000 });
  if (all.status !== 200) throw new Error('all');
  const bulk = await api.updateUnits(all.data.map((u) => ({ _id: u._id, price: (u.price ?? 0) + 1000, ifMatch: '"' + u.__v + '"' })));
  if (bulk.status !== 200) throw new Error('bulk: ' + bulk.data.detail);
  steps.push('bulk ' + bulk.data.length);

  const lead = await api.submitLead({ namespace, firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', phone: '+1 555 0100' });
  if (lead.status !== 201) throw new Error('lead: ' + lead.data.detail);
  const leads = await api.listLeads({ project: projectId, optionsSort: 'createdAt' });
  if (leads.status !== 200) throw new Error('leads');
  steps.push('leads ' + leads.data.length);
  return steps;
}
`;

const SCENARIOS = { 'openapi-fetch': OPENAPI_FETCH, 'hey-api': HEY_API, orval: ORVAL, oazapfts: OAZAPFTS };

describe(`generated clients from the live document (${ENGINE})`, () => {
  let t: TestApp;
  let baseUrl: string;
  let dir: string;
  before(async () => {
    // The document's server is where this test's service listens, so clients that take their base URL from it
    // (orval writes it into the code) reach it.
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    t = await buildTestApp({ env: { PUBLIC_URL: baseUrl } });
    await t.app.listen({ port, host: '127.0.0.1' });
    dir = mkdtempSync(join(tmpdir(), 'showsuite-clients-'));
    // Generated code and the scenarios resolve their runtimes (openapi-fetch, @oazapfts/runtime) from the project's packages.
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'openapi.json'), await (await fetch(`${baseUrl}/openapi.json`)).text());
    for (const [name, source] of Object.entries(SCENARIOS)) writeFileSync(join(dir, `${name}.scenario.ts`), source);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test(
    'four generators (and swagger-typescript-api) generate from the served document; all of it compiles under strict, with the scenarios',
    { timeout: 240_000 },
    async () => {
      const document = join(dir, 'openapi.json');
      mkdirSync(join(dir, 'openapi-fetch'));
      writeFileSync(join(dir, 'openapi-fetch', 'schema.ts'), astToString(await openapiTS(pathToFileURL(document))));
      await heyApi({
        input: document,
        output: { path: join(dir, 'hey-api') },
        plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
        logs: { level: 'silent' },
      });
      // Header parameters (If-Match, Idempotency-Key) as an argument of each function; the base URL from `servers`.
      await orval({
        input: { target: document },
        output: {
          target: join(dir, 'orval', 'api.ts'),
          client: 'fetch',
          headers: true,
          baseUrl: { getBaseUrlFromSpecification: true },
          // JSON answers only: GET /units and /leads also offer CSV (and /leads XLSX), which would make every list
          // `string | Unit[]` or `Blob | Lead[]`.
          override: { contentType: { exclude: ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'] } },
        },
      });
      mkdirSync(join(dir, 'oazapfts'));
      writeFileSync(join(dir, 'oazapfts', 'api.ts'), await oazapfts(document, {}));
      await generateApi({ input: document, output: join(dir, 'sta'), fileName: 'api.ts', httpClientType: 'fetch', silent: true });

      const roots = [...Object.keys(SCENARIOS).map((name) => join(dir, `${name}.scenario.ts`)), join(dir, 'sta', 'api.ts')];
      const program = ts.createProgram(roots, {
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
      // No cast anywhere in the scenarios: every type comes from the generated code.
      for (const [name, source] of Object.entries(SCENARIOS)) {
        const code = source.replace(/^import .*$/gm, '');
        assert.doesNotMatch(code, /\bas\s+(?!const\b)[A-Za-z{[]/, `${name} scenario has no cast`);
      }
    },
  );

  for (const name of Object.keys(SCENARIOS)) {
    test(`the ${name} scenario runs against the service`, { timeout: 60_000 }, async () => {
      const user = await createUser(t.db);
      const { scenario } = (await import(pathToFileURL(join(dir, `${name}.scenario.ts`)).href)) as { scenario: Scenario };
      assert.deepEqual(await scenario(baseUrl, user.username, TEST_PASSWORD, `${name}-${user.id.slice(-8)}`), EXPECTED);
    });
  }
});
