import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import {
  buildTestApp,
  caller,
  createFloor,
  createProject,
  createUnit,
  ENGINE,
  slug,
  testConfig,
  userWithToken,
  type LoggedIn,
  type TestApp,
} from './helpers.ts';
import { SseClient } from './sse-client.ts';

/**
 * The replay cache changes where a replay's frames come from, never what they say: a node replaying from ready frames
 * and a node reading the log (SSE_REPLAY_CACHE_MB=0) send the same messages, byte for byte, for a log that hides sold
 * units, masks allocated ones, hides prices, deletes units and floors — also after the frames were built and then
 * changed under them by live writes.
 */
const METRICS = 'metrics-token-for-the-replay-cache-tests-0123';
const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };

let t: TestApp;
let owner: LoggedIn;
let cached: { app: FastifyInstance; url: string };
let uncached: { app: FastifyInstance; url: string };

/** A node on the test database with its own settings, listening. */
async function node(env: Record<string, string>) {
  const app = await buildApp({
    config: testConfig({ HOLD_SWEEP_SEC: '0', HOLD_REQUESTS_PER_MINUTE: '1000', METRICS_TOKEN: METRICS, ...env }),
    db: t.db,
    logger: false,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

before(async () => {
  t = await buildTestApp({ env: { HOLD_SWEEP_SEC: '0' } });
  owner = await userWithToken(t);
  cached = await node({});
  uncached = await node({ SSE_REPLAY_CACHE_MB: '0' });
});
after(async () => {
  await cached.app.close();
  await uncached.app.close();
  await t.close();
});

const ids = (s: SseClient) => s.messages.map((m) => Number(m.id));

async function cacheBytes(url: string) {
  const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).text();
  return Number(/^showsuite_sse_replay_cache_bytes (\d+)$/m.exec(metrics)?.[1]);
}

/** What a stream resuming after `from` is sent up to the message with id `upTo`, on one node. */
async function replayed(url: string, ns: string, from: number, upTo: number) {
  const stream = await SseClient.open(`${url}/public/projects/${ns}/events`, { 'last-event-id': String(from) });
  try {
    await stream.until((s) => ids(s).includes(upTo));
    return stream.messages.slice();
  } finally {
    stream.close();
  }
}

/** Both nodes' replays from `from` to `upTo`: the same messages, and none of them a refetch. */
async function assertSameReplay(ns: string, from: number, upTo: number) {
  const fromFrames = await replayed(cached.url, ns, from, upTo);
  const fromLog = await replayed(uncached.url, ns, from, upTo);
  assert.ok(fromLog.length > 0);
  assert.ok(!fromLog.some((m) => m.event === 'refetch'));
  assert.deepEqual(fromFrames, fromLog);
  return fromLog;
}

describe(`live-feed replay cache (${ENGINE})`, () => {
  test('a replay from ready frames is byte for byte the replay read from the log, before and after live changes', async () => {
    const call = caller(t.app, owner.auth);
    const ns = slug();
    const p = await createProject(t.app, owner.auth, {
      query: { namespace: ns },
      body: { hideSold: true, showPrices: true, onHoldExperienceEnabled: true },
    });
    const floor = await createFloor(t.app, owner.auth, p._id, { name: 'L1' });
    const gone = await createFloor(t.app, owner.auth, p._id, { name: 'L2' });
    const a = await createUnit(t.app, owner.auth, p._id, { name: 'A-1', floor: floor._id, body: { price: 1 } });
    const b = await createUnit(t.app, owner.auth, p._id, { name: 'B-1', floor: floor._id, body: { price: 1 } });
    const c = await createUnit(t.app, owner.auth, p._id, { name: 'C-1', floor: floor._id, body: { availability: 'sold' } });
    const d = await createUnit(t.app, owner.auth, p._id, { name: 'D-1', floor: gone._id, body: { price: 5 } });
    assert.equal((await call('PATCH', `/projects/${p._id}`, { allocations: [{ name: 'Realtor', allocation: 'B-1' }] })).statusCode, 200);
    for (const [unit, body] of [
      [a, { price: 2 }],
      [b, { availability: 'reserved' }],
      [b, { availability: 'available', price: 3 }],
      [a, { description: 'not public' }],
      [d, { availability: 'sold' }],
      [c, { price: 9 }],
    ] as const)
      assert.equal((await call('PATCH', `/units/${unit._id}`, body)).statusCode, 200);
    const held = await t.app.inject({ method: 'POST', url: `/public/units/${a._id}/hold`, payload: visitor, remoteAddress: '198.51.100.7' });
    assert.equal(held.statusCode, 200, held.body);
    assert.equal((await call('DELETE', `/floors/${gone._id}`)).statusCode, 204);
    // A floor renamed: a message every reader is sent whatever the settings, marking where the log ends now.
    let renames = 0;
    const marker = async () => {
      assert.equal((await call('PATCH', `/floors/${floor._id}`, { name: `L1-${++renames}` })).statusCode, 200);
      const events = (await call('GET', `/projects/${p._id}/events?limit=1000`)).json<{ seq: number }[]>();
      return events.at(-1)!.seq;
    };

    // Built from the log at the first replay; the uncached node keeps nothing.
    let head = await marker();
    const first = await assertSameReplay(ns, 0, head);
    assert.ok(
      first.some((m) => !m.data.includes('"_id"')),
      'sold units go unnamed',
    );
    assert.ok((await cacheBytes(cached.url)) > 0);
    assert.equal(await cacheBytes(uncached.url), 0);

    // A stream open on the cached node keeps its frames up to date from the live changes; each kind of change below
    // either extends them or makes them be built again, and the replay still reads as the log does.
    const live = await SseClient.open(`${cached.url}/public/projects/${ns}/events`);
    try {
      const steps: [string, () => Promise<unknown>][] = [
        ['a unit sold: its earlier events go unnamed', () => call('PATCH', `/units/${a._id}`, { availability: 'sold' })],
        ['a unit no longer sold: named again', () => call('PATCH', `/units/${a._id}`, { availability: 'available' })],
        ['a price change', () => call('PATCH', `/units/${b._id}`, { price: 11 })],
        ['prices hidden', () => call('PATCH', `/projects/${p._id}`, { showPrices: false })],
        ['the allocation names another unit', () => call('PATCH', `/projects/${p._id}`, { allocations: [{ name: 'Realtor', allocation: 'A-1' }] })],
        ['a unit renamed into the allocation', () => call('PATCH', `/units/${b._id}`, { name: 'A-1-B' })],
        ['a unit deleted', () => call('DELETE', `/units/${c._id}`)],
        ['sold units shown', () => call('PATCH', `/projects/${p._id}`, { hideSold: false })],
      ];
      for (const [what, change] of steps) {
        await change();
        head = await marker();
        await live.until((s) => ids(s).includes(head));
        await assertSameReplay(ns, 0, head).catch((err: unknown) => {
          throw new Error(`after ${what}: ${String(err)}`);
        });
        // And from the middle of the log.
        await assertSameReplay(ns, Math.floor(head / 2), head);
      }
    } finally {
      live.close();
    }
  });

  test('with SSE_REPLAY_MAX_EVENTS frames per project, a stream within them gets exactly its events; one further back gets refetch', async () => {
    const far = await node({ SSE_REPLAY_MAX_EVENTS: '5' });
    try {
      const call = caller(t.app, owner.auth);
      const ns = slug();
      const p = await createProject(t.app, owner.auth, { query: { namespace: ns }, body: { hideSold: false } });
      const u = await createUnit(t.app, owner.auth, p._id, { name: 'L-1', body: { price: 1 } });
      for (let price = 2; price <= 12; price++) await call('PATCH', `/units/${u._id}`, { price });
      const head = (await call('GET', `/projects/${p._id}/events?limit=1000`)).json<{ seq: number }[]>().at(-1)!.seq;
      const url = `${far.url}/public/projects/${ns}/events`;
      for (const from of [head - 5, head - 3, head - 5]) {
        const s = await SseClient.open(url, { 'last-event-id': String(from) });
        try {
          await s.until((c) => ids(c).includes(head));
          assert.deepEqual(
            ids(s),
            Array.from({ length: head - from }, (_, i) => from + 1 + i),
          );
          assert.deepEqual(
            s.messages.map((m) => JSON.parse(m.data).changes.price[1]),
            ids(s).map((seq) => 12 - (head - seq)),
          );
        } finally {
          s.close();
        }
      }
      const behind = await SseClient.open(url, { 'last-event-id': String(head - 6) });
      try {
        await behind.until((c) => c.messages.length >= 1);
        assert.deepEqual(behind.messages, [{ id: String(head), event: 'refetch', data: JSON.stringify({ seq: head, type: 'refetch' }) }]);
      } finally {
        behind.close();
      }
    } finally {
      await far.app.close();
    }
  });
});
