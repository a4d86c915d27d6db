import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { newObjectId } from '../src/lib/object-id.ts';
import { publicProject, type LoggedIn, slug, type TestApp, TestClock, useOwnerApp } from './helpers.ts';

/** POST /public/events: validated, rate-limited, cookie-less visitors, bots and listed addresses left out. */
let t: TestApp;
let owner: LoggedIn;
const clock = new TestClock();
const DAY = 24 * 3600_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

useOwnerApp({ clock, env: { HOLD_SWEEP_SEC: '0', PUBLIC_EVENTS_PER_MINUTE: '30' } }, (f) => ({ t, owner } = f));

const beacon = (payload: unknown, remoteAddress: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/public/events',
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': BROWSER, ...headers },
    remoteAddress,
  });

async function projectWithUnit(body: Record<string, unknown> = {}) {
  const p = await publicProject(t.app, owner.auth, { settings: body, units: { 'A-101': {} } });
  return { namespace: p.namespace, id: p.id, unit: p.units['A-101']! };
}

async function daily(projectId: string) {
  const r = await sql<Record<string, number>>`
    select visitors, unit_viewers, page_views, unit_views, plan_views, filters from insight_daily where project_id = ${projectId}`.execute(t.db.kysely);
  return r.rows[0];
}
const rawCount = async (projectId: string) =>
  Number((await sql<{ n: string }>`select count(*) as n from insight_events where project_id = ${projectId}`.execute(t.db.kysely)).rows[0]?.n);

