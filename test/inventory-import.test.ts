import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Caller, caller, createFloor, createProject, createUnit, type LoggedIn, type TestApp, TestClock, useOwnerApp, userWithToken } from './helpers.ts';

/** POST /projects/{id}/inventory/import: dry-run diff, mappings, row errors, holds, If-Match, syncs. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;
const clock = new TestClock();

useOwnerApp({ clock, env: { INVENTORY_SYNC_MINUTES: '0' } }, (f) => ({ t, owner, call } = f));

function upload(
  projectId: string,
  body: string | object,
  opts: { query?: string; type?: string; headers?: Record<string, string>; auth?: { authorization: string } } = {},
) {
  const isText = typeof body === 'string';
  return t.app.inject({
    method: 'POST',
    url: `/projects/${projectId}/inventory/import${opts.query ? `?${opts.query}` : ''}`,
    headers: { ...(opts.auth ?? owner.auth), 'content-type': opts.type ?? (isText ? 'text/csv' : 'application/json'), ...opts.headers },
    payload: isText ? body : JSON.stringify(body),
  });
}

async function tower() {
  const p = await createProject(t.app, owner.auth);
  const ground = await createFloor(t.app, owner.auth, p._id, { name: 'Ground', position: 0 });
  const first = await createFloor(t.app, owner.auth, p._id, { name: 'First', position: 1 });
  const a = await createUnit(t.app, owner.auth, p._id, { floor: ground._id, name: 'A1', position: 0, body: { price: 100000, bedrooms: '1' } });
  const b = await createUnit(t.app, owner.auth, p._id, { floor: ground._id, name: 'A2', position: 1, body: { price: 200000 } });
  const c = await createUnit(t.app, owner.auth, p._id, { floor: first._id, name: 'B1', position: 0, body: { price: 300000 } });
  return { p, ground, first, a, b, c };
}

/** Every unit of a project, page by page (the JSON list answers at most 500 at a time). */
const units = async (projectId: string) => {
  const all: Record<string, any>[] = [];
  for (;;) {
    const res = await call('GET', `/units?project=${projectId}&options[limit]=500&options[skip]=${all.length}`);
    const page = res.json() as Record<string, any>[];
    all.push(...page);
    if (page.length < 500 || all.length >= Number(res.headers['x-total-count'])) return all;
  }
};
const byName = async (projectId: string) => Object.fromEntries((await units(projectId)).map((u) => [u.name, u]));

