import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertLead } from '../src/modules/leads/leads.repo.ts';
import {
  caller,
  createGroup,
  createProject,
  createUnit,
  createUser,
  login,
  publicProject,
  type Caller,
  type LoggedIn,
  type TestApp,
  TestClock,
  useOwnerApp,
} from './helpers.ts';

/** Leads by name and state: the team by name, a hold lead's state, repeat contacts, readable exports. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;
const clock = new TestClock();
const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };
let ip = 0;

useOwnerApp({ clock, env: { HOLD_SWEEP_SEC: '0', HOLDS_PER_CLIENT: '50', HOLD_REQUESTS_PER_MINUTE: '1000' } }, (f) => ({ t, owner, call } = f));

const hold = (unit: string, body: object = visitor) =>
  t.app.inject({ method: 'POST', url: `/public/units/${unit}/hold`, payload: body, remoteAddress: `203.0.113.${++ip}` });
const holdLeads = async (project: string) =>
  (await call('GET', `/leads?project=${project}&filters[source]=hold&options[sort]=createdAt`)).json() as Record<string, unknown>[];

async function member(profile: Record<string, unknown>) {
  const user = await createUser(t.db, { profile });
  return { ...user, auth: { authorization: `Bearer ${(await login(t.app, user)).token}` } };
}

describe('GET /projects/{id}/team', () => {
  test('the owner, administrators and editors by name (null without one) and e-mail; the editor may read it, a stranger gets 404', async () => {
    const admin = await member({ fullName: 'Ada Admin' });
    const editor = await member({});
    const p = await createProject(t.app, owner.auth, { body: { administrators: [admin.id], editors: [editor.id] } });
    const res = await call('GET', `/projects/${p._id}/team`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), [
      { _id: owner.id, role: 'owner', name: 'Test User', email: owner.username },
      { _id: admin.id, role: 'administrator', name: 'Ada Admin', email: admin.username },
      { _id: editor.id, role: 'editor', name: null, email: editor.username },
    ]);
    assert.equal((await caller(t.app, editor.auth)('GET', `/projects/${p._id}/team`)).statusCode, 200);
    const stranger = await member({});
    assert.equal((await caller(t.app, stranger.auth)('GET', `/projects/${p._id}/team`)).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: `/projects/${p._id}/team` })).statusCode, 401);
  });

  test('GET /groups/{id}/team: the same for a group; a stranger gets 404', async () => {
    const admin = await member({ name: 'Gil', lastName: 'Groupadmin' });
    const g = await createGroup(t.app, owner.auth, { body: { administrators: [admin.id] } });
    const res = await call('GET', `/groups/${g._id}/team`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), [
      { _id: owner.id, role: 'owner', name: 'Test User', email: owner.username },
      { _id: admin.id, role: 'administrator', name: 'Gil Groupadmin', email: admin.username },
    ]);
    assert.equal((await caller(t.app, admin.auth)('GET', `/groups/${g._id}/team`)).statusCode, 200);
    const stranger = await member({});
    assert.equal((await caller(t.app, stranger.auth)('GET', `/groups/${g._id}/team`)).statusCode, 404);
  });
});

describe('a hold lead says whether its hold is live', () => {
  test('active with its expiry while it holds the unit, expired once it lapses, converted when the unit is sold; an enquiry has none', async () => {
    const { id, units } = await publicProject(t.app, owner.auth, {
      settings: { onHoldExperienceEnabled: true, onHoldMinsDuration: 10, enableForms: true },
      units: { 'A-1': {}, 'B-1': {} },
    });
    assert.equal((await hold(units['A-1']!)).statusCode, 200);
    const [live] = await holdLeads(id);
    assert.equal(live!.holdState, 'active');
    assert.equal(live!.holdUntil, new Date(clock.now() + 10 * 60_000).toISOString());

    clock.advance(11 * 60_000);
    const [lapsed] = await holdLeads(id);
    assert.equal(lapsed!.holdState, 'expired');
    assert.equal(lapsed!.holdUntil, undefined);

    // The unit held again by someone else: the first stays expired, the second is active.
    assert.equal((await hold(units['A-1']!, { ...visitor, email: 'walt@example.com' })).statusCode, 200);
    assert.deepEqual(
      (await holdLeads(id)).map((l) => l.holdState),
      ['expired', 'active'],
    );

    // A hold whose unit the sales team then sells converted.
    assert.equal((await hold(units['B-1']!, { ...visitor, email: 'sol@example.com' })).statusCode, 200);
    assert.equal((await call('PATCH', `/units/${units['B-1']}`, { availability: 'sold' })).statusCode, 200);
    const sold = (await holdLeads(id)).find((l) => l.email === 'sol@example.com');
    assert.equal(sold!.holdState, 'converted');

    const enquiry = await caller(t.app)('POST', '/public/leads', { project: id, ...visitor, email: 'eve@example.com' });
    assert.equal(enquiry.statusCode, 201, enquiry.body);
    const [listed] = (await call('GET', `/leads?project=${id}&filters[email]=eve@example.com`)).json();
    assert.equal(listed.holdState, undefined);
  });
});

describe('repeat contacts', () => {
  test('contactCount counts the e-mail (any case) on the same project only; filters[email] lists that person’s history', async () => {
    const p = await createProject(t.app, owner.auth);
    const q = await createProject(t.app, owner.auth);
    const add = (projectId: string, email: string, source: string, minutes: number) =>
      insertLead(t.db.kysely, {
        id: newObjectId(),
        projectId,
        data: { firstName: 'Rita', lastName: 'Repeat', email, source },
        createdAt: new Date(Date.UTC(2031, 0, 1) + minutes * 60_000),
      });
    await add(p._id, 'rita@example.com', 'presentation', 0);
    await add(p._id, 'Rita@Example.com', 'hold', 1);
    await add(p._id, 'rita@example.com', 'waitlist', 2);
    await add(p._id, 'other@example.com', 'presentation', 3);
    await add(q._id, 'rita@example.com', 'presentation', 4);
    const all = (await call('GET', `/leads?project=${p._id}`)).json() as { email: string; contactCount: number }[];
    assert.deepEqual(
      all.map((l) => [l.email, l.contactCount]),
      [
        ['other@example.com', 1],
        ['rita@example.com', 3],
        ['Rita@Example.com', 3],
        ['rita@example.com', 3],
      ],
    );
    const history = await call('GET', `/leads?project=${p._id}&filters[email]=RITA@example.com`);
    assert.equal(history.headers['x-total-count'], '3');
    assert.deepEqual(
      history.json().map((l: { source: string }) => l.source),
      ['waitlist', 'hold', 'presentation'],
    );
    assert.equal((await call('GET', `/leads?project=${q._id}`)).json()[0].contactCount, 1);
  });
});

describe('exports for people', () => {
  test('with tz: the project, unit and assignee by name, times on that zone’s wall clock, the zone in a last column; without: ids and UTC', async () => {
    const admin = await member({ name: 'Ada', lastName: 'Admin' });
    const editor = await member({});
    const p = await createProject(t.app, owner.auth, { name: 'Harbour View', body: { administrators: [admin.id], editors: [editor.id] } });
    const unit = await createUnit(t.app, owner.auth, p._id, { name: 'PH-2' });
    const at = new Date(Date.UTC(2031, 2, 1, 17, 5));
    const named = await insertLead(t.db.kysely, {
      id: newObjectId(),
      projectId: p._id,
      data: { firstName: 'Nia', lastName: 'Named', email: 'nia@example.com', source: 'presentation', unit: unit._id },
      createdAt: at,
    });
    const typed = await insertLead(t.db.kysely, {
      id: newObjectId(),
      projectId: p._id,
      data: { firstName: 'Tom', lastName: 'Typed', email: 'tom@example.com', source: 'presentation', unit: 'the corner one' },
      createdAt: new Date(at.getTime() - 60_000),
    });
    assert.equal((await call('PATCH', `/leads/${named.id}`, { assignee: admin.id })).statusCode, 200);
    assert.equal((await call('PATCH', `/leads/${typed.id}`, { assignee: editor.id })).statusCode, 200);

    const readable = await call('GET', `/leads?project=${p._id}&format=csv&tz=America/Toronto`);
    assert.equal(readable.statusCode, 200, readable.body);
    const rows = parse(readable.body, { columns: true }) as Record<string, string>[];
    assert.equal(Object.keys(rows[0]!).at(-1), 'timeZone');
    assert.deepEqual(
      rows.map((r) => [r.firstName, r.project, r.unit, r.assignee, r.createdAt, r.timeZone]),
      [
        ['Nia', 'Harbour View', 'PH-2', 'Ada Admin', '2031-03-01 12:05', 'America/Toronto'],
        ['Tom', 'Harbour View', 'the corner one', editor.username, '2031-03-01 12:04', 'America/Toronto'],
      ],
    );
    assert.match(rows[0]!.updatedAt!, /^\d{4}-\d\d-\d\d \d\d:\d\d$/);

    const xlsx = await call('GET', `/leads?project=${p._id}&format=xlsx&tz=Asia/Tokyo`);
    assert.equal(xlsx.statusCode, 200);

    const plain = parse((await call('GET', `/leads?project=${p._id}&format=csv`)).body, { columns: true }) as Record<string, string>[];
    assert.deepEqual([plain[0]!.project, plain[0]!.unit, plain[0]!.assignee, plain[0]!.createdAt], [p._id, unit._id, admin.id, at.toISOString()]);
    assert.equal('timeZone' in plain[0]!, false);

    const bad = await call('GET', `/leads?project=${p._id}&format=csv&tz=Mars/Olympus`);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      [bad.json().code, bad.json().errors],
      ['invalid_query', [{ path: '/tz', message: 'is not a time zone (an IANA name such as America/Toronto)' }]],
    );
  });
});
