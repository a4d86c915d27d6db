import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { sweepOnce } from '../src/modules/holds/holds.sweeper.ts';
import {
  buildTestApp,
  caller,
  createFloor,
  createProject,
  createUnit,
  createUser,
  ENGINE,
  openTestDb,
  slug,
  testConfig,
  TestClock,
  userWithToken,
  type TestApp,
  startTwoNodes,
} from './helpers.ts';
import { SseClient } from './sse-client.ts';

let t: TestApp;
let owner: Awaited<ReturnType<typeof userWithToken>>;
let editor: Awaited<ReturnType<typeof userWithToken>>;
let base: string;
const clock = new TestClock();
const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };

before(async () => {
  t = await buildTestApp({ clock, env: { HOLD_SWEEP_SEC: '0', HOLD_REQUESTS_PER_MINUTE: '1000', SSE_KEEPALIVE_SEC: '1' } });
  owner = await userWithToken(t);
  editor = await userWithToken(t);
  // Real connections for the streams.
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

const events = async (project: string, auth = owner.auth, after = 0, limit = 1000) => {
  const res = await t.app.inject({ method: 'GET', url: `/projects/${project}/events?after=${after}&limit=${limit}`, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as any[];
};

describe(`the project change log (${ENGINE})`, () => {
  test('every write appends one event: seq 1, 2, 3 …, type, actor, changes before/after; after= pages', async () => {
    const p = await createProject(t.app, owner.auth, { body: { editors: [editor.id] } });
    const call = caller(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id, { name: 'Ground' });
    const u = await createUnit(t.app, editor.auth, p._id, { floor: f._id, name: 'A-1', body: { price: 100 } });
    assert.equal((await call('PATCH', `/units/${u._id}`, { price: 120, availability: 'reserved' })).statusCode, 200);
    assert.equal((await call('PATCH', `/floors/${f._id}`, { name: 'Lobby' })).statusCode, 200);
    assert.equal((await call('PATCH', `/projects/${p._id}`, { name: 'Renamed' })).statusCode, 200);
    // A PATCH that changes nothing writes no event.
    assert.equal((await call('PATCH', `/units/${u._id}`, { price: 120 })).statusCode, 200);
    assert.equal((await call('DELETE', `/units/${u._id}`)).statusCode, 204);
    assert.equal((await call('DELETE', `/floors/${f._id}`)).statusCode, 204);

    const log = await events(p._id);
    assert.deepEqual(
      log.map((e) => e.seq),
      [1, 2, 3, 4, 5, 6, 7],
    );
    assert.deepEqual(
      log.map((e) => e.type),
      ['floor.created', 'unit.created', 'unit.updated', 'floor.updated', 'project.updated', 'unit.deleted', 'floor.deleted'],
    );
    assert.deepEqual(log[1].actor, { kind: 'user', id: editor.id });
    assert.deepEqual(log[2].actor, { kind: 'user', id: owner.id });
    assert.equal(log[1].data._id, u._id);
    assert.deepEqual(log[1].data.changes.name, [null, 'A-1']);
    assert.deepEqual(log[1].data.changes.price, [null, 100]);
    assert.deepEqual(log[2].data.changes, { price: [100, 120], availability: ['available', 'reserved'] });
    assert.deepEqual(log[3].data.changes, { name: ['Ground', 'Lobby'] });
    assert.deepEqual(log[4].data.changes, { name: [p.name, 'Renamed'] });
    assert.equal(log[5].data.changes, undefined);
    for (const e of log) {
      assert.equal(e.projectId, p._id);
      assert.match(e.id, /^[0-9a-f]{24}$/);
      assert.ok(!Number.isNaN(Date.parse(e.createdAt)));
    }
    assert.deepEqual(
      (await events(p._id, owner.auth, 5)).map((e) => e.seq),
      [6, 7],
    );
    assert.deepEqual(
      (await events(p._id, owner.auth, 2, 2)).map((e) => e.seq),
      [3, 4],
    );
    // Readers of the project may read it; strangers cannot tell it exists.
    assert.equal((await events(p._id, editor.auth)).length, 7);
    const stranger = await userWithToken(t);
    assert.equal((await t.app.inject({ method: 'GET', url: `/projects/${p._id}/events`, headers: stranger.auth })).statusCode, 404);
    const bad = await t.app.inject({ method: 'GET', url: `/projects/${p._id}/events?limit=1001`, headers: owner.auth });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /limit/);
  });

  test('secrets are named, never valued; allocation passwords too', async () => {
    const p = await createProject(t.app, owner.auth);
    const call = caller(t.app, owner.auth);
    const value = 'sk_live_very_secret_value_123';
    assert.equal(
      (await call('PATCH', `/projects/${p._id}`, { ftpPassword: value, allocations: [{ name: 'VIP', password: 'allocation-pass-xyz' }] })).statusCode,
      200,
    );
    assert.equal((await call('PATCH', `/projects/${p._id}`, { ftpPassword: `${value}-2` })).statusCode, 200);
    assert.equal((await call('PATCH', `/projects/${p._id}`, { ftpPassword: null })).statusCode, 200);
    const res = await t.app.inject({ method: 'GET', url: `/projects/${p._id}/events`, headers: owner.auth });
    assert.ok(!res.body.includes(value) && !res.body.includes('allocation-pass-xyz'), res.body);
    const log = res.json();
    assert.deepEqual(log[0].data.changes.ftpPassword, [null, '***']);
    assert.deepEqual(log[0].data.changes['allocations[VIP].password'], [null, '***']);
    assert.deepEqual(log[0].data.changes.allocations, [null, [{ name: 'VIP' }]]);
    assert.deepEqual(log[1].data.changes, { ftpPassword: ['***', '***'] });
    assert.deepEqual(log[2].data.changes, { ftpPassword: ['***', null] });
  });

  test('lead events: owner and administrators only; actor public', async () => {
    const p = await createProject(t.app, owner.auth, { body: { editors: [editor.id], enableForms: true } });
    const lead = await t.app.inject({ method: 'POST', url: '/public/leads', payload: { project: p._id, ...visitor, message: 'Call me' } });
    assert.equal(lead.statusCode, 201);
    const mine = await events(p._id);
    assert.equal(mine.length, 1);
    assert.equal(mine[0].type, 'lead.created');
    assert.deepEqual(mine[0].actor, { kind: 'public' });
    assert.equal(mine[0].data._id, lead.json()._id);
    assert.deepEqual(mine[0].data.changes.email, [null, visitor.email]);
    assert.deepEqual(await events(p._id, editor.auth), []);
  });

  test('holds: unit.held by the public, unit.hold_expired by the system (sweeper, or a read that finds it lapsed)', async () => {
    const p = await createProject(t.app, owner.auth, { body: { onHoldExperienceEnabled: true, onHoldMinsDuration: 10 } });
    const a = await createUnit(t.app, owner.auth, p._id, { name: 'A' });
    const b = await createUnit(t.app, owner.auth, p._id, { name: 'B' });
    for (const [u, ip] of [
      [a, '198.51.100.20'],
      [b, '198.51.100.21'],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: `/public/units/${u._id}/hold`, payload: visitor, remoteAddress: ip });
      assert.equal(res.statusCode, 200, res.body);
    }
    const until = new Date(clock.now() + 10 * 60_000).toISOString();
    clock.advance(11 * 60_000);
    assert.equal((await t.app.inject({ method: 'GET', url: `/units/${a._id}`, headers: owner.auth })).statusCode, 200);
    const swept = await sweepOnce(t.db.kysely, clock.now());
    assert.ok(swept.ran && swept.released >= 1);
    const log = await events(p._id);
    const held = log.filter((e) => e.type === 'unit.held');
    assert.deepEqual(
      held.map((e) => e.data._id),
      [a._id, b._id],
    );
    assert.deepEqual(held[0].actor, { kind: 'public' });
    assert.deepEqual(held[0].data.changes, { availability: ['available', 'on_hold'], onHoldExpiresAt: [null, until] });
    assert.equal(log.filter((e) => e.type === 'lead.created').length, 2);
    const expired = log.filter((e) => e.type === 'unit.hold_expired');
    assert.deepEqual(expired.map((e) => e.data._id).sort(), [a._id, b._id].sort());
    for (const e of expired) {
      assert.deepEqual(e.actor, { kind: 'system' });
      assert.deepEqual(e.data.changes, { availability: ['on_hold', 'available'], onHoldExpiresAt: [until, null] });
    }
    assert.deepEqual(
      log.map((e) => e.seq),
      log.map((_, i) => i + 1),
    );
  });

  test('20 concurrent writers on one project: seq has no gaps, and a reader paging with after= never misses one', async () => {
    const p = await createProject(t.app, owner.auth);
    const units = [];
    for (let i = 0; i < 20; i++) units.push(await createUnit(t.app, owner.auth, p._id, { name: `C-${i}` }));
    const start = (await events(p._id)).length;
    // A reader pages through the log while the writers commit; if seq were handed out in another order than
    // commits, it would see a later seq before an earlier one committed and skip the earlier one.
    const seen: number[] = [];
    let writing = true;
    const reader = (async () => {
      let cursor = start;
      while (writing || seen.length < 40) {
        const page = await events(p._id, owner.auth, cursor);
        for (const e of page) seen.push(e.seq);
        if (page.length) cursor = page.at(-1).seq;
        else if (!writing) break;
        // Let the writers' requests in (on PGlite the reader's loop could otherwise run on microtasks alone).
        await new Promise((r) => setImmediate(r));
      }
    })();
    const writes = await Promise.all(
      units.flatMap((u, i) => [
        t.app.inject({ method: 'PATCH', url: `/units/${u._id}`, headers: owner.auth, payload: { price: 1000 + i } }),
        t.app.inject({ method: 'PATCH', url: `/units/${u._id}`, headers: owner.auth, payload: { description: `d${i}` } }),
      ]),
    );
    writing = false;
    await reader;
    assert.deepEqual(
      writes.map((w) => w.statusCode),
      writes.map(() => 200),
    );
    const log = await events(p._id, owner.auth, start);
    assert.deepEqual(
      log.map((e) => e.seq),
      Array.from({ length: 40 }, (_, i) => start + i + 1),
    );
    assert.deepEqual(
      seen,
      log.map((e) => e.seq),
    );
    // Each write is in the log exactly once.
    assert.equal(new Set(log.map((e) => `${e.data._id}:${Object.keys(e.data.changes)}`)).size, 40);
  });
});

describe(`unit history (${ENGINE})`, () => {
  test('newest first: seq, type, at, actor, changes; readers only', async () => {
    const p = await createProject(t.app, owner.auth, { body: { editors: [editor.id] } });
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'H-1', body: { price: 10 } });
    const other = await createUnit(t.app, owner.auth, p._id, { name: 'H-2' });
    await caller(t.app, editor.auth)('PATCH', `/units/${u._id}`, { price: 11 });
    await caller(t.app, owner.auth)('PATCH', `/units/${other._id}`, { price: 99 });
    await caller(t.app, owner.auth)('PATCH', `/units/${u._id}`, { availability: 'sold' });
    const res = await t.app.inject({ method: 'GET', url: `/units/${u._id}/history`, headers: editor.auth });
    assert.equal(res.statusCode, 200);
    const h = res.json();
    assert.deepEqual(
      h.map((x: any) => x.type),
      ['unit.updated', 'unit.updated', 'unit.created'],
    );
    assert.deepEqual(h[0].changes, { availability: ['available', 'sold'] });
    assert.deepEqual(h[0].actor, { kind: 'user', id: owner.id });
    assert.deepEqual(h[1], { seq: h[1].seq, type: 'unit.updated', at: h[1].at, actor: { kind: 'user', id: editor.id }, changes: { price: [10, 11] } });
    assert.ok(h[0].seq > h[1].seq && h[1].seq > h[2].seq);
    const page = (await t.app.inject({ method: 'GET', url: `/units/${u._id}/history?before=${h[0].seq}&limit=1`, headers: owner.auth })).json();
    assert.deepEqual(
      page.map((x: any) => x.seq),
      [h[1].seq],
    );
    const stranger = await userWithToken(t);
    assert.equal((await t.app.inject({ method: 'GET', url: `/units/${u._id}/history`, headers: stranger.auth })).statusCode, 404);
  });
});

