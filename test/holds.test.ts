import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { LOCKS } from '../src/db/locks.ts';
import { newObjectId } from '../src/lib/object-id.ts';
import { sweepOnce } from '../src/modules/holds/holds.sweeper.ts';
import {
  publicProject,
  buildTestApp,
  createProject,
  createUnit,
  ENGINE,
  type LoggedIn,
  openTestDb,
  type TestApp,
  TestClock,
  useOwnerApp,
  startTwoNodes,
} from './helpers.ts';

let t: TestApp;
let owner: LoggedIn;
const clock = new TestClock();
const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };

useOwnerApp({ clock, env: { HOLD_SWEEP_SEC: '0', HOLDS_PER_CLIENT: '3', HOLD_REQUESTS_PER_MINUTE: '1000' } }, (f) => ({ t, owner } = f));

async function holdable(settings: Record<string, unknown> = { onHoldExperienceEnabled: true, onHoldMinsDuration: 10 }) {
  const p = await publicProject(t.app, owner.auth, { settings, units: { 'A-101': {} } });
  return { p: p.id, u: p.units['A-101']! };
}

const hold = (unit: string, headers: Record<string, string> = {}, body: object = visitor, ip = '203.0.113.7') =>
  t.app.inject({ method: 'POST', url: `/public/units/${unit}/hold`, payload: body, headers, remoteAddress: ip });