describe('POST /public/events', () => {
  test('202 with no body, as text/plain (sendBeacon) or application/json; daily totals and visitors kept up to date', async () => {
    const p = await projectWithUnit();
    const page = await beacon(
      { namespace: p.namespace, type: 'page_view', path: '/p/x?email=a@b.c', referrer: 'https://www.Example.org/a?b', utm: { source: 'Newsletter' } },
      '198.51.100.1',
    );
    assert.equal(page.statusCode, 202, page.body);
    assert.equal(page.body, '');
    const json = await t.app.inject({
      method: 'POST',
      url: '/public/events',
      payload: { namespace: p.namespace, type: 'unit_view', unit: p.unit },
      headers: { 'user-agent': BROWSER },
      remoteAddress: '198.51.100.1',
    });
    assert.equal(json.statusCode, 202, json.body);
    // Another visitor (another address), a second view by the first.
    assert.equal((await beacon({ namespace: p.namespace, type: 'unit_view', unit: p.unit }, '198.51.100.2')).statusCode, 202);
    assert.equal((await beacon({ namespace: p.namespace, type: 'unit_view', unit: p.unit }, '198.51.100.1')).statusCode, 202);
    assert.equal((await beacon({ namespace: p.namespace, type: 'filter' }, '198.51.100.1')).statusCode, 202);
    assert.deepEqual({ ...(await daily(p.id)) }, { visitors: 2, unit_viewers: 2, page_views: 1, unit_views: 3, plan_views: 0, filters: 1 });
    const raw = await sql<{ path: string; referrer: string; utm_source: string }>`
      select path, referrer, utm_source from insight_events where project_id = ${p.id} and type = 'page_view'`.execute(t.db.kysely);
    assert.deepEqual(raw.rows, [{ path: '/p/x', referrer: 'example.org', utm_source: 'Newsletter' }]);
    const sources = await sql`select source, visitors from insight_daily_sources where project_id = ${p.id} order by source`.execute(t.db.kysely);
    assert.deepEqual(sources.rows, [
      { source: 'direct', visitors: 1 },
      { source: 'newsletter', visitors: 1 },
    ]);
    const units = await sql`select unit_id, views from insight_daily_units where project_id = ${p.id}`.execute(t.db.kysely);
    assert.deepEqual(units.rows, [{ unit_id: p.unit, views: 3 }]);
  });

  test('404 unknown namespace; 400 naming the field for an unknown type, a foreign unit, a bad shape or bad JSON; 413 past the size bound; 415 other types', async () => {
    const p = await projectWithUnit();
    const other = await projectWithUnit();
    assert.equal((await beacon({ namespace: slug('none'), type: 'page_view' }, '198.51.100.3')).statusCode, 404);
    const type = await beacon({ namespace: p.namespace, type: 'click' }, '198.51.100.3');
    assert.equal(type.statusCode, 400);
    assert.equal(type.json().errors[0].path, '/type');
    const foreign = await beacon({ namespace: p.namespace, type: 'unit_view', unit: other.unit }, '198.51.100.3');
    assert.equal(foreign.statusCode, 400);
    assert.equal(foreign.json().errors[0].path, '/unit');
    const notId = await beacon({ namespace: p.namespace, type: 'unit_view', unit: 'x' }, '198.51.100.3');
    assert.equal(notId.statusCode, 400);
    assert.equal(notId.json().errors[0].path, '/unit');
    const extra = await beacon({ namespace: p.namespace, type: 'share', visitorId: 'abc' }, '198.51.100.3');
    assert.equal(extra.statusCode, 400);
    const utm = await beacon({ namespace: p.namespace, type: 'share', utm: { source: 'x'.repeat(201) } }, '198.51.100.3');
    assert.equal(utm.statusCode, 400);
    assert.equal(utm.json().errors[0].path, '/utm/source');
    assert.equal((await beacon('{"namespace":', '198.51.100.3')).statusCode, 400);
    assert.equal((await beacon({ namespace: p.namespace, type: 'share', path: 'x'.repeat(5000) }, '198.51.100.3')).statusCode, 413);
    const xml = await beacon('<a/>', '198.51.100.3', { 'content-type': 'application/xml' });
    assert.equal(xml.statusCode, 415);
    assert.equal(await rawCount(p.id), 0, 'nothing stored for a refused event');
  });

  test('429 past PUBLIC_EVENTS_PER_MINUTE from one address; other addresses go on', async () => {
    const p = await projectWithUnit();
    const codes: number[] = [];
    for (let i = 0; i < 31; i++) codes.push((await beacon({ namespace: p.namespace, type: 'page_view' }, '198.51.100.20')).statusCode);
    assert.deepEqual(codes.slice(0, 30), Array<number>(30).fill(202));
    assert.equal(codes[30], 429);
    assert.equal((await beacon({ namespace: p.namespace, type: 'page_view' }, '198.51.100.21')).statusCode, 202);
  });

  test('bots (known crawler user agents, none at all) are accepted but not counted', async () => {
    const p = await projectWithUnit();
    for (const ua of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'facebookexternalhit/1.1',
      'curl/8.5.0',
      'Mozilla/5.0 HeadlessChrome/126',
    ]) {
      assert.equal((await beacon({ namespace: p.namespace, type: 'page_view' }, '198.51.100.30', { 'user-agent': ua })).statusCode, 202);
    }
    const none = await beacon({ namespace: p.namespace, type: 'page_view' }, '198.51.100.30', { 'user-agent': '' });
    assert.equal(none.statusCode, 202);
    assert.equal(await rawCount(p.id), 0);
    assert.equal(await daily(p.id), undefined);
  });

  test('eventsBlockList: listed addresses, IPv4 and IPv6 ranges (and IPv4-mapped IPv6) are accepted but not counted', async () => {
    const p = await projectWithUnit({ eventsBlockList: '203.0.113.7, 10.1.0.0/16 ,2001:db8:abcd::/48, *@example.com' });
    const sendFrom = (address: string) => beacon({ namespace: p.namespace, type: 'page_view' }, address);
    for (const a of ['203.0.113.7', '10.1.200.3', '::ffff:10.1.2.3', '2001:db8:abcd:12::1']) assert.equal((await sendFrom(a)).statusCode, 202);
    assert.equal(await rawCount(p.id), 0);
    for (const a of ['203.0.113.8', '10.2.0.1', '2001:db8:abce::1']) assert.equal((await sendFrom(a)).statusCode, 202);
    assert.equal(await rawCount(p.id), 3);
  });

  test('eventsBlockList: a save naming an entry it cannot act on → 400 naming the field and the entry; nothing is written', async () => {
    const p = await projectWithUnit({ eventsBlockList: '203.0.113.7' });
    for (const bad of ['203.0.113.7, junk', '10.0.0.0/40', 'a@b@c', '999.1.1.1']) {
      const res = await t.app.inject({ method: 'PATCH', url: `/project/${p.id}`, headers: owner.auth, payload: { eventsBlockList: bad } });
      assert.equal(res.statusCode, 400, bad);
      assert.equal(res.json().errors[0].path, '/eventsBlockList');
    }
    const kept = (await t.app.inject({ method: 'GET', url: `/project/${p.id}`, headers: owner.auth })).json();
    assert.equal(kept.eventsBlockList, '203.0.113.7');
    const created = await t.app.inject({ method: 'POST', url: '/projects?name=Bad', headers: owner.auth, payload: { eventsBlockList: 'nonsense' } });
    assert.equal(created.statusCode, 400);
  });

  test('the project named by a namespace that was never one: 404 even with a valid unit id', async () => {
    assert.equal((await beacon({ namespace: 'no-such-ns', type: 'unit_view', unit: newObjectId() }, '198.51.100.50')).statusCode, 404);
  });
  // Last: it moves the clock two days on.
  test('visitors: a keyed hash with a daily salt from the database; no address or user agent stored; salts older than two days deleted', async () => {
    const p = await projectWithUnit();
    const send = (address: string, ua = BROWSER) => beacon({ namespace: p.namespace, type: 'page_view' }, address, { 'user-agent': ua });
    await send('198.51.100.40');
    await send('198.51.100.40');
    await send('198.51.100.40', `${BROWSER} Edg/126`);
    assert.equal((await daily(p.id))?.visitors, 2, 'same address, other browser: another visitor');
    const visitors = await sql<{ visitor: Buffer }>`select distinct visitor from insight_events where project_id = ${p.id}`.execute(t.db.kysely);
    assert.equal(visitors.rows.length, 2);
    for (const { visitor } of visitors.rows) assert.equal(visitor.length, 16);
    // Nothing stored anywhere in the insights tables names the address or the browser.
    const dump = await sql<{ t: string }>`
      select (select coalesce(string_agg(e::text, ' '), '') from insight_events e) ||
             (select coalesce(string_agg(v::text, ' '), '') from insight_visitor_days v) ||
             (select coalesce(string_agg(s::text, ' '), '') from insight_daily_sources s) as t`.execute(t.db.kysely);
    const text = dump.rows[0]?.t ?? '';
    assert.ok(!text.includes('198.51.100.40') && !text.includes('Chrome') && !text.includes(Buffer.from('198.51.100.40').toString('hex')));
    const day1 = await sql<{ day: string }>`select day::text as day from insight_salts order by day`.execute(t.db.kysely);
    const first = clock.now();
    assert.ok(day1.rows.some((r) => r.day === dayOf(first)));

    // Next day: a new salt, the same person is a new visitor of that day; two days on the first salt is gone.
    clock.advance(24 * 3600_000);
    await send('198.51.100.40');
    clock.advance(24 * 3600_000);
    await send('198.51.100.40');
    const days = await sql<{ day: string }>`select day::text as day from insight_salts order by day`.execute(t.db.kysely);
    assert.deepEqual(
      days.rows.map((r) => r.day),
      [dayOf(first + DAY), dayOf(first + 2 * DAY)],
    );
    const perDay = await sql<{ day: string; visitors: number }>`
      select day::text as day, visitors from insight_daily where project_id = ${p.id} order by day`.execute(t.db.kysely);
    assert.deepEqual(
      perDay.rows.map((r) => r.visitors),
      [2, 1, 1],
    );
    const linked = await sql<{ n: string }>`select count(distinct visitor) as n from insight_events where project_id = ${p.id}`.execute(t.db.kysely);
    assert.equal(Number(linked.rows[0]?.n), 4, 'one person on three days is three unlinkable hashes (plus the other browser)');
    assert.equal(
      Number(
        (await sql<{ n: string }>`select count(*) as n from insight_visitor_days where day < ${dayOf(first + DAY)}::date`.execute(t.db.kysely)).rows[0]?.n,
      ),
      0,
    );
  });
});