describe('inventory import', () => {
  test('dry run shows the exact diff and changes nothing; applying with its ETag writes exactly that', async () => {
    const { p, a, b, c } = await tower();
    const before = await units(p._id);
    const file = 'name,floor,price,availability,bedrooms\r\nA1,Ground,"$1,250,000",sold,1\r\nA2,Ground,200000,available,\r\nC1,Second,"95,000",reserved,3\r\n';
    const dry = await upload(p._id, file, { query: 'dryRun=true' });
    assert.equal(dry.statusCode, 200, dry.body);
    const answer = dry.json();
    assert.equal(answer.dryRun, true);
    assert.deepEqual(answer.summary, { created: 1, updated: 1, unchanged: 1, kept: 0, errors: 0, skipped: 0 });
    assert.deepEqual(answer.changes[0], {
      row: 1,
      action: 'update',
      unit: a._id,
      name: 'A1',
      floor: 'Ground',
      fields: { price: [100000, 1250000], availability: ['available', 'sold'] },
    });
    assert.deepEqual(answer.changes[1], { row: 2, action: 'unchanged', unit: b._id, name: 'A2', floor: 'Ground', fields: {} });
    assert.deepEqual(answer.changes[2], {
      row: 3,
      action: 'create',
      unit: null,
      name: 'C1',
      floor: 'Second',
      fields: { name: [null, 'C1'], floor: [null, 'Second'], price: [null, 95000], availability: [null, 'reserved'], bedrooms: [null, '3'] },
    });
    assert.deepEqual(answer.unknownColumns, []);
    assert.match(String(dry.headers.etag), /^"inv-[A-Za-z0-9_-]+"$/);
    assert.deepEqual(await units(p._id), before, 'a dry run changes nothing');
    assert.equal((await call('GET', `/projects/${p._id}/inventory/syncs`)).json().length, 0, 'a dry run is not a sync');

    clock.advance(1000);
    const applied = await upload(p._id, file, { headers: { 'if-match': String(dry.headers.etag) } });
    assert.equal(applied.statusCode, 200, applied.body);
    assert.deepEqual(
      { ...(applied.json() as object), dryRun: true, sync: undefined },
      { ...answer, sync: undefined },
      'the applied answer is the previewed one',
    );
    const after = await byName(p._id);
    assert.equal(after.A1.price, 1250000);
    assert.equal(after.A1.availability, 'sold');
    assert.equal(after.A2.updatedAt, before.find((u) => u.name === 'A2')!.updatedAt, 'unchanged rows are not written');
    assert.equal(after.B1.price, c.price, 'units absent from the file are left alone');
    assert.equal(after.C1.price, 95000);
    assert.equal(after.C1.specificType, 'unit');
    const project = (await call('GET', `/project/${p._id}`)).json();
    const second = (await Promise.all(project.floors.map(async (id: string) => (await call('GET', `/floors/${id}`)).json()))).find(
      (f: any) => f.name === 'Second',
    );
    assert.ok(second, 'the new floor was created');
    assert.deepEqual(second.units, [after.C1._id]);
    assert.equal(project.lastSync, new Date(clock.now()).toISOString());
    const syncs = (await call('GET', `/projects/${p._id}/inventory/syncs`)).json();
    assert.equal(syncs.length, 1);
    assert.deepEqual(
      { ...syncs[0], _id: undefined },
      {
        _id: undefined,
        source: 'upload',
        status: 'applied',
        startedAt: project.lastSync,
        finishedAt: project.lastSync,
        summary: answer.summary,
        errors: [],
        user: owner.id,
      },
    );
    assert.equal(syncs[0]._id, applied.json().sync);
    const page = await call('GET', `/projects/${p._id}/inventory/syncs?options[skip]=5`);
    assert.deepEqual([page.json(), page.headers['x-total-count']], [[], '1'], 'past the last page the count stays true');
  });

  test('If-Match: a floor or unit changed since the preview → 412 and nothing written', async () => {
    const { p, b } = await tower();
    const file = 'name,price\nA1,5\n';
    const dry = await upload(p._id, file, { query: 'dryRun=true' });
    await call('PATCH', `/units/${b._id}`, { description: 'changed meanwhile' });
    const stale = await upload(p._id, file, { headers: { 'if-match': String(dry.headers.etag) } });
    assert.equal(stale.statusCode, 412, stale.body);
    assert.equal((await byName(p._id)).A1.price, 100000);
    const again = await upload(p._id, file, { query: 'dryRun=true' });
    assert.notEqual(again.headers.etag, dry.headers.etag);
    const ok = await upload(p._id, file, { headers: { 'if-match': String(again.headers.etag) } });
    assert.equal(ok.statusCode, 200, ok.body);
    await createFloor(t.app, owner.auth, p._id, { name: 'Roof' });
    assert.equal((await upload(p._id, file, { headers: { 'if-match': String(again.headers.etag) } })).statusCode, 412, 'a new floor is a change too');
  });

  test('headers through ftpMapping, statuses through yiStatusMapping read backwards, forgiving numbers, unknown columns', async () => {
    const { p } = await tower();
    await call('PATCH', `/project/${p._id}`, {
      ftpMapping: [
        { header: 'Unidad', property: 'name' },
        { header: 'Precio', property: 'price' },
        { header: 'Estado', property: 'availability' },
        { header: 'M2', property: 'squareFeet' },
      ],
      yiStatusMapping: { available: 'Disponible', sold: 'Vendido', reserved: 'Apartado' },
    });
    const file = 'Unidad,Precio,Estado,M2,Notas\nA1,"USD 1,250,000.50",VENDIDO,85 m²,x\nA2,"€ 95.000",Apartado,"1,5",y\nB1,300000,On Hold,,z\n';
    const res = await upload(p._id, file, { query: 'dryRun=true' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.unknownColumns, ['Notas']);
    assert.deepEqual(body.changes[0].fields, { price: [100000, 1250000.5], availability: ['available', 'sold'], squareFeet: [null, 85] });
    assert.deepEqual(body.changes[1].fields, { price: [200000, 95000], availability: ['available', 'reserved'], squareFeet: [null, 1.5] });
    assert.deepEqual(body.errors, [{ row: 3, column: 'Estado', message: 'on_hold is placed by a hold, not by an import (this unit is not held)' }]);
  });

  test('row errors name row and column; applying → 400 with the same answer, nothing written; skipErrors applies the rest', async () => {
    const { p } = await tower();
    const file = 'name,price,availability,isFeatured,images\nA1,111,sold,yes,"[""a.png""]"\nA2,lots,gone,maybe,[oops\n,5,,,\n';
    const dry = await upload(p._id, file, { query: 'dryRun=true' });
    assert.equal(dry.statusCode, 200);
    const errors = dry.json().errors;
    assert.deepEqual(
      errors.map((e: any) => [e.row, e.column]),
      [
        [2, 'price'],
        [2, 'availability'],
        [2, 'isFeatured'],
        [2, 'images'],
        [3, 'name'],
      ],
    );
    assert.match(errors[0].message, /"lots" is not a number/);
    const rejected = await upload(p._id, file);
    assert.equal(rejected.statusCode, 400);
    assert.match(String(rejected.headers['content-type']), /problem\+json/);
    const body = rejected.json();
    assert.equal(body.code, 'invalid_body');
    assert.deepEqual(body.summary, dry.json().summary);
    assert.deepEqual(body.changes, dry.json().changes);
    assert.deepEqual(
      body.errors.map((e: any) => e.path),
      ['/2/price', '/2/availability', '/2/isFeatured', '/2/images', '/3/name'],
    );
    assert.equal((await byName(p._id)).A1.price, 100000, 'nothing applied');
    assert.equal((await call('GET', `/projects/${p._id}/inventory/syncs`)).json().length, 0);
    const skipped = await upload(p._id, file, { query: 'skipErrors=true' });
    assert.equal(skipped.statusCode, 200, skipped.body);
    const after = await byName(p._id);
    assert.equal(after.A1.price, 111);
    assert.equal(after.A1.isFeatured, true);
    assert.deepEqual(after.A1.images, ['a.png']);
    assert.equal(after.A2.price, 200000);
    const [sync] = (await call('GET', `/projects/${p._id}/inventory/syncs`)).json();
    assert.equal(sync.status, 'applied');
    assert.equal(sync.errors.length, 5);
  });

  test('a unit held right now keeps its availability, its other fields apply, and the row is listed in kept', async () => {
    const { p, a } = await tower();
    await call('PATCH', `/project/${p._id}`, { onHoldExperienceEnabled: true });
    const hold = await t.app.inject({
      method: 'POST',
      url: `/public/units/${a._id}/hold`,
      payload: { firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', phone: '+34 600 000 000' },
    });
    assert.equal(hold.statusCode, 200, hold.body);
    const file = 'name,availability,price\nA1,sold,123\nA2,sold,\n';
    const res = await upload(p._id, file);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().kept, [{ row: 1, unit: a._id, name: 'A1' }]);
    assert.deepEqual(res.json().changes[0].fields, { price: [100000, 123] });
    const after = await byName(p._id);
    assert.equal(after.A1.availability, 'on_hold');
    assert.ok(after.A1.onHoldExpiresAt);
    assert.equal(after.A1.price, 123);
    assert.equal(after.A2.availability, 'sold');
    clock.advance(60 * 60 * 1000);
    const later = await upload(p._id, file, { query: 'dryRun=true' });
    assert.deepEqual(later.json().kept, [], 'a lapsed hold is not kept');
    assert.deepEqual(later.json().changes[0].fields, { availability: ['available', 'sold'] });
  });

  test('a unit the import makes available goes to its waiting list first (priority list): held for the first in rank, who is mailed', async () => {
    const { p, a } = await tower();
    const on = { waitlistEnabled: true, onHoldExperienceEnabled: true, priorityList: true };
    assert.equal((await call('PATCH', `/project/${p._id}`, on)).statusCode, 200);
    assert.equal((await call('PATCH', `/units/${a._id}`, { availability: 'sold' })).statusCode, 200);
    const joined = await t.app.inject({
      method: 'POST',
      url: '/public/waitlist',
      payload: { project: p._id, firstName: 'Wren', lastName: 'Waiting', email: 'wren@example.com', unit: a._id },
      remoteAddress: '192.0.2.77',
    });
    assert.equal(joined.statusCode, 201, joined.body);
    const res = await upload(p._id, 'name,availability\nA1,available\n');
    assert.equal(res.statusCode, 200, res.body);
    const after = await byName(p._id);
    assert.equal(after.A1.availability, 'on_hold', 'held for the person waiting, not open to everyone');
    const [entry] = (await call('GET', `/units/${a._id}/waitlist`)).json();
    assert.ok(entry.offeredAt, 'the entry is offered (spent)');
    const jobs = await t.app.outbox.jobs('mail');
    assert.ok(jobs.length >= 1);
  });

  test('a semicolon-separated, BOM-prefixed UTF-8 spreadsheet export with accented names and decimal commas', async () => {
    const p = await createProject(t.app, owner.auth);
    const file =
      '\uFEFFname;floor;price;squareFeet;description;availability\r\n' +
      'Ático 1;Planta Baja;1.250.000,00 €;85,5;"Vista al mar; terraza";Disponible\r\n' +
      'Dúplex Ñandú;Planta Baja;"990.000";120;Señorial;reserved\r\n' +
      'Estudio Øresund;Piso 1º;"75.500,50";40;"Línea ""uno""";SOLD\r\n';
    await call('PATCH', `/project/${p._id}`, { yiStatusMapping: { available: 'Disponible' } });
    const res = await upload(p._id, Buffer.from(file, 'utf8').toString('utf8'), { type: 'text/csv; charset=utf-8' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().summary, { created: 3, updated: 0, unchanged: 0, kept: 0, errors: 0, skipped: 0 });
    const after = await byName(p._id);
    assert.deepEqual(Object.keys(after).sort(), ['Dúplex Ñandú', 'Estudio Øresund', 'Ático 1']);
    assert.equal(after['Ático 1'].price, 1250000);
    assert.equal(after['Ático 1'].squareFeet, 85.5);
    assert.equal(after['Ático 1'].description, 'Vista al mar; terraza');
    assert.equal(after['Dúplex Ñandú'].availability, 'reserved');
    assert.equal(after['Estudio Øresund'].price, 75500.5);
    assert.equal(after['Estudio Øresund'].description, 'Línea "uno"');
    assert.equal(after['Ático 1'].floor, after['Dúplex Ñandú'].floor, 'one new floor for both rows');
    const floor = (await call('GET', `/floors/${after['Estudio Øresund'].floor}`)).json();
    assert.equal(floor.name, 'Piso 1º');
    const again = await upload(p._id, file, { query: 'dryRun=true' });
    assert.deepEqual(
      again.json().summary,
      { created: 0, updated: 0, unchanged: 3, kept: 0, errors: 0, skipped: 0 },
      'importing the same file again changes nothing',
    );
  });

  test('tab-separated files and JSON rows; an exported CSV imports back as unchanged', async () => {
    const { p } = await tower();
    const tsv = await upload(p._id, 'name\tprice\nA1\t7\n', { type: 'text/tab-separated-values' });
    assert.equal(tsv.statusCode, 200, tsv.body);
    const json = await upload(p._id, {
      rows: [
        { name: 'A2', price: 8, isFeatured: true, images: ['x.png'] },
        { name: 'B1', price: '9,000' },
      ],
    });
    assert.equal(json.statusCode, 200, json.body);
    const after = await byName(p._id);
    assert.deepEqual([after.A1.price, after.A2.price, after.A2.isFeatured, after.A2.images, after.B1.price], [7, 8, true, ['x.png'], 9000]);
    await call('PATCH', `/units/${after.A1._id}`, { description: '=SUM(1)', additionalInfo: [{ label: 'View', value: 'Sea' }] });
    const csv = (await call('GET', `/units?project=${p._id}&format=csv`)).body;
    const back = await upload(p._id, csv, { query: 'dryRun=true' });
    assert.equal(back.statusCode, 200, back.body);
    assert.deepEqual(back.json().unknownColumns, []);
    assert.deepEqual(back.json().summary, { created: 0, updated: 0, unchanged: 3, kept: 0, errors: 0, skipped: 0 }, JSON.stringify(back.json().changes));
  });

  test('names repeated across floors need a floor (by name or id); _id names a unit directly; the same unit twice is an error', async () => {
    const { p, ground, first } = await tower();
    await createUnit(t.app, owner.auth, p._id, { floor: first._id, name: 'A1' });
    const ambiguous = await upload(p._id, 'name,price\nA1,1\n', { query: 'dryRun=true' });
    assert.deepEqual(
      ambiguous.json().errors.map((e: any) => [e.row, e.column]),
      [[1, 'name']],
    );
    const withFloor = await upload(p._id, `name,floor,price\nA1,${ground._id},1\nA1,first,2\n`, { query: 'dryRun=true' });
    assert.deepEqual(withFloor.json().errors, []);
    assert.deepEqual(
      withFloor.json().changes.map((c: any) => [c.action, c.floor, c.fields.price?.[1]]),
      [
        ['update', 'Ground', 1],
        ['update', 'First', 2],
      ],
    );
    const units1 = await byName(p._id);
    const byId = await upload(p._id, `_id,name,floor\n${units1.B1._id},B1 renamed,Ground\n${units1.B1._id},again,\n0123456789abcdef01234567,x,\n`, {
      query: 'dryRun=true',
    });
    const b = byId.json();
    assert.deepEqual(b.changes[0].fields, { name: ['B1', 'B1 renamed'], floor: ['First', 'Ground'] });
    assert.deepEqual(
      b.errors.map((e: any) => [e.row, e.column]),
      [
        [2, '_id'],
        [3, '_id'],
      ],
    );
  });

  test('editors → 403, strangers → 404, wrong media type → 415, unreadable CSV → 400', async () => {
    const { p } = await tower();
    const editor = await userWithToken(t);
    await call('PATCH', `/project/${p._id}`, { editors: [editor.id] });
    assert.equal((await upload(p._id, 'name\nA1\n', { auth: editor.auth })).statusCode, 403);
    assert.equal((await caller(t.app, editor.auth)('GET', `/projects/${p._id}/inventory/syncs`)).statusCode, 200, 'editors may read the sync list');
    const stranger = await userWithToken(t);
    assert.equal((await upload(p._id, 'name\nA1\n', { auth: stranger.auth })).statusCode, 404);
    assert.equal((await caller(t.app, stranger.auth)('GET', `/projects/${p._id}/inventory/syncs`)).statusCode, 404);
    assert.equal((await upload(p._id, 'name\nA1\n', { type: 'application/xml' })).statusCode, 415);
    const broken = await upload(p._id, 'name,price\n"A1,5\n');
    assert.equal(broken.statusCode, 400);
    assert.equal(broken.json().code, 'invalid_body');
    assert.equal((await upload(p._id, { rows: 'nope' })).statusCode, 400);
  });

  test('no body and no content type → 400 problem naming the missing body, not 500 (found by the fuzzer)', async () => {
    const { p } = await tower();
    for (const payload of [undefined, '']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/projects/${p._id}/inventory/import`,
        headers: owner.auth,
        ...(payload === undefined ? {} : { payload }),
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.json().code, 'invalid_body');
      assert.deepEqual(res.json().errors, [{ path: '/', message: 'is required' }]);
    }
  });

  test('a 5,000-row file: created in one import, then a dry run of changed prices diffs every row', async () => {
    const p = await createProject(t.app, owner.auth);
    const line = (i: number, price: number) =>
      [
        `U${String(i).padStart(4, '0')}`,
        `Level ${Math.floor(i / 250)}`,
        `"$${price.toLocaleString('en-US')}"`,
        i % 7 === 0 ? 'sold' : 'available',
        1 + (i % 4),
        50 + (i % 90),
      ].join(',');
    const header = 'name,floor,price,availability,bedrooms,squareFeet\n';
    const first = header + Array.from({ length: 5000 }, (_, i) => line(i, 100000 + i)).join('\n');
    const created = await upload(p._id, first);
    assert.equal(created.statusCode, 200);
    assert.deepEqual(created.json().summary, { created: 5000, updated: 0, unchanged: 0, kept: 0, errors: 0, skipped: 0 });
    assert.equal((await call('GET', `/project/${p._id}`)).json().floors.length, 20);
    const second = header + Array.from({ length: 5000 }, (_, i) => line(i, i % 2 ? 200000 + i : 100000 + i)).join('\n');
    const dry = await upload(p._id, second, { query: 'dryRun=true' });
    assert.deepEqual(dry.json().summary, { created: 0, updated: 2500, unchanged: 2500, kept: 0, errors: 0, skipped: 0 });
    assert.deepEqual(dry.json().changes[1].fields, { price: [100001, 200001] });
    const applied = await upload(p._id, second, { headers: { 'if-match': String(dry.headers.etag) } });
    assert.equal(applied.statusCode, 200);
    const all = await units(p._id);
    assert.equal(all.length, 5000);
    assert.equal(all.filter((u) => u.price >= 200000).length, 2500);
  });
});

describe('inventory import in the change log', () => {
  const events = async (projectId: string, after = 0) => {
    const res = await call('GET', `/projects/${projectId}/events?after=${after}&limit=1000`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as any[];
  };
  const lastSeq = async (projectId: string) => (await events(projectId)).at(-1)?.seq ?? 0;

  test('an applied upload appends each floor and unit it wrote, then inventory.imported; actor the user; seqs contiguous', async () => {
    const { p, ground, first, a, c } = await tower();
    const start = await lastSeq(p._id);
    const version = async () => Number(String((await call('GET', `/project/${p._id}`)).headers.etag).replace(/"/g, ''));
    const before = await version();
    const res = await upload(p._id, {
      rows: [
        { name: 'A1', floor: 'Ground', price: 120000, availability: 'sold' },
        { name: 'A2', price: 200000 },
        { name: 'C1', floor: 'Second', price: 95000, availability: 'reserved' },
        { _id: c._id, floor: 'Ground' },
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    const log = await events(p._id, start);
    assert.deepEqual(
      log.map((e) => [e.seq, e.type]),
      [
        [start + 1, 'floor.created'],
        [start + 2, 'unit.created'],
        [start + 3, 'unit.updated'],
        [start + 4, 'unit.updated'],
        [start + 5, 'inventory.imported'],
      ],
    );
    for (const e of log) assert.deepEqual(e.actor, { kind: 'user', id: owner.id });
    const units = await byName(p._id);
    const second = log[0].data._id;
    assert.deepEqual(log[0].data.changes, { name: [null, 'Second'], position: [null, 2] });
    assert.equal(log[1].data._id, units.C1._id);
    assert.deepEqual(log[1].data.changes, {
      specificType: [null, 'unit'],
      customButtonUrl: [null, ''],
      customButtonSnippet: [null, ''],
      price: [null, 95000],
      name: [null, 'C1'],
      position: [null, 0],
      floor: [null, second],
      availability: [null, 'reserved'],
    });
    const [sync] = (await call('GET', `/projects/${p._id}/inventory/syncs`)).json();
    // The floors and units an import wrote share its sync record's id as their batch (what an undo reads).
    assert.deepEqual(log[2].data, { _id: a._id, batch: sync._id, changes: { price: [100000, 120000], availability: ['available', 'sold'] } });
    assert.deepEqual(log[3].data, { _id: c._id, batch: sync._id, changes: { floor: [first._id, ground._id] } });
    assert.equal(log[0].data.batch, sync._id);
    assert.deepEqual(log[4].data, {
      _id: sync._id,
      changes: {
        source: [null, 'upload'],
        status: [null, 'applied'],
        startedAt: [null, sync.startedAt],
        finishedAt: [null, sync.finishedAt],
        summary: [null, res.json().summary],
      },
    });
    assert.equal(await version(), before + 1, 'the project version (ETag) moves once, for lastSync, as before');
    // The unit's history shows the import's change.
    const history = (await call('GET', `/units/${a._id}/history`)).json();
    assert.deepEqual(history[0].changes, { price: [100000, 120000], availability: ['available', 'sold'] });
  });

  test('a dry run, a refused file (row errors), a stale If-Match append nothing; skipErrors appends for the rows applied', async () => {
    const { p, a, b } = await tower();
    const start = await lastSeq(p._id);
    const file = 'name,price\nA1,111\nA2,lots\n';
    const dry = await upload(p._id, file, { query: 'dryRun=true' });
    assert.equal(dry.statusCode, 200, dry.body);
    assert.equal((await upload(p._id, file)).statusCode, 400);
    await call('PATCH', `/units/${b._id}`, { description: 'changed meanwhile' });
    const stale = await upload(p._id, 'name,price\nA1,111\n', { headers: { 'if-match': String(dry.headers.etag) } });
    assert.equal(stale.statusCode, 412, stale.body);
    assert.deepEqual(
      (await events(p._id, start)).map((e) => e.type),
      ['unit.updated'],
      'only the PATCH',
    );
    const skipped = await upload(p._id, file, { query: 'skipErrors=true' });
    assert.equal(skipped.statusCode, 200, skipped.body);
    const log = await events(p._id, start + 1);
    assert.deepEqual(
      log.map((e) => [e.seq, e.type, e.data._id]),
      [
        [start + 2, 'unit.updated', a._id],
        [start + 3, 'inventory.imported', skipped.json().sync],
      ],
    );
    assert.equal(log[1].data.changes.summary[1].errors, 1);
  });
});
