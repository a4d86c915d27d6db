import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { openDb } from '../src/db/db.ts';
import { findDeliveryTurn, findHeadPending, lockWebhook, settleDelivery } from '../src/modules/webhooks/webhooks.repo.ts';
import { buildTestApp, nodeOn, createProject, createUnit, ENGINE, openTestDb, type TestApp, type TestDb, userWithToken } from './helpers.ts';
import { Receiver } from './support/webhook-receiver.ts';

/**
 * A webhook's turn (only its oldest pending delivery has a job) is handed over by the settling side and taken by
 * the append of new events, both under the webhook's row lock. These tests hold that hand-over to its promise: no
 * delivery is ever left pending without a job, and each is delivered once, in seq order.
 */

const env = { ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '0', HOLD_SWEEP_SEC: '0', SECRET_KEY: randomBytes(32).toString('hex') };
const receivers: Receiver[] = [];
after(async () => {
  for (const r of receivers) await r.close().catch(() => {});
});

async function receiver() {
  const r = await new Receiver().listen();
  receivers.push(r);
  return r;
}

type Auth = { authorization: string };

async function subscribe(t: TestApp, auth: Auth, project: string, url: string) {
  const res = await t.app.inject({ method: 'POST', url: `/projects/${project}/webhooks`, headers: auth, payload: { url, events: ['unit.updated'] } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { _id: string; secret: string };
}

async function deliveries(t: TestApp, auth: Auth, project: string, hook: string) {
  const res = await t.app.inject({ method: 'GET', url: `/projects/${project}/webhooks/${hook}/deliveries?limit=500`, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { _id: string; status: string; event: { seq: number }; attempts: unknown[] }[];
}

// PGlite is one connection whose transactions run one after the other (the dialect holds it from BEGIN to COMMIT):
// an append can never wait for a lock another transaction holds, so this interleaving exists on PostgreSQL only.
describe('webhooks: a turn handed over while an append waits for the lock (postgres)', { skip: ENGINE !== 'postgres' }, () => {
  let testDb: TestDb;
  let t: TestApp;
  before(async () => {
    testDb = await openTestDb();
    t = await buildTestApp({ env, testDb });
  });
  after(async () => {
    await t.close();
    await testDb.drop();
  });

  test('the settling side holds the lock and finds no next delivery; the waiting append then queues its own as the head', async () => {
    const owner = await userWithToken(t);
    const r = await receiver();
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id, { body: { price: 1 } });
    const hook = await subscribe(t, owner.auth, p._id, r.url);
    const patch = (price: number) => t.app.inject({ method: 'PATCH', url: `/units/${u._id}`, headers: owner.auth, payload: { price } });
    assert.equal((await patch(2)).statusCode, 200);
    const [first] = await deliveries(t, owner.auth, p._id, hook._id);
    assert.equal(first?.status, 'pending');

    // The settling side, on a connection of its own, as WebhookDispatcher settles: the webhook's lock, the delivery
    // settled, and no next pending delivery found. It keeps the lock until told to commit.
    const other = await openDb({ databaseUrl: testDb.url!, poolSize: 1 });
    try {
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => (commit = resolve));
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const settling = other.kysely.transaction().execute(async (trx) => {
        const turn = await findDeliveryTurn(trx, first!._id);
        await lockWebhook(trx, turn!.webhook_id);
        assert.equal(await settleDelivery(trx, first!._id, 'delivered', new Date()), true);
        assert.equal(await findHeadPending(trx, hook._id), undefined);
        holding();
        await committing;
      });
      await held;

      // An append of a new event starts now, and waits for the webhook's lock.
      const appending = patch(3);
      await untilWaitingForALock(t);
      commit();
      await settling;
      assert.equal((await appending).statusCode, 200);

      // The new delivery is the webhook's head: it has its job (the first one's job finds it settled and does nothing).
      await t.app.outbox.drain();
      assert.equal(r.received.length, 1, 'the delivery appended behind the lock was sent');
      const sent = new Webhook(hook.secret).verify(r.received[0]!.body, r.received[0]!.headers as Record<string, string>) as { seq: number };
      const [second] = await deliveries(t, owner.auth, p._id, hook._id);
      assert.equal(sent.seq, second!.event.seq);
      assert.equal(second!.status, 'delivered');
    } finally {
      await other.close();
    }
  });
});

/** Returns once a statement of the test's database waits for a lock (bounded: fails after 10 s). */
async function untilWaitingForALock(t: TestApp) {
  for (let i = 0; i < 1000; i++) {
    const r = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(t.db.kysely);
    if (r.rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no statement came to wait for the webhook lock');
}

/**
 * Writes alternating between two nodes (two apps, each with its own pool on PostgreSQL; one database) while both
 * nodes deliver. WEBHOOK_TURNS_WRITES sets the number of writes (1,000 was run once; the suite's default is smaller).
 */
const WRITES = Number(process.env.WEBHOOK_TURNS_WRITES ?? 100);

describe(`webhooks: two nodes, ${WRITES} writes, two webhooks (${ENGINE})`, () => {
  let testDb: TestDb;
  let a: TestApp;
  let b: TestApp;
  const pools: { close(): Promise<void> }[] = [];
  const node = () => nodeOn(testDb, { env }, pools);
  before(async () => {
    testDb = await openTestDb();
    a = await node();
    b = await node();
  });
  after(async () => {
    await a.close();
    await b.close();
    for (const p of pools) await p.close();
    await testDb.drop();
  });

  test('every delivery exactly once, in seq order per webhook, none left pending', async () => {
    const owner = await userWithToken(a);
    const p = await createProject(a.app, owner.auth);
    const units = [await createUnit(a.app, owner.auth, p._id, { name: 'A' }), await createUnit(b.app, owner.auth, p._id, { name: 'B' })];
    const rs = [await receiver(), await receiver()];
    const hooks = [await subscribe(a, owner.auth, p._id, rs[0]!.url), await subscribe(b, owner.auth, p._id, rs[1]!.url)];

    // Each node writes its own unit, in turn with the other; both nodes run delivery passes all the while.
    let writing = true;
    const writer = async (t: TestApp, unit: string, from: number) => {
      for (let i = from; i < WRITES; i += 2) {
        const res = await t.app.inject({ method: 'PATCH', url: `/units/${unit}`, headers: owner.auth, payload: { price: i + 1 } });
        assert.equal(res.statusCode, 200, res.body);
      }
    };
    const deliverer = async (t: TestApp) => {
      while (writing) if ((await t.app.outbox.drain()) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const delivering = [deliverer(a), deliverer(b)];
    await Promise.all([writer(a, units[0]!._id, 0), writer(b, units[1]!._id, 1)]);
    writing = false;
    await Promise.all(delivering);
    // What is due now, on both nodes, until a pass finds nothing: a stalled delivery stays pending after this.
    while ((await a.app.outbox.drain()) + (await b.app.outbox.drain()) > 0);

    for (const [k, hook] of hooks.entries()) {
      const stored = await sql<{ status: string; n: number; first: string }>`
        select status, count(*)::int as n, min(seq)::text as first from webhook_deliveries where webhook_id = ${hook._id} group by status`.execute(a.db.kysely);
      const notDelivered = stored.rows.filter((row) => row.status !== 'delivered');
      assert.deepEqual(notDelivered, [], `webhook ${k + 1}: deliveries left undelivered`);
      assert.equal(stored.rows[0]?.n, WRITES);
      const got = rs[k]!.received.map((m) => {
        const e = new Webhook(hook.secret).verify(m.body, m.headers as Record<string, string>) as { seq: number };
        return { id: String(m.headers['webhook-id']), seq: e.seq };
      });
      assert.equal(new Set(got.map((g) => g.id)).size, got.length, `webhook ${k + 1}: a delivery was sent twice`);
      assert.equal(got.length, WRITES, `webhook ${k + 1}: received ${got.length} of ${WRITES}`);
      const seqs = got.map((g) => g.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((x, y) => x - y),
        `webhook ${k + 1}: not in seq order`,
      );
    }
  });
});
