import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { parseCsv } from '../src/modules/inventory/csv.ts';
import { publicProject, HIGH_RATE_LIMITS, type LoggedIn, type TestApp, TestClock, useOwnerApp, userWithToken } from './helpers.ts';

/** GET /projects/{id}/insights: from daily totals and the leads themselves; CSV of the units table. */
let t: TestApp;
let owner: LoggedIn;
const clock = new TestClock();
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const today = () => new Date(clock.now()).toISOString().slice(0, 10);

useOwnerApp({ clock, env: { ...HIGH_RATE_LIMITS, HOLD_SWEEP_SEC: '0' } }, (f) => ({ t, owner } = f));

const beacon = (payload: object, remoteAddress: string) =>
  t.app.inject({
    method: 'POST',
    url: '/public/events',
    payload: JSON.stringify(payload),
    headers: { 'content-type': 'text/plain', 'user-agent': BROWSER },
    remoteAddress,
  });
const visitor = (email: string) => ({ firstName: 'Vi', lastName: 'Sitor', email, phone: '+1 555 0100' });

async function setUp(settings: Record<string, unknown> = {}) {
  const p = await publicProject(t.app, owner.auth, {
    settings: { enableForms: true, onHoldExperienceEnabled: true, waitlistEnabled: true, ...settings },
    units: { 'A-101': { path: 'M0 0 h10 v10 h-10 Z' }, 'B-202': { path: 'M10 0 h10 v10 h-10 Z' }, 'C-303': {} },
  });
  return { namespace: p.namespace, id: p.id, a: p.units['A-101']!, b: p.units['B-202']!, c: p.units['C-303']! };
}

