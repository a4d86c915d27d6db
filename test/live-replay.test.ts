import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { APPEND_BATCH, appendEvents } from '../src/modules/events/events.repo.ts';
import { buildTestApp, caller, createProject, createUnit, ENGINE, slug, testConfig, userWithToken, type TestApp } from './helpers.ts';
import { SseClient } from './sse-client.ts';

const METRICS = 'metrics-token-for-the-replay-tests-0123456789';
/** The size of the log one ordinary import of 20,000 units leaves. */
const LOG = 20_000;

let t: TestApp;
let owner: Awaited<ReturnType<typeof userWithToken>>;
let base: string;

before(async () => {
  t = await buildTestApp({ env: { HOLD_SWEEP_SEC: '0' } });
  owner = await userWithToken(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

/** A public project with one unit and `events` changes of it in its log (written as an import writes them). */
async function projectWithLog(events: number) {
  const ns = slug();
  const p = await createProject(t.app, owner.auth, { query: { namespace: ns }, body: { hideSold: false } });
  const u = await createUnit(t.app, owner.auth, p._id, { name: 'L-1' });
  const now = Date.now();
  await t.db.kysely.transaction().execute(async (trx) => {
    for (let i = 0; i < events; i += APPEND_BATCH) {
      const batch = Array.from({ length: Math.min(APPEND_BATCH, events - i) }, (_, k) => {
        const odd = (i + k) % 2 === 0;
        return {
          type: 'unit.updated' as const,
          actor: { kind: 'system' as const },
          subjectId: u._id,
          changes: { availability: odd ? ['available', 'reserved'] : ['reserved', 'available'] } as Record<string, [unknown, unknown]>,
          now,
        };
      });
      await appendEvents(trx, p._id, batch);
    }
  });
  // The unit's own created event comes first.
  return { ns, project: p, unit: u, head: events + 1 };
}

/** A second node on the same database with other settings, listening. */
async function nodeWith(env: Record<string, string>): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildApp({ config: testConfig({ HOLD_SWEEP_SEC: '0', ...env }), db: t.db, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

const ids = (s: SseClient) => s.messages.map((m) => Number(m.id));
const refetched = (s: SseClient) => s.messages.some((m) => m.event === 'refetch');
const has = (s: SseClient, seq: number) => s.messages.some((m) => Number(m.id) === seq);

/**
 * What a stream resumed after `from` may have been sent: the events after `from`, in order and without a gap, then
 * at most one `refetch` (at a seq it had not passed), then live events after that seq, in order.
 */
function assertPrefixThenLive(s: SseClient, from: number) {
  let expected = from + 1;
  let sawRefetch = false;
  for (const m of s.messages) {
    const seq = Number(m.id);
    if (m.event === 'refetch') {
      assert.equal(sawRefetch, false, 'one refetch at most');
      assert.ok(seq >= expected - 1, `refetch at ${seq} after ${expected - 1} was sent`);
      assert.deepEqual(JSON.parse(m.data), { seq, type: 'refetch' });
      sawRefetch = true;
      expected = seq + 1;
    } else {
      assert.equal(seq, expected, `messages in order without a gap: ${ids(s).slice(0, 20).join(',')}…`);
      expected += 1;
    }
  }
}

describe(`live-feed replay bounds (${ENGINE})`, () => {
  test('a stream a few events behind gets exactly those events, in order, then live ones; no refetch', async () => {
    const { ns, unit, head } = await projectWithLog(6);
    const stream = await SseClient.open(`${base}/public/projects/${ns}/events`, { 'last-event-id': String(head - 3) });
    try {
      await stream.until((s) => s.messages.length >= 3);
      assert.deepEqual(ids(stream), [head - 2, head - 1, head]);
      assert.deepEqual(
        stream.json().map((m) => m.changes.availability),
        [
          ['reserved', 'available'],
          ['available', 'reserved'],
          ['reserved', 'available'],
        ],
      );
      await caller(t.app, owner.auth)('PATCH', `/units/${unit._id}`, { description: 'not public' });
      await caller(t.app, owner.auth)('PATCH', `/units/${unit._id}`, { availability: 'sold' });
      await stream.until((s) => has(s, head + 2));
      assert.deepEqual(ids(stream), [head - 2, head - 1, head, head + 2]);
      assert.equal(refetched(stream), false);
    } finally {
      stream.close();
    }
  });

  test(`20 streams with Last-Event-ID: 0 on a ${LOG}-event log each get one refetch at the head, then live changes; /health answers`, async () => {
    const { ns, unit, head } = await projectWithLog(LOG);
    const url = `${base}/public/projects/${ns}/events`;
    const streams = await Promise.all(Array.from({ length: 20 }, () => SseClient.open(url, { 'last-event-id': '0' })));
    try {
      await Promise.all(streams.map((s) => s.until((c) => c.messages.length >= 1)));
      for (const s of streams) {
        assert.deepEqual(s.messages, [{ id: String(head), event: 'refetch', data: JSON.stringify({ seq: head, type: 'refetch' }) }]);
      }
      assert.equal((await fetch(`${base}/health`)).status, 200);
      await caller(t.app, owner.auth)('PATCH', `/units/${unit._id}`, { availability: 'sold' });
      await Promise.all(streams.map((s) => s.until((c) => has(c, head + 1))));
      for (const s of streams) assert.deepEqual(ids(s), [head, head + 1]);
    } finally {
      for (const s of streams) s.close();
    }
  });

  test('a stream further behind than SSE_REPLAY_MAX_EVENTS gets refetch; one within it gets its events', async () => {
    const node = await nodeWith({ SSE_REPLAY_MAX_EVENTS: '5' });
    const { ns, head } = await projectWithLog(10);
    const url = `${node.url}/public/projects/${ns}/events`;
    const far = await SseClient.open(url, { 'last-event-id': String(head - 6) });
    const near = await SseClient.open(url, { 'last-event-id': String(head - 5) });
    try {
      await far.until((s) => s.messages.length >= 1);
      assert.deepEqual(far.messages, [{ id: String(head), event: 'refetch', data: JSON.stringify({ seq: head, type: 'refetch' }) }]);
      await near.until((s) => s.messages.length >= 5);
      assert.deepEqual(ids(near), [head - 4, head - 3, head - 2, head - 1, head]);
      assert.equal(refetched(near), false);
    } finally {
      far.close();
      near.close();
      await node.app.close();
    }
  });

  test(`the attack: 20 streams replaying a ${LOG}-event log; a live write reaches another stream while they replay; each replay stays in order and ends bounded`, async () => {
    // Replays of the whole log are allowed here, so the streams really read it (bounded by the default 2 s budget).
    const node = await nodeWith({ SSE_REPLAY_MAX_EVENTS: '100000', METRICS_TOKEN: METRICS });
    const { ns, unit, head } = await projectWithLog(LOG);
    const url = `${node.url}/public/projects/${ns}/events`;
    const attackers = await Promise.all(Array.from({ length: 20 }, () => SseClient.open(url, { 'last-event-id': '0' }, { localAddress: '127.0.0.1' })));
    const visitor = await SseClient.open(url, {}, { localAddress: '127.0.0.2' });
    try {
      assert.equal((await fetch(`${node.url}/health`)).status, 200);
      await caller(t.app, owner.auth)('PATCH', `/units/${unit._id}`, { availability: 'sold' });
      await visitor.until((s) => has(s, head + 1));
      assert.deepEqual(ids(visitor), [head + 1]);
      // The visitor has the write while the replays are still under way: it did not wait for them.
      const metrics = await (await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).text();
      const replaying = Number(/^showsuite_sse_replays (\d+)$/m.exec(metrics)?.[1]);
      assert.ok(replaying > 0, `replays under way when the visitor had the write: ${replaying}`);
      // Each replay ends (the whole log, or refetch past its budget), then the live write follows, in order.
      await Promise.all(attackers.map((a) => a.until((c) => has(c, head + 1), 20_000)));
      for (const a of attackers) {
        assertPrefixThenLive(a, 0);
        assert.equal(ids(a).at(-1), head + 1);
      }
    } finally {
      for (const s of [...attackers, visitor]) s.close();
      await node.app.close();
    }
  });
});