describe(`public live feed (${ENGINE})`, () => {
  test('a unit change reaches an open stream; the public part only; price hidden without showPrices', async () => {
    const ns = slug();
    // hideSold off: a project that hides sold units names none in its feed (test/hide-sold.test.ts).
    const p = await createProject(t.app, owner.auth, { query: { namespace: ns }, body: { showPrices: false, hideSold: false } });
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'S-1', body: { price: 500 } });
    const stream = await SseClient.open(`${base}/public/projects/${ns}/events`);
    try {
      assert.equal(stream.status, 200);
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
      assert.equal(stream.headers['access-control-allow-origin'], '*');
      await caller(t.app, owner.auth)('PATCH', `/units/${u._id}`, { description: 'private note' });
      await caller(t.app, owner.auth)('PATCH', `/units/${u._id}`, { price: 600, availability: 'sold' });
      await stream.until((s) => s.messages.length >= 1);
      const [msg] = stream.json();
      assert.deepEqual(msg, { seq: 3, type: 'unit.updated', _id: u._id, changes: { availability: ['available', 'sold'] } });
      assert.equal(stream.messages[0]!.id, '3');
    } finally {
      stream.close();
    }
  });

  test('Last-Event-ID resumes after that seq; keep-alive comments; unknown namespace 404; bad Last-Event-ID 400', async () => {
    const ns = slug();
    const p = await createProject(t.app, owner.auth, { query: { namespace: ns } });
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'R-1', body: { price: 1 } });
    for (const price of [2, 3, 4]) await caller(t.app, owner.auth)('PATCH', `/units/${u._id}`, { price });
    const resumed = await SseClient.open(`${base}/public/projects/${ns}/events`, { 'last-event-id': '2' });
    try {
      await resumed.until((s) => s.messages.length >= 2);
      assert.deepEqual(
        resumed.messages.map((m) => m.id),
        ['3', '4'],
      );
      assert.deepEqual(
        resumed.json().map((m) => m.changes.price),
        [
          [2, 3],
          [3, 4],
        ],
      );
      await caller(t.app, owner.auth)('PATCH', `/units/${u._id}`, { price: 5 });
      await resumed.until((s) => s.messages.length >= 3);
      assert.equal(resumed.messages[2]!.id, '5');
      // SSE_KEEPALIVE_SEC=1 in this file.
      await resumed.until((s) => s.comments.includes('keep-alive'));
    } finally {
      resumed.close();
    }
    const viaQuery = await SseClient.open(`${base}/public/projects/${ns}/events?lastEventId=4`);
    try {
      await viaQuery.until((s) => s.messages.length >= 1);
      assert.deepEqual(
        viaQuery.messages.map((m) => m.id),
        ['5'],
      );
    } finally {
      viaQuery.close();
    }
    const missing = await SseClient.open(`${base}/public/projects/${slug()}/events`);
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).code, 'not_found');
    const bad = await SseClient.open(`${base}/public/projects/${ns}/events`, { 'last-event-id': 'abc' });
    assert.equal(bad.status, 400);
  });

  test('holds and their expiry reach the stream', async () => {
    const ns = slug();
    const p = await createProject(t.app, owner.auth, { query: { namespace: ns }, body: { onHoldExperienceEnabled: true, onHoldMinsDuration: 5 } });
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'X-1' });
    const stream = await SseClient.open(`${base}/public/projects/${ns}/events`);
    try {
      const res = await t.app.inject({ method: 'POST', url: `/public/units/${u._id}/hold`, payload: visitor, remoteAddress: '198.51.100.99' });
      assert.equal(res.statusCode, 200);
      clock.advance(6 * 60_000);
      await sweepOnce(t.db.kysely, clock.now());
      await stream.until((s) => s.messages.length >= 2);
      assert.deepEqual(
        stream.json().map((m) => m.type),
        ['unit.held', 'unit.hold_expired'],
      );
      assert.ok(!stream.messages.some((m) => m.data.includes('lead')), 'the hold lead is not public');
    } finally {
      stream.close();
    }
  });
});

