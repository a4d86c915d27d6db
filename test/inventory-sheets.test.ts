import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { XLSX_TYPE } from '../src/modules/inventory/xlsx.ts';
import { type Caller, caller, createFloor, createProject, createUnit, type LoggedIn, type TestApp, useOwnerApp, userWithToken } from './helpers.ts';
import { zipOf } from './zip.ts';

/** Imports in the sales team's words: their column names, .xlsx workbooks (bounded), and the template that imports back unchanged. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({ env: { INVENTORY_SYNC_MINUTES: '0', INVENTORY_MAX_ROWS: '50', INVENTORY_MAX_FILE_MB: '1' } }, (f) => ({ t, owner, call } = f));

function upload(projectId: string, body: string | Buffer, type: string, query = 'dryRun=true') {
  return t.app.inject({
    method: 'POST',
    url: `/projects/${projectId}/inventory/import?${query}`,
    headers: { ...owner.auth, 'content-type': type },
    payload: body,
  });
}

/** A workbook of one sheet with these rows (the first the headers), as a person's spreadsheet program would save it. */
async function workbook(rows: unknown[][]): Promise<Buffer> {
  const { Workbook } = (await import('exceljs')).default;
  const book = new Workbook();
  const sheet = book.addWorksheet('Units');
  for (const r of rows) sheet.addRow(r);
  book.addWorksheet('Notes').addRow(['ignored: only the first sheet is read']);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** A project with two floors, units with every template field, a repeated floor name, a value that needs care in CSV. */
async function project() {
  const p = await createProject(t.app, owner.auth);
  const ground = await createFloor(t.app, owner.auth, p._id, { name: 'Ground', position: 0 });
  const first = await createFloor(t.app, owner.auth, p._id, { name: 'First', position: 1 });
  const annex = await createFloor(t.app, owner.auth, p._id, { name: 'first', position: 2 });
  await createUnit(t.app, owner.auth, p._id, {
    floor: ground._id,
    name: 'A1',
    position: 0,
    body: {
      price: 1250000,
      bedrooms: '2',
      bathrooms: 1.5,
      squareFeet: 850.125,
      type: 'Apartment',
      parking: 1,
      orientation: 'South',
      description: '=Sunny, "quiet"\ncorner home',
      availability: 'sold',
    },
  });
  await createUnit(t.app, owner.auth, p._id, { floor: ground._id, name: 'A2', position: 1, body: { price: 99.5, availability: 'reserved' } });
  await createUnit(t.app, owner.auth, p._id, { floor: first._id, name: 'B1', position: 0 });
  await createUnit(t.app, owner.auth, p._id, { floor: annex._id, name: 'B1', position: 0, body: { bedrooms: 'Studio' } });
  await createUnit(t.app, owner.auth, p._id, { name: 'Lot 9', position: 0, body: { squareFeet: 5000 } });
  return { p, ground, first, annex };
}

describe("column names in the sales team's words", () => {
  test('Name, Floor, Status, Price, Beds, Baths, Sq Ft, Type, Parking, Orientation, Description in any case are read as Unit fields', async () => {
    const p = await createProject(t.app, owner.auth);
    const file =
      'NAME;floor;Status;Price;Beds;BATHS;Sq. Ft.;type;Parking;orientation;Description;Colour\r\n' +
      'C1;Third;Sold;"$1.250.000";3;2;"1,100";Penthouse;2;North;Top floor;red\r\n';
    const res = await upload(p._id, file, 'text/csv');
    assert.equal(res.statusCode, 200, res.body);
    const answer = res.json();
    assert.deepEqual(answer.unknownColumns, ['Colour']);
    assert.deepEqual(answer.changes[0].fields, {
      name: [null, 'C1'],
      availability: [null, 'sold'],
      price: [null, 1250000],
      bedrooms: [null, '3'],
      bathrooms: [null, 2],
      squareFeet: [null, 1100],
      type: [null, 'Penthouse'],
      parking: [null, 2],
      orientation: [null, 'North'],
      description: [null, 'Top floor'],
      floor: [null, 'Third'],
    });
    for (const [header, field] of [
      ['Area', 'squareFeet'],
      ['Square Feet', 'squareFeet'],
      ['sq ft', 'squareFeet'],
      ['Bedrooms', 'bedrooms'],
      ['Bathrooms', 'bathrooms'],
    ]) {
      const one = (await upload(p._id, `Name,${header}\r\nX,3\r\n`, 'text/csv')).json();
      assert.deepEqual(one.unknownColumns, [], header);
      assert.ok(field! in one.changes[0].fields, header);
    }
    // A field name wins over a word for the same field; the second column is unknown.
    assert.deepEqual((await upload(p._id, 'availability,Status,name\r\nsold,available,X\r\n', 'text/csv')).json().unknownColumns, ['Status']);
  });
});

describe('.xlsx imports', () => {
  test('the first sheet of a workbook: numbers stay numbers, a number typed in a text column is text, rows apply as a CSV would', async () => {
    const p = await createProject(t.app, owner.auth);
    const file = await workbook([
      ['Name', 'Floor', 'Status', 'Price', 'Bedrooms', 'Area', 'Description'],
      ['D1', 'Level 4', 'Available', 1250000.5, 2, 950, 'Corner'],
      [],
      ['D2', 'Level 4', 'reserved', '$900,000', 'Studio', 400.125, { richText: [{ text: 'Two ' }, { text: 'parts' }] }],
    ]);
    const dry = await upload(p._id, file, XLSX_TYPE);
    assert.equal(dry.statusCode, 200, dry.body);
    const answer = dry.json();
    assert.deepEqual(answer.summary, { created: 2, updated: 0, unchanged: 0, kept: 0, errors: 0, skipped: 0 });
    assert.deepEqual(answer.changes[0].fields.price, [null, 1250000.5]);
    assert.deepEqual(answer.changes[0].fields.bedrooms, [null, '2']);
    assert.deepEqual(answer.changes[1].row, 2);
    assert.deepEqual(answer.changes[1].fields.squareFeet, [null, 400.125]);
    assert.deepEqual(answer.changes[1].fields.price, [null, 900000]);
    assert.deepEqual(answer.changes[1].fields.description, [null, 'Two parts']);
    const applied = await upload(p._id, file, XLSX_TYPE, '');
    assert.equal(applied.statusCode, 200, applied.body);
    const listed = (await call('GET', `/units?project=${p._id}`)).json();
    assert.deepEqual(listed.map((u: { name: string }) => u.name).sort(), ['D1', 'D2']);
  });

  test('the first tab is read even when it is stored after another sheet', async () => {
    const p = await createProject(t.app, owner.auth);
    const { Workbook } = (await import('exceljs')).default;
    const book = new Workbook();
    const notes = book.addWorksheet('Notes');
    notes.addRow(['Note']);
    notes.addRow(['not a unit']);
    const units = book.addWorksheet('Units');
    units.addRow(['Name', 'Price']);
    units.addRow(['T1', 1000]);
    // exceljs writes the tabs in `orderNo` order (not in its types).
    Object.assign(units, { orderNo: 0 });
    Object.assign(notes, { orderNo: 1 });
    const dry = await upload(p._id, Buffer.from(await book.xlsx.writeBuffer()), XLSX_TYPE);
    assert.equal(dry.statusCode, 200, dry.body);
    assert.deepEqual(
      dry.json().changes.map((c: { fields: { name: [unknown, unknown] } }) => c.fields.name[1]),
      ['T1'],
    );
  });

  test('bounds: too many rows → 413, too large → 413, a zip that inflates past the cap → 413, too many cells → 413, not a workbook → 400; nothing written', async () => {
    const p = await createProject(t.app, owner.auth);
    const many = await workbook([['Name'], ...Array.from({ length: 51 }, (_, i) => [`U${i}`])]);
    const rows = await upload(p._id, many, XLSX_TYPE, '');
    assert.equal(rows.statusCode, 413, rows.body);
    assert.equal(rows.json().code, 'too_many_rows');

    const big = await upload(p._id, Buffer.alloc(1024 * 1024 + 10, 1), XLSX_TYPE, '');
    assert.equal(big.statusCode, 413, big.body);

    // 30 MiB of zeros deflates to a few tens of kilobytes: a zip bomb well inside the byte limit.
    const bomb = zipOf('xl/worksheets/sheet1.xml', deflateRawSync(Buffer.alloc(30 * 1024 * 1024)));
    assert.ok(bomb.length < 100_000, String(bomb.length));
    const inflated = await upload(p._id, bomb, XLSX_TYPE, '');
    assert.equal(inflated.statusCode, 413, inflated.body);
    assert.match(inflated.json().detail, /inflates/);

    // A sheet of thousands of rows is refused while it inflates, before any parser holds it (rows counted as they pass).
    const rowsXml = `<worksheet><sheetData>${'<row r="1"><c><v>1</v></c></row>'.repeat(5000)}</sheetData></worksheet>`;
    const longSheet = await upload(p._id, zipOf('xl/worksheets/sheet1.xml', deflateRawSync(Buffer.from(rowsXml))), XLSX_TYPE, '');
    assert.equal(longSheet.statusCode, 413, longSheet.body);
    assert.equal(longSheet.json().code, 'too_many_rows');

    // A few rows thousands of cells wide (2 × 1,300 > 48 a row for 51 rows): refused while it inflates, as rows are.
    const wideRow = (r: number) => `<row r="${r}">${'<c t="n"><v>7</v></c>'.repeat(1300)}</row>`;
    const wideXml = `<worksheet><sheetData>${wideRow(1)}${wideRow(2)}</sheetData></worksheet>`;
    const wide = await upload(p._id, zipOf('xl/worksheets/sheet1.xml', deflateRawSync(Buffer.from(wideXml))), XLSX_TYPE, '');
    assert.equal(wide.statusCode, 413, wide.body);
    assert.equal(wide.json().code, 'payload_too_large');
    assert.match(wide.json().detail, /more than 2448 cells/);

    for (const junk of [Buffer.from('name\r\nA\r\n'), zipOf('hello.txt', deflateRawSync(Buffer.from('hi')))]) {
      const res = await upload(p._id, junk, XLSX_TYPE, '');
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().errors[0].path, '/');
    }
    assert.equal((await call('GET', `/units?project=${p._id}`)).json().length, 0);
  });
});