describe('POST /public/units/{id}/hold', () => {
  test('50 concurrent holds on one unit: exactly one 200, the rest 409; the hold lead is recorded', async () => {
    const { p, u } = await holdable();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => hold(u, {}, visitor, `198.51.100.${i + 1}`)));
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 1, codes.join(','));
    assert.equal(codes.filter((c) => c === 409).length, 49);
    const winner = results.find((r) => r.statusCode === 200)!;
    assert.match(String(winner.headers.etag), /^"\d+"$/);
    const won = winner.json();
    assert.equal(won.availability, 'on_hold');
    assert.equal(won.onHoldExpiresAt, new Date(clock.now() + 10 * 60_000).toISOString());
    assert.equal(results.find((r) => r.statusCode === 409)!.json().code, 'conflict');
    const leads = (await t.app.inject({ method: 'GET', url: `/leads?project=${p}`, headers: owner.auth })).json();
    assert.equal(leads.filter((l: { source: string }) => l.source === 'hold').length, 1);
    assert.equal(leads[0].unit, u);
  });

  test('403 without onHoldExperienceEnabled; 404 for an unknown unit; 400 naming a bad field; only from available', async () => {
    const off = await holdable({ onHoldExperienceEnabled: false });
    assert.equal((await hold(off.u)).statusCode, 403);
    assert.equal((await hold(newObjectId())).statusCode, 404);
    const on = await holdable();
    const bad = await hold(on.u, {}, { ...visitor, email: 'nope' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/email');
    await t.app.inject({ method: 'PATCH', url: `/units/${on.u}`, headers: owner.auth, payload: { availability: 'reserved' } });
    assert.equal((await hold(on.u)).statusCode, 409);
  });

  test('a hold lapses on time: reads as available, can be held again, and the sweeper writes it back once', async () => {
    const { u } = await holdable({ onHoldExperienceEnabled: true, onHoldMinsDuration: 1 });
    assert.equal((await hold(u, {}, visitor, '192.0.2.10')).statusCode, 200);
    assert.equal((await hold(u, {}, visitor, '192.0.2.11')).statusCode, 409);
    clock.advance(61_000);
    const read = (await t.app.inject({ method: 'GET', url: `/units/${u}`, headers: owner.auth })).json();
    assert.equal(read.availability, 'available');
    // GET wrote that unit back; put it on hold again and let the sweeper release it.
    assert.equal((await hold(u, {}, visitor, '192.0.2.11')).statusCode, 200);
    clock.advance(61_000);
    const swept = await sweepOnce(t.db.kysely, clock.now());
    assert.equal(swept.ran, true);
    assert.ok(swept.ran && swept.released >= 1);
    const row = await t.db.kysely.selectFrom('units').select(['availability', 'held_by']).where('id', '=', u).executeTakeFirstOrThrow();
    assert.deepEqual(row, { availability: 'available', held_by: null });
  });

  test('one address may hold at most HOLDS_PER_CLIENT units at once (4th → 429)', async () => {
    const ip = '192.0.2.200';
    const units = [];
    for (let i = 0; i < 4; i++) units.push((await holdable()).u);
    for (const u of units.slice(0, 3)) assert.equal((await hold(u, {}, visitor, ip)).statusCode, 200);
    const fourth = await hold(units[3]!, {}, visitor, ip);
    assert.equal(fourth.statusCode, 429);
    assert.ok(fourth.headers['retry-after']);
    assert.equal((await hold(units[3]!, {}, visitor, '192.0.2.201')).statusCode, 200, 'another address is not capped');
  });

  test('Idempotency-Key: a retry replays the first response and writes nothing more; another body → 422', async () => {
    const { p, u } = await holdable();
    const key = { 'idempotency-key': `hold-${newObjectId()}` };
    const first = await hold(u, key, visitor, '192.0.2.50');
    assert.equal(first.statusCode, 200);
    const retry = await hold(u, key, visitor, '192.0.2.50');
    assert.equal(retry.statusCode, 200, 'not 409: the same request is answered again');
    assert.deepEqual(retry.json(), first.json());
    assert.equal(retry.headers.etag, first.headers.etag);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    const other = await hold(u, key, { ...visitor, firstName: 'Other' }, '192.0.2.50');
    assert.equal(other.statusCode, 422);
    assert.equal(other.json().code, 'idempotency_key_reused');
    const leads = await t.db.kysely.selectFrom('leads').select('id').where('project_id', '=', p).execute();
    assert.equal(leads.length, 1);
    // The same key from another address replays nothing (no token leaks): it is a new request there, and the unit is taken.
    const stranger = await hold(u, key, visitor, '192.0.2.51');
    assert.equal(stranger.statusCode, 409, stranger.body);
    assert.ok(!stranger.body.includes(String(first.json().holdToken)));
  });

  test('the sweeper runs on one node per interval: while another holds the lock it skips', async (ctx) => {
    if (ENGINE !== 'postgres') return ctx.skip('needs two connections (PostgreSQL)');
    await t.db.kysely.transaction().execute(async (trx) => {
      const held = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${LOCKS.holdSweep}) as locked`.execute(trx);
      assert.equal(held.rows[0]!.locked, true);
      assert.deepEqual(await sweepOnce(t.db.kysely, clock.now()), { ran: false });
    });
    assert.equal((await sweepOnce(t.db.kysely, clock.now())).ran, true);
  });

  test('the sweeper is not held up by a node installing the outbox (distinct lock ids)', async (ctx) => {
    if (ENGINE !== 'postgres') return ctx.skip('needs two connections (PostgreSQL)');
    await t.db.kysely.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${LOCKS.outboxStart})`.execute(trx);
      assert.equal((await sweepOnce(t.db.kysely, clock.now())).ran, true);
    });
  });

  test('the per-address cap frees when a hold lapses or staff release one; Retry-After says when the first lapses', async () => {
    const ip = '192.0.2.210';
    const units = [];
    for (let i = 0; i < 4; i++) units.push((await holdable({ onHoldExperienceEnabled: true, onHoldMinsDuration: 2 + i })).u);
    for (const u of units.slice(0, 3)) {
      assert.equal((await hold(u, {}, visitor, ip)).statusCode, 200);
      clock.advance(10_000);
    }
    // The first was held 30 s ago for 2 minutes: it lapses in 90 s.
    const capped = await hold(units[3]!, {}, visitor, ip);
    assert.equal(capped.statusCode, 429);
    assert.equal(capped.headers['retry-after'], '90');
    assert.equal(capped.json().code, 'rate_limited');

    const release = await t.app.inject({ method: 'PATCH', url: `/units/${units[1]}`, headers: owner.auth, payload: { availability: 'available' } });
    assert.equal(release.statusCode, 200);
    assert.equal(release.json().onHoldExpiresAt, undefined);
    assert.equal((await hold(units[3]!, {}, visitor, ip)).statusCode, 200, 'a released hold no longer counts');
    assert.equal((await hold(units[1]!, {}, visitor, ip)).statusCode, 429);
    clock.advance(90_000);
    assert.equal((await hold(units[1]!, {}, visitor, ip)).statusCode, 200, 'a lapsed hold no longer counts');
  });

  test('an expired hold counts as available: another visitor may take it before any sweep', async () => {
    const { p, u } = await holdable({ onHoldExperienceEnabled: true, onHoldMinsDuration: 1 });
    assert.equal((await hold(u, {}, visitor, '192.0.2.30')).statusCode, 200);
    clock.advance(60_000);
    const second = await hold(u, {}, { ...visitor, firstName: 'Second' }, '192.0.2.31');
    assert.equal(second.statusCode, 200);
    assert.equal(second.json().onHoldExpiresAt, new Date(clock.now() + 60_000).toISOString());
    const row = await t.db.kysely
      .selectFrom('units as u')
      .innerJoin('holds as h', 'h.id', 'u.held_by')
      .select(['u.availability', 'h.client'])
      .where('u.id', '=', u)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { availability: 'on_hold', client: '192.0.2.31' });
    const leads = (await t.app.inject({ method: 'GET', url: `/leads?project=${p}`, headers: owner.auth })).json();
    assert.deepEqual(
      leads.filter((l: { source: string }) => l.source === 'hold').map((l: { firstName: string }) => l.firstName),
      ['Second', 'Vera'],
    );
  });

  test('the unit in a hold response is the public shape: no price when showPrices is false, no holder', async () => {
    const p = await createProject(t.app, owner.auth, { body: { onHoldExperienceEnabled: true, showPrices: false } });
    const u = await createUnit(t.app, owner.auth, p._id, { body: { price: 750000, payableAmount: 5000 } });
    const res = await hold(u._id, {}, visitor, '192.0.2.40');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().price, undefined);
    assert.equal(res.json().payableAmount, 5000);
    assert.ok(!res.body.includes('192.0.2.40') && !('heldBy' in res.json()) && !('held_by' in res.json()), 'the holder is not shown');
  });

  test('hold requests per minute per address are capped (HOLD_REQUESTS_PER_MINUTE) → 429 with Retry-After', async () => {
    const strict = await buildTestApp({
      clock,
      env: { HOLD_SWEEP_SEC: '0', HOLD_REQUESTS_PER_MINUTE: '3' },
      testDb: { db: t.db, url: undefined, drop: async () => {} },
    });
    try {
      const { u } = await holdable({ onHoldExperienceEnabled: false });
      const send = (ip: string) => strict.app.inject({ method: 'POST', url: `/public/units/${u}/hold`, payload: visitor, remoteAddress: ip });
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push(await send('192.0.2.220'));
      assert.deepEqual(
        codes.map((r) => r.statusCode),
        [403, 403, 403, 429],
      );
      assert.ok(Number(codes[3]!.headers['retry-after']) > 0);
      assert.equal(codes[3]!.json().code, 'rate_limited');
      assert.equal((await send('192.0.2.221')).statusCode, 403, 'another address has its own budget');
    } finally {
      await strict.close();
    }
  });

  // Last in this file: it sweeps as of a day ahead, releasing every hold made above.
  test('the sweeper forgets idempotency keys after 24 hours: the key then starts afresh', async () => {
    const { u } = await holdable();
    const key = { 'idempotency-key': `old-${newObjectId()}` };
    assert.equal((await hold(u, key, visitor, '192.0.2.60')).statusCode, 200);
    const stored = () => t.db.kysely.selectFrom('idempotency_keys').select('key').where('key', '=', key['idempotency-key']).execute();
    assert.equal((await stored()).length, 1);
    const early = await sweepOnce(t.db.kysely, clock.now() + 23 * 3_600_000);
    assert.ok(early.ran);
    assert.equal((await stored()).length, 1, 'kept for 24 hours');
    const late = await sweepOnce(t.db.kysely, clock.now() + 25 * 3_600_000);
    assert.ok(late.ran && late.forgotten >= 1);
    assert.equal((await stored()).length, 0);
  });
});

