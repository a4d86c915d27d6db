import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { openDb } from '../src/db/db.ts';
import type { Db } from '../src/db/db.ts';
import { parseCsv } from '../src/modules/inventory/csv.ts';
import { RETENTION_BATCH, reportSlot } from '../src/modules/insights/insights.schedule.ts';
import {
  createFloor,
  createProject,
  createUnit,
  ENGINE,
  HIGH_RATE_LIMITS,
  login,
  openTestDb,
  slug,
  testConfig,
  TestClock,
  type TestDb,
  userWithToken,
} from './helpers.ts';
import { startSmtp, type Smtp } from './smtp.ts';

/**
 * The weekly report: claimed once per project and week across nodes (two apps on one database),
 * mailed through the outbox as HTML with the units CSV attached, sent now on request; retention of raw events.
 */
const DAY = 24 * 3600_000;
// A Sunday evening, a few weeks from now (tokens are signed with this clock).
const sunday = (() => {
  const d = new Date(Date.now() + 14 * DAY);
  const back = d.getUTCDay();
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - back, 23, 0);
})();
const clock = new TestClock(sunday);
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

let smtp: Smtp;
let testDb: TestDb;
let second: Db | undefined;
const nodes: FastifyInstance[] = [];

before(async () => {
  smtp = await startSmtp();
  testDb = await openTestDb();
  // PostgreSQL: the second node has its own pool, as another process would; PGlite is one process's database.
  second = ENGINE === 'postgres' ? await openDb({ databaseUrl: testDb.url!, poolSize: 3 }) : undefined;
  for (const db of [testDb.db, second ?? testDb.db]) {
    const config = testConfig({ ...HIGH_RATE_LIMITS, SMTP_URL: smtp.url, OUTBOX_POLL_MS: '0', HOLD_SWEEP_SEC: '0', INSIGHTS_RETENTION_DAYS: '30' });
    const app = await buildApp({ config, db, clock, logger: false });
    await app.ready();
    // The test ticks by hand.
    app.insightsSchedule.stop();
    nodes.push(app);
  }
});
after(async () => {
  for (const app of nodes) await app.close();
  await second?.close();
  await testDb?.drop();
  await smtp?.stop();
});

const [a, b] = [() => nodes[0]!, () => nodes[1]!];
const drainAll = async () => {
  for (let i = 0; i < 3; i++) for (const app of nodes) await app.outbox.drain();
};