describe('GET /projects/{id}/inventory/template', () => {
  test('CSV: the units under the sales team’s column names, every column, floor order; a repeated floor name by its id', async () => {
    const { p, annex } = await project();
    const res = await call('GET', `/projects/${p._id}/inventory/template`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.headers['content-type'] as string, /^text\/csv/);
    assert.match(res.headers['content-disposition'] as string, /attachment; filename="units-[0-9a-f]{24}\.csv"/);
    const lines = res.body.split('\r\n');
    assert.equal(lines[0], 'Name,Floor,Status,Price,Bedrooms,Bathrooms,Area,Type,Parking,Orientation,Description');
    assert.equal(lines[1], 'Lot 9,,Available,,,,5000,,,,');
    // Formula-like text neutralised (the import reads it back), the line break kept inside the quotes.
    assert.equal(lines[2], `A1,Ground,Sold,1250000,2,1.5,850.1250,Apartment,1,South,"'=Sunny, ""quiet""\ncorner home"`);
    assert.equal(lines[3], 'A2,Ground,Reserved,99.5,,,,,,,');
    assert.equal(lines[4], 'B1,First,Available,,,,,,,,');
    assert.equal(lines[5], `B1,${annex._id},Available,,Studio,,,,,,`);
    // A blank project's template is the header row alone.
    const blank = await createProject(t.app, owner.auth);
    assert.equal((await call('GET', `/projects/${blank._id}/inventory/template`)).body, `${lines[0]}\r\n`);
  });

  test('template → import dry run shows no changes, in CSV and in XLSX; an edited template is the import file', async () => {
    const { p } = await project();
    const csv = await call('GET', `/projects/${p._id}/inventory/template`);
    const back = await upload(p._id, csv.body, 'text/csv');
    assert.equal(back.statusCode, 200, back.body);
    assert.deepEqual(back.json().summary, { created: 0, updated: 0, unchanged: 5, kept: 0, errors: 0, skipped: 0 });
    assert.deepEqual(back.json().unknownColumns, []);

    for (const asked of [`/projects/${p._id}/inventory/template?format=xlsx`, `/projects/${p._id}/inventory/template`]) {
      const xlsx = await call('GET', asked, undefined, asked.includes('format') ? {} : { accept: XLSX_TYPE });
      assert.equal(xlsx.statusCode, 200, xlsx.body);
      assert.equal(xlsx.headers['content-type'], XLSX_TYPE);
      const again = await upload(p._id, xlsx.rawPayload, XLSX_TYPE);
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(again.json().summary, { created: 0, updated: 0, unchanged: 5, kept: 0, errors: 0, skipped: 0 });
    }

    const edited = csv.body.replace('A2,Ground,Reserved,99.5', 'A2,Ground,Sold,105000');
    const diff = (await upload(p._id, edited, 'text/csv')).json();
    assert.deepEqual(diff.summary.updated, 1);
    assert.deepEqual(diff.changes.find((c: { name: string }) => c.name === 'A2').fields, { availability: ['reserved', 'sold'], price: [99.5, 105000] });
  });

  test('editors may read it; strangers 404; no token 401; a bad format 400', async () => {
    const editor = await userWithToken(t);
    const stranger = await userWithToken(t);
    const p = await createProject(t.app, owner.auth, { body: { editors: [editor.id] } });
    assert.equal((await caller(t.app, editor.auth)('GET', `/projects/${p._id}/inventory/template`)).statusCode, 200);
    assert.equal((await caller(t.app, stranger.auth)('GET', `/projects/${p._id}/inventory/template`)).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: `/projects/${p._id}/inventory/template` })).statusCode, 401);
    assert.equal((await call('GET', `/projects/${p._id}/inventory/template?format=pdf`)).statusCode, 400);
  });
});
