import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { LeadSchema } from '../src/modules/leads/leads.schemas.ts';
import { UnitSchema } from '../src/modules/units/units.schemas.ts';
import { type Caller, caller, createFloor, createProject, createUnit, type LoggedIn, type TestApp, useOwnerApp, userWithToken } from './helpers.ts';

/** CSV out: GET /units and GET /leads with Accept: text/csv or format=csv. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({ env: { INVENTORY_SYNC_MINUTES: '0' } }, (f) => ({ t, owner, call } = f));

const rowsOf = (text: string) => parse(text, { columns: true, bom: true }) as Record<string, string>[];

describe('CSV export', () => {
  test('units as RFC 4180 CSV: CRLF rows, quoting, arrays as JSON, attachment, same content as the JSON list', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id, { name: 'Ground' });
    await createUnit(t.app, owner.auth, p._id, {
      floor: f._id,
      name: 'A, "the big one"',
      body: {
        price: 1250000,
        description: 'Line one\nline two',
        images: ['a.png', 'b.png'],
        additionalInfo: [{ label: 'View', value: 'Sea' }],
        lon: -73.98,
        isFeatured: true,
      },
    });
    await createUnit(t.app, owner.auth, p._id, { floor: f._id, name: 'B', position: 1, body: { bedrooms: '2' } });
    const res = await call('GET', `/units?project=${p._id}`, undefined, { accept: 'text/csv' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="units-[0-9a-f]{24}\.csv"$/);
    assert.ok(res.body.includes('\r\n'), 'CRLF line ends');
    assert.ok(res.body.includes('"A, ""the big one"""'), 'comma and quotes quoted, quotes doubled');
    assert.ok(res.body.includes('"Line one\nline two"'), 'line breaks quoted');
    const json = (await call('GET', `/units?project=${p._id}`)).json() as Record<string, unknown>[];
    const rows = rowsOf(res.body);
    assert.equal(rows.length, 2);
    const header = res.body.split('\r\n')[0]!.split(',');
    const order = Object.keys(UnitSchema.properties);
    assert.deepEqual(
      header,
      order.filter((k) => header.includes(k)),
      'columns in the record schema order',
    );
    for (const [i, unit] of json.entries()) {
      for (const [k, v] of Object.entries(unit)) {
        const expected = typeof v === 'object' ? JSON.stringify(v) : String(v);
        assert.equal(rows[i]![k], expected, `${k} of unit ${i}`);
      }
    }
    assert.equal(rows[0]!.lon, '-73.98', 'a negative number is not a formula: left as it is');
    assert.equal(rows[1]!.price, '', 'a field a unit lacks is an empty cell');
    const viaFormat = await call('GET', `/units?project=${p._id}&format=csv`);
    assert.equal(viaFormat.body, res.body);
  });

  test('cells starting with = + - @ (text) are prefixed with an apostrophe', async () => {
    const p = await createProject(t.app, owner.auth);
    const evil = ['=HYPERLINK("http://evil.example","x")', '+1+2', '-2+3', '@SUM(A1)', '\tTab'];
    for (const [i, description] of evil.entries()) await createUnit(t.app, owner.auth, p._id, { name: `U${i}`, position: i, body: { description } });
    await createUnit(t.app, owner.auth, p._id, { name: '=cmd|calc', position: 9 });
    const rows = rowsOf((await call('GET', `/units?project=${p._id}&format=csv`)).body);
    assert.deepEqual(
      rows.slice(0, evil.length).map((r) => r.description),
      evil.map((e) => `'${e}`),
    );
    assert.equal(rows.at(-1)!.name, "'=cmd|calc");
  });

  test('Accept negotiation: JSON by default, on a tie, or when preferred; CSV when preferred', async () => {
    const p = await createProject(t.app, owner.auth);
    await createUnit(t.app, owner.auth, p._id);
    const type = async (accept?: string, query = '') =>
      String((await call('GET', `/units?project=${p._id}${query}`, undefined, accept ? { accept } : {})).headers['content-type']);
    assert.match(await type(), /json/);
    assert.match(await type('application/json'), /json/);
    assert.match(await type('*/*'), /json/);
    assert.match(await type('text/csv;q=0.5, application/json'), /json/);
    assert.match(await type('application/json;q=0.5, text/csv'), /csv/);
    assert.match(await type('text/csv, */*;q=0.1'), /csv/);
    assert.match(await type('text/csv', '&format=json'), /json/);
    assert.equal((await call('GET', `/units?project=${p._id}&format=xml`)).statusCode, 400);
  });

  test('leads as CSV: owner and administrators only, every lead (not just the first page), only Lead fields', async () => {
    const p = await createProject(t.app, owner.auth, { body: { enableForms: true } });
    for (let i = 0; i < 105; i++) {
      await t.db.kysely
        .insertInto('leads')
        .values({
          id: `${(0x100000 + i).toString(16)}${'0'.repeat(18)}`,
          project_id: p._id,
          data: JSON.stringify({
            firstName: `Ana ${i}`,
            lastName: 'Núñez',
            email: `a${i}@example.com`,
            message: '=1+1',
            questions: [{ question: 'Q', answer: 'A' }],
          }),
        })
        .execute();
    }
    const res = await call('GET', `/leads?project=${p._id}`, undefined, { accept: 'text/csv' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="leads-/);
    const rows = rowsOf(res.body);
    assert.equal(rows.length, 105);
    const header = Object.keys(rows[0]!);
    assert.ok(
      header.every((h) => h in LeadSchema.properties),
      `only Lead fields: ${header}`,
    );
    assert.equal(rows[0]!.lastName, 'Núñez');
    assert.equal(rows[0]!.message, "'=1+1");
    assert.deepEqual(JSON.parse(rows[0]!.questions!), [{ question: 'Q', answer: 'A' }]);
    const paged = rowsOf((await call('GET', `/leads?project=${p._id}&format=csv&options[limit]=10`)).body);
    assert.equal(paged.length, 10, 'an explicit page is honoured');
    const editor = await userWithToken(t);
    await call('PATCH', `/project/${p._id}`, { editors: [editor.id] });
    assert.equal((await caller(t.app, editor.auth)('GET', `/leads?project=${p._id}&format=csv`)).statusCode, 403);
    const stranger = await userWithToken(t);
    assert.equal((await caller(t.app, stranger.auth)('GET', `/units?project=${p._id}&format=csv`)).statusCode, 404);
  });
});