describe('GET /projects/{id}/insights', () => {
  test('totals, series with zeros, funnel, units most viewed first, sources; enquiries, holds and waitlist from the leads', async () => {
    const p = await setUp();
    const ns = p.namespace;
    await beacon({ namespace: ns, type: 'page_view', utm: { source: 'newsletter' } }, '198.51.100.1');
    await beacon({ namespace: ns, type: 'unit_view', unit: p.b }, '198.51.100.1');
    await beacon({ namespace: ns, type: 'unit_view', unit: p.b }, '198.51.100.2');
    await beacon({ namespace: ns, type: 'unit_view', unit: p.a }, '198.51.100.2');
    await beacon({ namespace: ns, type: 'page_view', referrer: 'https://search.example/?q=lofts' }, '198.51.100.3');
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/public/leads', payload: { namespace: ns, ...visitor('one@buyers.test'), unit: p.b } })).statusCode,
      201,
    );
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/public/leads', payload: { namespace: ns, ...visitor('ONE@buyers.test'), unit: 'A-101' } })).statusCode,
      201,
    );
    assert.equal(
      (await t.app.inject({ method: 'POST', url: `/public/units/${p.b}/hold`, payload: visitor('two@buyers.test'), remoteAddress: '198.51.100.9' })).statusCode,
      200,
    );
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/public/waitlist', payload: { namespace: ns, ...visitor('three@buyers.test') } })).statusCode,
      201,
    );

    const res = await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights`, headers: owner.auth });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.to, today());
    assert.equal(body.series.length, 30);
    assert.equal(body.interval, 'day');
    assert.deepEqual(body.totals, { visitors: 3, pageViews: 2, unitViews: 3, enquiries: 2, holds: 1, waitlist: 1 });
    assert.deepEqual(body.series.at(-1), { date: today(), visitors: 3, pageViews: 2, unitViews: 3, enquiries: 2, holds: 1 });
    assert.deepEqual(body.series[0], { date: body.from, visitors: 0, pageViews: 0, unitViews: 0, enquiries: 0, holds: 0 });
    assert.deepEqual(body.funnel, { visitors: 3, unitViewers: 2, enquirers: 1, holders: 1 });
    assert.deepEqual(body.units, [
      { _id: p.b, name: 'B-202', views: 2, enquiries: 1, holds: 1 },
      { _id: p.a, name: 'A-101', views: 1, enquiries: 1, holds: 0 },
      { _id: p.c, name: 'C-303', views: 0, enquiries: 0, holds: 0 },
    ]);
    assert.deepEqual(
      body.sources.sort((x: { source: string }, y: { source: string }) => x.source.localeCompare(y.source)),
      [
        { source: 'direct', visitors: 1 },
        { source: 'newsletter', visitors: 1 },
        { source: 'search.example', visitors: 1 },
      ],
    );

    const week = (
      await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights?interval=week&from=${body.from}&to=${body.to}`, headers: owner.auth })
    ).json();
    assert.ok(week.series.length >= 5 && week.series.length <= 6);
    for (const s of week.series) assert.equal(new Date(`${s.date}T00:00:00Z`).getUTCDay(), 1, 'weeks start on Monday');
    assert.equal(week.series.at(-1).visitors, 3);

    const csv = await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights`, headers: { ...owner.auth, accept: 'text/csv' } });
    assert.equal(csv.statusCode, 200);
    assert.match(csv.headers['content-type'] as string, /^text\/csv/);
    const table = parseCsv(csv.body);
    assert.deepEqual(table.headers, ['_id', 'name', 'views', 'enquiries', 'holds']);
    assert.deepEqual(table.rows[0]?.cells, { _id: p.b, name: 'B-202', views: '2', enquiries: '1', holds: '1' });
  });

  test('excludeBlockedEvents leaves out leads and holds whose e-mail matches the block list (they are still stored)', async () => {
    const p = await setUp({ eventsBlockList: '*@staff.test', excludeBlockedEvents: true });
    await t.app.inject({ method: 'POST', url: '/public/leads', payload: { namespace: p.namespace, ...visitor('agent@staff.test'), unit: p.a } });
    await t.app.inject({ method: 'POST', url: `/public/units/${p.a}/hold`, payload: visitor('Agent2@Staff.test'), remoteAddress: '198.51.100.10' });
    await t.app.inject({ method: 'POST', url: '/public/leads', payload: { namespace: p.namespace, ...visitor('buyer@elsewhere.test') } });
    const body = (await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights`, headers: owner.auth })).json();
    assert.deepEqual(body.totals, { visitors: 0, pageViews: 0, unitViews: 0, enquiries: 1, holds: 0, waitlist: 0 });
    assert.deepEqual(
      body.units.find((u: { _id: string }) => u._id === p.a),
      { _id: p.a, name: 'A-101', views: 0, enquiries: 0, holds: 0 },
    );
    const leads = (await t.app.inject({ method: 'GET', url: `/leads?project=${p.id}`, headers: owner.auth })).json();
    assert.equal(leads.length, 3, 'still stored');
    // Without excludeBlockedEvents the same leads count.
    await t.app.inject({ method: 'PATCH', url: `/project/${p.id}`, headers: owner.auth, payload: { excludeBlockedEvents: false } });
    const all = (await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights`, headers: owner.auth })).json();
    assert.equal(all.totals.enquiries + all.totals.holds, 3);
  });

  test('access: owner, administrators and editors read; a stranger gets 404; bad ranges are 400 naming the field', async () => {
    const p = await setUp();
    const editor = await userWithToken(t);
    const admin = await userWithToken(t);
    const stranger = await userWithToken(t);
    await t.app.inject({ method: 'PATCH', url: `/project/${p.id}`, headers: owner.auth, payload: { editors: [editor.id], administrators: [admin.id] } });
    for (const who of [owner, editor, admin])
      assert.equal((await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights`, headers: who.auth })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights`, headers: stranger.auth })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights` })).statusCode, 401);
    const reversed = await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights?from=2026-02-01&to=2026-01-01`, headers: owner.auth });
    assert.equal(reversed.statusCode, 400);
    assert.equal(reversed.json().errors[0].path, '/from');
    const bad = await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights?from=2026-13-01`, headers: owner.auth });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/from');
    const long = await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights?from=2020-01-01&to=2026-01-01`, headers: owner.auth });
    assert.equal(long.statusCode, 400);
    const interval = await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights?interval=month`, headers: owner.auth });
    assert.equal(interval.statusCode, 400);
    assert.equal(interval.json().errors[0].path, '/interval');
  });

  test('daily totals stay when raw events are deleted', async () => {
    const p = await setUp();
    await beacon({ namespace: p.namespace, type: 'page_view' }, '198.51.100.40');
    await sql`delete from insight_events where project_id = ${p.id}`.execute(t.db.kysely);
    const body = (await t.app.inject({ method: 'GET', url: `/projects/${p.id}/insights`, headers: owner.auth })).json();
    assert.equal(body.totals.pageViews, 1);
  });
});
