import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertLead } from '../src/modules/leads/leads.repo.ts';
import { XLSX_TYPE } from '../src/modules/inventory/xlsx.ts';
import { type Caller, caller, createProject, type LoggedIn, type TestApp, useOwnerApp, userWithToken } from './helpers.ts';

/** Leads as a sales team works them: status, notes, assignee (PATCH, If-Match, change log), the inbox across projects with filters, CSV and XLSX. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({}, (f) => ({ t, owner, call } = f));

const names = (res: { json(): any }) => res.json().map((l: { firstName: string }) => l.firstName);
const BASE = Date.UTC(2031, 2, 1, 12, 0, 0);

/** A project with an administrator and an editor, and its leads. */
async function team() {
  const [administrator, editor] = [await userWithToken(t), await userWithToken(t)];
  const p = await createProject(t.app, owner.auth, { body: { administrators: [administrator.id], editors: [editor.id] } });
  return { p, administrator, editor };
}

async function lead(projectId: string, data: Record<string, unknown>, minutes = 0) {
  const row = await insertLead(t.db.kysely, {
    id: newObjectId(),
    projectId,
    data: { email: 'x@example.com', source: 'presentation', ...data },
    createdAt: new Date(BASE + minutes * 60_000),
  });
  return row.id;
}

describe('PATCH /leads/{id}', () => {
  test('a new lead is status new, unassigned, without notes; the owner and an administrator set status, notes and assignee; ETag and __v move', async () => {
    const { p, administrator, editor } = await team();
    const id = await lead(p._id, { firstName: 'Ana', lastName: 'Ruiz' });
    const [fresh] = (await call('GET', `/leads?project=${p._id}`)).json();
    assert.deepEqual([fresh.status, fresh.notes, fresh.assignee, fresh.__v], ['new', null, null, 1]);

    const res = await call('PATCH', `/leads/${id}`, { status: 'contacted', notes: 'Called Tuesday; wants a 2-bed', assignee: editor.id });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers.etag, '"2"');
    const body = res.json();
    assert.deepEqual([body.status, body.notes, body.assignee, body.__v, body.firstName], ['contacted', 'Called Tuesday; wants a 2-bed', editor.id, 2, 'Ana']);
    assert.notEqual(body.updatedAt, fresh.updatedAt);

    const byAdmin = await caller(t.app, administrator.auth)('PATCH', `/leads/${id}`, { status: 'qualified', assignee: null, notes: null });
    assert.equal(byAdmin.statusCode, 200, byAdmin.body);
    assert.deepEqual([byAdmin.json().status, byAdmin.json().assignee, byAdmin.json().notes], ['qualified', null, null]);
    // Sending the same values again is no change.
    const same = await call('PATCH', `/leads/${id}`, { status: 'qualified' });
    assert.equal(same.json().__v, 3);
  });

  test('editors → 403, strangers and unknown ids → 404, no token → 401; the visitor’s fields and bad values → 400 naming the field', async () => {
    const { p, editor } = await team();
    const id = await lead(p._id, { firstName: 'Ben' });
    const stranger = await userWithToken(t);
    const ed = await caller(t.app, editor.auth)('PATCH', `/leads/${id}`, { status: 'lost' });
    assert.equal(ed.statusCode, 403);
    assert.equal((await caller(t.app, stranger.auth)('PATCH', `/leads/${id}`, { status: 'lost' })).statusCode, 404);
    assert.equal((await call('PATCH', `/leads/${newObjectId()}`, { status: 'lost' })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'PATCH', url: `/leads/${id}`, payload: { status: 'lost' } })).statusCode, 401);
    for (const [body, path] of [
      [{ firstName: 'Changed' }, '/firstName'],
      [{ status: 'won' }, '/status'],
      [{ assignee: 'nope' }, '/assignee'],
      [{ notes: 'x'.repeat(20_001) }, '/notes'],
      [{ assignee: stranger.id }, '/assignee'],
    ] as const) {
      const res = await call('PATCH', `/leads/${id}`, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.ok(
        res.json().errors.some((e: { path: string }) => e.path === path),
        `${JSON.stringify(body)}: ${res.body}`,
      );
    }
    const [unchanged] = (await call('GET', `/leads?project=${p._id}`)).json();
    assert.deepEqual([unchanged.status, unchanged.firstName, unchanged.__v], ['new', 'Ben', 1]);
  });

  test('If-Match: the current ETag writes, a stale one → 412 and nothing changes', async () => {
    const { p } = await team();
    const id = await lead(p._id, { firstName: 'Cy' });
    const first = await call('PATCH', `/leads/${id}`, { status: 'contacted' }, { 'if-match': '"1"' });
    assert.equal(first.statusCode, 200, first.body);
    const stale = await call('PATCH', `/leads/${id}`, { status: 'lost' }, { 'if-match': '"1"' });
    assert.equal(stale.statusCode, 412);
    assert.equal((await call('GET', `/leads?project=${p._id}`)).json()[0].status, 'contacted');
  });

  test('each change appends lead.updated with before and after, seen by the owner and administrators only', async () => {
    const { p, editor } = await team();
    const id = await lead(p._id, { firstName: 'Di' });
    await call('PATCH', `/leads/${id}`, { status: 'contacted', assignee: owner.id });
    const events = (await call('GET', `/projects/${p._id}/events`)).json();
    const updated = events.find((e: { type: string }) => e.type === 'lead.updated');
    assert.ok(updated, JSON.stringify(events));
    assert.deepEqual(updated.data, { _id: id, changes: { status: ['new', 'contacted'], assignee: [null, owner.id] } });
    assert.deepEqual(updated.actor, { kind: 'user', id: owner.id });
    const seenByEditor = (await caller(t.app, editor.auth)('GET', `/projects/${p._id}/events`)).json();
    assert.ok(!seenByEditor.some((e: { type: string }) => e.type.startsWith('lead.')));
  });
});