describe(`live-feed bounds (${ENGINE})`, () => {
  test('past SSE_STREAMS_PER_CLIENT per address or SSE_MAX_STREAMS per node → 429 with Retry-After; /health still answers', async () => {
    const bounded = await buildApp({ config: testConfig({ SSE_STREAMS_PER_CLIENT: '3', SSE_MAX_STREAMS: '5', HOLD_SWEEP_SEC: '0' }), db: t.db, logger: false });
    await bounded.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(bounded.server.address() as AddressInfo).port}`;
    const ns = slug();
    await createProject(t.app, owner.auth, { query: { namespace: ns } });
    const feed = `${url}/public/projects/${ns}/events`;
    const from = (localAddress: string) => SseClient.open(feed, {}, { localAddress });
    const open: SseClient[] = [];
    try {
      for (let i = 0; i < 3; i += 1) open.push(await from('127.0.0.1'));
      assert.deepEqual(
        open.map((s) => s.status),
        [200, 200, 200],
      );
      const fourth = await from('127.0.0.1');
      assert.equal(fourth.status, 429);
      assert.match(String(fourth.headers['content-type']), /^application\/problem\+json/);
      assert.equal(fourth.headers['retry-after'], '30');
      assert.equal(JSON.parse(fourth.body).code, 'rate_limited');
      assert.equal(JSON.parse(fourth.body).limit, 3);
      assert.match(JSON.parse(fourth.body).detail, /SSE_STREAMS_PER_CLIENT/);
      // Another address still gets its own, up to the node's bound.
      for (let i = 0; i < 2; i += 1) open.push(await from('127.0.0.2'));
      assert.equal(open.at(-1)!.status, 200);
      const pastNode = await from('127.0.0.3');
      assert.equal(pastNode.status, 429);
      assert.equal(pastNode.headers['retry-after'], '30');
      assert.match(JSON.parse(pastNode.body).detail, /SSE_MAX_STREAMS/);
      // At the bound the node still answers everything else.
      const health = await fetch(`${url}/health`);
      assert.equal(health.status, 200);
      // A closed stream gives its place back (once the server has seen the close), and a 404 holds none.
      open.shift()!.close();
      const whenFree = async (localAddress: string) => {
        for (;;) {
          const s = await from(localAddress);
          if (s.status !== 429) return s;
          await new Promise((r) => setImmediate(r));
        }
      };
      const again = await whenFree('127.0.0.3');
      assert.equal(again.status, 200);
      open.push(again);
      open.shift()!.close();
      let missing: SseClient;
      do missing = await SseClient.open(`${url}/public/projects/${slug()}/events`, {}, { localAddress: '127.0.0.4' });
      while (missing.status === 429);
      assert.equal(missing.status, 404);
      const last = await from('127.0.0.4');
      assert.equal(last.status, 200, 'the 404 gave its place back');
      open.push(last);
    } finally {
      for (const s of open) s.close();
      await bounded.close();
    }
  });
});

describe('live feed across two service processes on one PostgreSQL database', () => {
  test('a change made through one node reaches a stream open on the other', async (ctx) => {
    if (ENGINE !== 'postgres') return ctx.skip('needs PostgreSQL');
    const shared = await openTestDb();
    const children: ChildProcess[] = [];
    let stream: SseClient | undefined;
    try {
      const ports = await startTwoNodes(shared.url!, children, { HOLD_SWEEP_SEC: '0' });
      // The console's and the API's host by default (127.0.0.1 serves the buyer's pages).
      const [a, b] = ports.map((port) => `http://localhost:${port}`);
      const user = await createUser(shared.db);
      const login = await fetch(`${a}/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: user.username, password: user.password }),
      });
      const auth = { authorization: `Bearer ${(await login.json()).access_token}`, 'content-type': 'application/json' };
      const ns = slug();
      const p = await (await fetch(`${a}/projects?name=Two&namespace=${ns}`, { method: 'POST', headers: auth, body: '{}' })).json();
      const u = await (await fetch(`${a}/units?project=${p._id}&name=T-1&position=0`, { method: 'POST', headers: auth, body: '{}' })).json();

      stream = await SseClient.open(`${b}/public/projects/${ns}/events`);
      const patched = await fetch(`${a}/units/${u._id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ availability: 'reserved' }) });
      assert.equal(patched.status, 200);
      await stream.until((s) => s.messages.length >= 1);
      assert.deepEqual(stream.json()[0], { seq: 2, type: 'unit.updated', _id: u._id, changes: { availability: ['available', 'reserved'] } });
    } finally {
      stream?.close();
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
      await shared.drop();
    }
  });
});