describe('weekly report', () => {
  test('the report time: REPORT_WEEKDAY at REPORT_HOUR UTC, due for a day after it', () => {
    const monday8 = sunday + 9 * 3600_000;
    assert.deepEqual(reportSlot(monday8, 1, 8), { day: new Date(monday8).toISOString().slice(0, 10), due: true });
    assert.equal(reportSlot(monday8 - 1, 1, 8).due, false);
    assert.equal(reportSlot(monday8 + DAY - 1, 1, 8).due, true);
    assert.equal(reportSlot(monday8 + DAY, 1, 8).due, false);
    assert.equal(reportSlot(monday8 + 2 * DAY, 3, 8).day, new Date(monday8 + 2 * DAY).toISOString().slice(0, 10));
  });

  test('Monday 08:00 UTC: one report per project across two nodes, HTML with the week against the one before, and the units CSV', async () => {
    const owner = await userWithToken({ app: a(), db: testDb.db, config: testConfig(), close: async () => {} });
    const namespace = slug('rep');
    const p = await createProject(a(), owner.auth, {
      name: 'Harbour <Lofts>',
      query: { namespace },
      body: { reportSendTo: 'sales@harbour.test, boss@harbour.test', enableForms: true },
    });
    const quiet = await createProject(a(), owner.auth, { body: {} });
    const floor = await createFloor(a(), owner.auth, p._id);
    const u1 = await createUnit(a(), owner.auth, p._id, { floor: floor._id, name: 'P-1' });
    const u2 = await createUnit(a(), owner.auth, p._id, { floor: floor._id, name: 'P-2' });
    // This week (Sunday evening) and the week before.
    for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      const r = await b().inject({
        method: 'POST',
        url: '/public/events',
        payload: { namespace, type: 'unit_view', unit: u2._id },
        headers: { 'user-agent': BROWSER },
        remoteAddress: address,
      });
      assert.equal(r.statusCode, 202);
    }
    await a().inject({
      method: 'POST',
      url: '/public/leads',
      payload: { namespace, firstName: 'E', lastName: 'Q', email: 'e@buyer.test', phone: '+1 555 0100', unit: u1._id, source: 'instagram' },
    });
    // Leads carry the database's time; this test's week is the clock's.
    await sql`update leads set created_at = ${new Date(clock.now())} where project_id = ${p._id}`.execute(testDb.db.kysely);
    assert.equal((await a().inject({ method: 'PATCH', url: `/units/${u1._id}`, headers: owner.auth, payload: { availability: 'sold' } })).statusCode, 200);
    await sql`insert into insight_daily (project_id, day, visitors, page_views) values (${p._id}, ${new Date(sunday - 7 * DAY).toISOString().slice(0, 10)}::date, 6, 6)`.execute(
      testDb.db.kysely,
    );

    // Sunday night: nothing due.
    assert.deepEqual((await Promise.all(nodes.map((n) => n.insightsSchedule.queueDueReports()))).flat(), []);
    clock.advance(9 * 3600_000); // Monday 08:00
    const claimed = (await Promise.all(nodes.map((n) => n.insightsSchedule.queueDueReports()))).flat();
    assert.deepEqual(claimed, [p._id], 'one claim across both nodes, only for the project with reportSendTo');
    clock.advance(3600_000);
    assert.deepEqual((await Promise.all(nodes.map((n) => n.insightsSchedule.queueDueReports()))).flat(), [], 'not again that week');
    await drainAll();
    await smtp.waitFor(1);
    assert.equal(smtp.received.length, 1);
    const mail = smtp.received[0]!;
    assert.deepEqual(mail.rcptTo.sort(), ['boss@harbour.test', 'sales@harbour.test']);
    assert.match(mail.parsed.subject ?? '', /^Weekly report: Harbour <Lofts>/);
    const html = String(mail.parsed.html);
    assert.ok(html.includes('Harbour &lt;Lofts&gt;'), 'project name escaped');
    assert.match(html, /<td>Visitors<\/td><td align="right">3<\/td><td align="right">6<\/td><td>-50%<\/td>/);
    assert.match(html, /<td>P-1<\/td><td>sold<\/td>/, 'units that became sold');
    assert.match(html, /<td>instagram<\/td><td align="right">1<\/td>/, 'leads by source');
    assert.match(html, /<td>sold<\/td><td align="right">1<\/td>/, 'inventory by status');
    assert.match(mail.parsed.text ?? '', /Most viewed units/);
    assert.equal(mail.parsed.attachments.length, 1);
    const csv = mail.parsed.attachments[0]!;
    assert.match(csv.contentType, /^text\/csv/);
    const table = parseCsv(csv.content);
    assert.deepEqual(table.headers, ['_id', 'name', 'views', 'enquiries', 'holds']);
    assert.deepEqual(table.rows[0]?.cells, { _id: u2._id, name: 'P-2', views: '3', enquiries: '0', holds: '0' });

    // A week on, the next one.
    clock.advance(7 * DAY - 3600_000);
    assert.deepEqual((await Promise.all(nodes.map((n) => n.insightsSchedule.queueDueReports()))).flat(), [p._id]);
    await drainAll();
    await smtp.waitFor(2);

    // POST /projects/{id}/reports/send: owner and administrators; editors 403; strangers 404; no reportSendTo 409.
    // Tokens made a week ago (by the clock) have expired.
    const ownerNow = { authorization: `Bearer ${(await login(a(), owner)).token}` };
    const editor = await userWithToken({ app: a(), db: testDb.db, config: testConfig(), close: async () => {} });
    const stranger = await userWithToken({ app: a(), db: testDb.db, config: testConfig(), close: async () => {} });
    await a().inject({ method: 'PATCH', url: `/project/${p._id}`, headers: ownerNow, payload: { editors: [editor.id] } });
    const send = (id: string, auth: { authorization: string }) => b().inject({ method: 'POST', url: `/projects/${id}/reports/send`, headers: auth });
    assert.equal((await send(p._id, editor.auth)).statusCode, 403);
    assert.equal((await send(p._id, stranger.auth)).statusCode, 404);
    assert.equal((await send(quiet._id, ownerNow)).statusCode, 409);
    const now = await send(p._id, ownerNow);
    assert.equal(now.statusCode, 202, now.body);
    assert.equal(now.body, '');
    await drainAll();
    await smtp.waitFor(3);
    assert.match(smtp.received[2]!.parsed.subject ?? '', /^Weekly report: Harbour <Lofts>/);
  });

  test('retention: raw events past INSIGHTS_RETENTION_DAYS go in batches, newer ones and the daily totals stay', async () => {
    const owner = await userWithToken({ app: a(), db: testDb.db, config: testConfig(), close: async () => {} });
    const p = await createProject(a(), owner.auth, { body: {} });
    const old = new Date(clock.now() - 31 * DAY);
    const recent = new Date(clock.now() - 29 * DAY);
    const n = RETENTION_BATCH * 2 + 17;
    await sql`
      insert into insight_events (project_id, at, type, visitor)
      select ${p._id}, ${old}::timestamptz + make_interval(secs => g), 'page_view', '\\x00'::bytea from generate_series(1, ${n}) g`.execute(testDb.db.kysely);
    await sql`insert into insight_events (project_id, at, type, visitor) values (${p._id}, ${recent}, 'page_view', '\\x00'::bytea)`.execute(testDb.db.kysely);
    await sql`insert into insight_daily (project_id, day, visitors, page_views) values (${p._id}, ${old.toISOString().slice(0, 10)}::date, 5, ${n})`.execute(
      testDb.db.kysely,
    );
    const deleted = (await Promise.all(nodes.map((node) => node.insightsSchedule.applyRetention()))).reduce((x, y) => x + y, 0);
    const left = await sql<{ n: number }>`select count(*)::int as n from insight_events where project_id = ${p._id}`.execute(testDb.db.kysely);
    assert.equal(left.rows[0]?.n, 1, 'only the recent event is left');
    assert.ok(deleted >= n && deleted <= n + 5, `deleted ${deleted} (both nodes together)`);
    const totals = await sql<{ page_views: number }>`select page_views from insight_daily where project_id = ${p._id}`.execute(testDb.db.kysely);
    assert.equal(totals.rows[0]?.page_views, n, 'daily totals are kept');
  });
});