describe('GET /leads: the inbox', () => {
  test('without project: the leads of every project whose leads the caller may read, newest first, with X-Total-Count', async () => {
    const me = await userWithToken(t);
    const mine = await createProject(t.app, me.auth);
    const administered = await createProject(t.app, owner.auth, { body: { administrators: [me.id] } });
    const edited = await createProject(t.app, owner.auth, { body: { editors: [me.id] } });
    const foreign = await createProject(t.app, owner.auth);
    await lead(mine._id, { firstName: 'Mine' }, 1);
    await lead(administered._id, { firstName: 'Administered' }, 3);
    await lead(edited._id, { firstName: 'Edited' }, 2);
    await lead(foreign._id, { firstName: 'Foreign' }, 4);
    const res = await caller(t.app, me.auth)('GET', '/leads');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(names(res), ['Administered', 'Mine']);
    assert.equal(res.headers['x-total-count'], '2');
    const paged = await caller(t.app, me.auth)('GET', '/leads?options[limit]=1&options[skip]=1');
    assert.deepEqual(names(paged), ['Mine']);
    assert.equal(paged.headers['x-total-count'], '2');
    // A platform administrator's inbox holds every project's leads.
    const admin = await userWithToken(t, { role: 'admin' });
    const all = names(await caller(t.app, admin.auth)('GET', '/leads?options[limit]=500'));
    for (const n of ['Mine', 'Administered', 'Edited', 'Foreign']) assert.ok(all.includes(n), n);
  });

  test('filters: q over name, e-mail and phone in any case (LIKE characters literal), status, unit, source, assignee, created range', async () => {
    const { p } = await team();
    const ana = await lead(p._id, { firstName: 'Ana', lastName: 'Ruiz', email: 'ana.ruiz@example.com', phone: '+1 555 0101', unit: 'A1', source: 'hold' }, 0);
    await lead(p._id, { firstName: 'Bo', lastName: 'Chen', email: 'bo_chen@mail.test', phone: '+44 20 7946 0000', unit: 'B2', source: 'presentation' }, 60);
    await lead(p._id, { firstName: 'Cleo', lastName: '100% Sure', email: 'cleo@example.com', source: 'waitlist' }, 24 * 60);
    await call('PATCH', `/leads/${ana}`, { status: 'qualified', assignee: owner.id });
    const q = async (query: string) => names(await call('GET', `/leads?project=${p._id}&${query}`));
    assert.deepEqual(await q('filters[q]=RUIZ'), ['Ana']);
    assert.deepEqual(await q('filters[q]=ana ruiz'), ['Ana']);
    assert.deepEqual(await q('filters[q]=mail.test'), ['Bo']);
    assert.deepEqual(await q('filters[q]=7946'), ['Bo']);
    assert.deepEqual(await q(`filters[q]=${encodeURIComponent('%')}`), ['Cleo']);
    assert.deepEqual(await q(`filters[q]=${encodeURIComponent('_')}`), ['Bo']);
    assert.deepEqual(await q(`filters[q]=${encodeURIComponent('\\')}`), []);
    assert.deepEqual(await q('filters[status]=qualified'), ['Ana']);
    assert.deepEqual(await q('filters[status]=new'), ['Cleo', 'Bo']);
    assert.deepEqual(await q('filters[unit]=B2'), ['Bo']);
    assert.deepEqual(await q('filters[source]=waitlist'), ['Cleo']);
    assert.deepEqual(await q(`filters[assignee]=${owner.id}`), ['Ana']);
    const hour = new Date(BASE + 60 * 60_000).toISOString();
    assert.deepEqual(await q(`filters[createdFrom]=${hour}`), ['Cleo', 'Bo']);
    assert.deepEqual(await q(`filters[createdTo]=${hour}`), ['Bo', 'Ana']);
    // A date covers its whole day (UTC).
    assert.deepEqual(await q('filters[createdFrom]=2031-03-02'), ['Cleo']);
    assert.deepEqual(await q('filters[createdTo]=2031-03-01'), ['Bo', 'Ana']);
    assert.deepEqual(await q(`filters[status]=new&filters[q]=example.com`), ['Cleo']);
    for (const bad of [
      'filters[status]=won',
      'filters[createdFrom]=yesterday',
      'filters[q]=' + 'x'.repeat(201),
      'filters[colour]=red',
      'filters[assignee]=me',
    ]) {
      const res = await call('GET', `/leads?project=${p._id}&${bad}`);
      assert.equal(res.statusCode, 400, bad);
    }
  });

  test('the filtered view as CSV (Accept or format=csv) and as XLSX (Accept or format=xlsx), the sales team’s fields included', async () => {
    const { p } = await team();
    const id = await lead(p._id, { firstName: 'Eve', lastName: 'Stone', unit: 'C3' }, 0);
    await lead(p._id, { firstName: 'Finn', lastName: 'Moss', unit: 'D4' }, 1);
    await call('PATCH', `/leads/${id}`, { status: 'contacted', notes: '=cmd|calc' });
    const csv = await call('GET', `/leads?project=${p._id}&filters[unit]=C3`, undefined, { accept: 'text/csv' });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.match(csv.headers['content-type'] as string, /^text\/csv/);
    const [head, row, ...rest] = csv.body.trim().split('\r\n');
    assert.equal(rest.length, 0);
    assert.ok(head?.split(',').includes('status') && head.split(',').includes('notes') && head.split(',').includes('assignee'), head);
    assert.match(row ?? '', /Eve/);
    assert.match(row ?? '', /contacted/);
    assert.match(row ?? '', /'=cmd\|calc/);
    assert.equal((await call('GET', `/leads?project=${p._id}&format=csv&filters[unit]=D4`)).body.includes('Finn'), true);

    const asks: { url: string; headers: Record<string, string> }[] = [
      { url: `/leads?project=${p._id}&format=xlsx&filters[unit]=C3`, headers: {} },
      { url: `/leads?project=${p._id}&filters[unit]=C3`, headers: { accept: XLSX_TYPE } },
    ];
    for (const asked of asks) {
      const xlsx = await call('GET', asked.url, undefined, asked.headers);
      assert.equal(xlsx.statusCode, 200, xlsx.body);
      assert.equal(xlsx.headers['content-type'], XLSX_TYPE);
      assert.match(xlsx.headers['content-disposition'] as string, /attachment; filename="leads-[0-9a-f]{24}\.xlsx"/);
      const { Workbook } = (await import('exceljs')).default;
      const book = new Workbook();
      await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
      const sheet = book.worksheets[0]!;
      const header = (sheet.getRow(1).values as unknown[]).slice(1);
      const values = (sheet.getRow(2).values as unknown[]).slice(1);
      const cell = (name: string) => values[header.indexOf(name)];
      assert.equal(sheet.rowCount, 2);
      assert.equal(cell('firstName'), 'Eve');
      assert.equal(cell('status'), 'contacted');
      // A cell is a value, never a formula.
      assert.equal(cell('notes'), '=cmd|calc');
    }
  });
});