describe(`bulk PATCH /units in the log (${ENGINE})`, () => {
  test('one unit.updated per changed unit, actor the caller, seqs contiguous in request order; an unchanged item appends nothing', async () => {
    const p = await createProject(t.app, owner.auth, { body: { editors: [editor.id] } });
    const [a, b, c] = [
      await createUnit(t.app, owner.auth, p._id, { name: 'B-1', body: { price: 100 } }),
      await createUnit(t.app, owner.auth, p._id, { name: 'B-2', body: { price: 200 } }),
      await createUnit(t.app, owner.auth, p._id, { name: 'B-3', body: { price: 300 } }),
    ];
    const start = (await events(p._id)).at(-1).seq;
    const projectEtag = async () => (await caller(t.app, owner.auth)('GET', `/project/${p._id}`)).headers.etag;
    const etag = await projectEtag();
    const res = await caller(t.app, editor.auth)('PATCH', '/units', [
      { _id: c._id, price: 310, availability: 'Reserved' },
      { _id: b._id, price: 200 },
      { _id: a._id, description: 'Corner' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const log = await events(p._id, owner.auth, start);
    assert.deepEqual(
      log.map((e) => [e.seq, e.type, e.data._id]),
      [
        [start + 1, 'unit.updated', c._id],
        [start + 2, 'unit.updated', a._id],
      ],
    );
    for (const e of log) assert.deepEqual(e.actor, { kind: 'user', id: editor.id });
    assert.deepEqual(log[0].data.changes, { price: [300, 310], availability: ['available', 'reserved'] });
    assert.deepEqual(log[1].data.changes, { description: [null, 'Corner'] });
    assert.equal(await projectEtag(), etag, "the project's own version (ETag) is not a unit's: unchanged");
    // A bulk PATCH changing nothing appends nothing.
    assert.equal((await caller(t.app, owner.auth)('PATCH', '/units', [{ _id: b._id, price: 200 }])).statusCode, 200);
    assert.equal((await events(p._id, owner.auth, start)).length, 2);
  });

  test('the same change appends the same event as PATCH /units/{id}, hold expiry cleared included', async () => {
    const p = await createProject(t.app, owner.auth);
    const until = new Date(clock.now() + 3600_000).toISOString();
    const single = await createUnit(t.app, owner.auth, p._id, { name: 'Twin-1', body: { price: 1 } });
    const bulk = await createUnit(t.app, owner.auth, p._id, { name: 'Twin-2', body: { price: 1 } });
    const call = caller(t.app, owner.auth);
    const change = [
      { availability: 'on_hold', onHoldExpiresAt: until },
      { availability: 'sold', price: 2, floor: null },
    ];
    for (const body of change) {
      assert.equal((await call('PATCH', `/units/${single._id}`, body)).statusCode, 200);
      assert.equal((await call('PATCH', '/units', [{ _id: bulk._id, ...body }])).statusCode, 200);
    }
    const log = await events(p._id);
    const of = (id: string) => log.filter((e) => e.type === 'unit.updated' && e.data._id === id).map((e) => e.data.changes);
    assert.deepEqual(of(bulk._id), of(single._id));
    assert.deepEqual(of(bulk._id), [
      { availability: ['available', 'on_hold'], onHoldExpiresAt: [null, until] },
      { availability: ['on_hold', 'sold'], price: [1, 2], onHoldExpiresAt: [until, null] },
    ]);
  });

  test('units of two projects: each project gets its own events, seqs contiguous; a stale item (412) appends nothing', async () => {
    const p = await createProject(t.app, owner.auth);
    const q = await createProject(t.app, owner.auth);
    const ps = [await createUnit(t.app, owner.auth, p._id, { name: 'P-1' }), await createUnit(t.app, owner.auth, p._id, { name: 'P-2' })] as const;
    const qs = [await createUnit(t.app, owner.auth, q._id, { name: 'Q-1' }), await createUnit(t.app, owner.auth, q._id, { name: 'Q-2' })] as const;
    const stale = await caller(t.app, owner.auth)('PATCH', '/units', [
      { _id: ps[0]._id, price: 1 },
      { _id: qs[0]._id, price: 1, ifMatch: '"999"' },
    ]);
    assert.equal(stale.statusCode, 412);
    assert.deepEqual(
      (await events(p._id)).map((e) => e.type),
      ['unit.created', 'unit.created'],
    );
    const res = await caller(t.app, owner.auth)('PATCH', '/units', [
      { _id: qs[1]._id, price: 5 },
      { _id: ps[0]._id, price: 6 },
      { _id: qs[0]._id, price: 7 },
      { _id: ps[1]._id, price: 8 },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      (await events(p._id)).map((e) => [e.seq, e.type, e.data._id, e.data.changes.price?.[1]]),
      [
        [1, 'unit.created', ps[0]._id, undefined],
        [2, 'unit.created', ps[1]._id, undefined],
        [3, 'unit.updated', ps[0]._id, 6],
        [4, 'unit.updated', ps[1]._id, 8],
      ],
    );
    assert.deepEqual(
      (await events(q._id)).map((e) => [e.seq, e.type, e.data._id, e.data.changes.price?.[1]]),
      [
        [1, 'unit.created', qs[0]._id, undefined],
        [2, 'unit.created', qs[1]._id, undefined],
        [3, 'unit.updated', qs[1]._id, 5],
        [4, 'unit.updated', qs[0]._id, 7],
      ],
    );
  });

  test("the unit's history shows a bulk change", async () => {
    const p = await createProject(t.app, owner.auth, { body: { editors: [editor.id] } });
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'HB-1', body: { price: 10 } });
    assert.equal((await caller(t.app, editor.auth)('PATCH', '/units', [{ _id: u._id, price: 12, availability: 'sold' }])).statusCode, 200);
    const h = (await t.app.inject({ method: 'GET', url: `/units/${u._id}/history`, headers: owner.auth })).json();
    assert.deepEqual(
      h.map((x: any) => x.type),
      ['unit.updated', 'unit.created'],
    );
    assert.deepEqual(h[0].actor, { kind: 'user', id: editor.id });
    assert.deepEqual(h[0].changes, { price: [10, 12], availability: ['available', 'sold'] });
  });

  test('an open stream receives a bulk change, one message per unit, in seq order', async () => {
    const ns = slug();
    const p = await createProject(t.app, owner.auth, { query: { namespace: ns }, body: { hideSold: false } });
    const a = await createUnit(t.app, owner.auth, p._id, { name: 'SB-1', body: { price: 1 } });
    const b = await createUnit(t.app, owner.auth, p._id, { name: 'SB-2', body: { price: 1 } });
    const stream = await SseClient.open(`${base}/public/projects/${ns}/events`);
    try {
      const res = await caller(t.app, owner.auth)('PATCH', '/units', [
        { _id: b._id, availability: 'sold' },
        { _id: a._id, price: 2, description: 'not public' },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      await stream.until((s) => s.messages.length >= 2);
      assert.deepEqual(stream.json(), [
        { seq: 3, type: 'unit.updated', _id: b._id, changes: { availability: ['available', 'sold'] } },
        { seq: 4, type: 'unit.updated', _id: a._id, changes: { price: [1, 2] } },
      ]);
      assert.deepEqual(
        stream.messages.map((m) => m.id),
        ['3', '4'],
      );
    } finally {
      stream.close();
    }
  });
});