describe('holds across two service processes on one PostgreSQL database', () => {
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  test('50 concurrent holds split across two processes: exactly one 200', async (ctx) => {
    if (ENGINE !== 'postgres') return ctx.skip('needs PostgreSQL');
    const shared = await openTestDb();
    try {
      const ports = await startTwoNodes(shared.url!, children, { HOLD_REQUESTS_PER_MINUTE: '10000', HOLDS_PER_CLIENT: '100' });

      const userId = newObjectId();
      const projectId = newObjectId();
      const unitId = newObjectId();
      await sql`insert into users (id, username, password_hash) values (${userId}, ${`two-${userId}@example.com`}, 'x')`.execute(shared.db.kysely);
      await sql`insert into projects (id, user_id, name, data) values (${projectId}, ${userId}, 'Two nodes', ${JSON.stringify({ onHoldExperienceEnabled: true })}::jsonb)`.execute(
        shared.db.kysely,
      );
      await sql`insert into units (id, project_id, name) values (${unitId}, ${projectId}, 'U1')`.execute(shared.db.kysely);

      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`http://127.0.0.1:${ports[i % 2]}/public/units/${unitId}/hold`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(visitor),
          }).then((r) => r.status),
        ),
      );
      assert.equal(results.filter((s) => s === 200).length, 1, results.join(','));
      assert.equal(results.filter((s) => s === 409).length, 49, results.join(','));
    } finally {
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
      await shared.drop();
    }
  });
});