describe('OpenAPI for the inventory routes', () => {
  test('documents the CSV media types, the bulk PATCH, the import body and answer, the feed and the sync list', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['/units', '/leads']) {
      const ok = doc.paths[path].get.responses['200'].content;
      assert.ok(ok['application/json'] && ok['text/csv'], `${path}: JSON and CSV`);
      assert.equal(ok['text/csv'].schema.type, 'string');
    }
    const bulk = doc.paths['/units'].patch;
    assert.equal(bulk.requestBody.content['application/json'].schema.maxItems, 1000);
    assert.ok(bulk.responses['412']);
    const imp = doc.paths['/projects/{id}/inventory/import'].post;
    assert.deepEqual(Object.keys(imp.requestBody.content).sort(), [
      'application/json',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'text/csv',
    ]);
    assert.ok(imp.responses['200'].headers.ETag);
    assert.match(JSON.stringify(imp.responses['200'].content['application/json'].schema), /InventoryImport/);
    // Shared parameters (If-Match) are references to components.parameters.
    const params: { name: string; in: string }[] = imp.parameters.map((p: { $ref?: string }) =>
      p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!] : p,
    );
    assert.ok(['dryRun', 'skipErrors'].every((q) => params.some((p) => p.name === q)));
    assert.ok(params.some((p) => p.name.toLowerCase() === 'if-match' && p.in === 'header'));
    const answer = doc.components.schemas.InventoryImport;
    assert.deepEqual(Object.keys(answer.properties).sort(), ['changes', 'dryRun', 'errors', 'kept', 'summary', 'sync', 'truncated', 'unknownColumns']);
    assert.ok(doc.paths['/projects/{id}/inventory/sync'].post.responses['502']);
    assert.ok(doc.paths['/projects/{id}/inventory/syncs'].get.responses['200']);
  });
});
