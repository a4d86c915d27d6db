import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { sql } from 'kysely';
import {
  buildTestApp,
  caller,
  createProject,
  createUnit,
  createUser,
  ENGINE,
  openTestDb,
  sessionToken,
  TestClock,
  type TestApp,
  type TestDb,
} from './helpers.ts';
import { Receiver } from './support/webhook-receiver.ts';

const DAY = 24 * 3600 * 1000;

/** A user with a session written straight to the database: this file's clock is a day behind, so no login. */
async function userWithToken(t: TestApp) {
  const user = await createUser(t.db);
  const { token } = await sessionToken(t.db, user.id);
  return { ...user, auth: { authorization: `Bearer ${token}` } };
}

// The app's clock runs a day behind the database's: a retry it schedules "in 5 s" is already due for the queue
// (which compares with the database's now()), so each retry is driven by drain(), and its time checked by the clock.
const clock = new TestClock(Date.now() - DAY);
let t: TestApp;
let owner: Awaited<ReturnType<typeof userWithToken>>;
const receivers: Receiver[] = [];

before(async () => {
  t = await buildTestApp({ clock, env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '500', OUTBOX_POLL_MS: '0', HOLD_SWEEP_SEC: '0' } });
  owner = await userWithToken(t);
});
after(async () => {
  for (const r of receivers) await r.close().catch(() => {});
  await t.close();
});

const headerSet = (h: IncomingHttpHeaders) => ({
  'webhook-id': String(h['webhook-id']),
  'webhook-timestamp': String(h['webhook-timestamp']),
  'webhook-signature': String(h['webhook-signature']),
});

/**
 * On this file's day-behind clock the package's verify() would call every timestamp too old; so the signature is
 * checked with the package's own signer, and the timestamp against the injected clock.
 */
function assertSigned(secret: string, got: { headers: IncomingHttpHeaders; body: string }, atMs: number) {
  const h = headerSet(got.headers);
  assert.equal(Number(h['webhook-timestamp']), Math.floor(atMs / 1000));
  assert.equal(h['webhook-signature'], new Webhook(secret).sign(h['webhook-id'], new Date(Number(h['webhook-timestamp']) * 1000), got.body));
}

async function receiver(answer?: (n: number) => number | 'hang') {
  const r = await new Receiver(answer).listen();
  receivers.push(r);
  return r;
}

async function subscribe(app: TestApp['app'], project: string, url: string, events: string[] = ['*']) {
  const res = await app.inject({ method: 'POST', url: `/projects/${project}/webhooks`, headers: owner.auth, payload: { url, events } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const deliveries = async (project: string, hook: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/projects/${project}/webhooks/${hook}/deliveries`, headers: owner.auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as any[];
};

describe(`webhooks: management (${ENGINE})`, () => {
  test('CRUD by owner and administrators; the secret only at creation, sealed at rest; editors 403, strangers 404', async () => {
    const admin = await userWithToken(t);
    const editor = await userWithToken(t);
    const p = await createProject(t.app, owner.auth, { body: { administrators: [admin.id], editors: [editor.id] } });
    const created = await subscribe(t.app, p._id, 'http://127.0.0.1:9/a', ['unit.updated', 'lead.created']);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(created.events, ['unit.updated', 'lead.created']);
    assert.match(created._id, /^[0-9a-f]{24}$/);
    const stored = await t.db.kysely.selectFrom('webhooks').select('secret').where('id', '=', created._id).executeTakeFirstOrThrow();
    assert.ok(!stored.secret.includes(created.secret.slice(6)), 'sealed, not stored as given');

    const asAdmin = caller(t.app, admin.auth);
    const list = await asAdmin('GET', `/projects/${p._id}/webhooks`);
    assert.equal(list.statusCode, 200);
    assert.equal(list.json().length, 1);
    assert.ok(!list.body.includes('whsec_') && !list.body.includes('secret'));
    const patched = await asAdmin('PATCH', `/projects/${p._id}/webhooks/${created._id}`, { events: ['*'], description: 'CRM' });
    assert.equal(patched.statusCode, 200);
    assert.deepEqual([patched.json().events, patched.json().description], [['*'], 'CRM']);
    assert.ok(!patched.body.includes('whsec_'));
    assert.equal((await asAdmin('GET', `/projects/${p._id}/webhooks/${created._id}`)).json().description, 'CRM');

    assert.equal((await caller(t.app, editor.auth)('GET', `/projects/${p._id}/webhooks`)).statusCode, 403);
    assert.equal((await caller(t.app, editor.auth)('POST', `/projects/${p._id}/webhooks`, { url: 'http://127.0.0.1:9/', events: ['*'] })).statusCode, 403);
    const stranger = await userWithToken(t);
    assert.equal((await caller(t.app, stranger.auth)('GET', `/projects/${p._id}/webhooks`)).statusCode, 404);
    assert.equal((await caller(t.app, stranger.auth)('DELETE', `/projects/${p._id}/webhooks/${created._id}`)).statusCode, 404);

    const bad = await asAdmin('POST', `/projects/${p._id}/webhooks`, { url: 'ftp://example.com/x', events: ['*'] });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/url');
    const badEvent = await asAdmin('POST', `/projects/${p._id}/webhooks`, { url: 'http://127.0.0.1:9/', events: ['unit.exploded'] });
    assert.equal(badEvent.statusCode, 400);
    assert.match(badEvent.json().errors[0].path, /^\/events/);

    assert.equal((await asAdmin('DELETE', `/projects/${p._id}/webhooks/${created._id}`)).statusCode, 204);
    assert.equal((await asAdmin('GET', `/projects/${p._id}/webhooks/${created._id}`)).statusCode, 404);
  });

  test('a webhook is a versioned record: __v and ETag, If-Match on PATCH and DELETE (stale → 412), If-None-Match → 304, Idempotency-Key on create', async () => {
    const p = await createProject(t.app, owner.auth);
    const base = `/projects/${p._id}/webhooks`;
    const payload = { url: 'http://127.0.0.1:9/v', events: ['*'] };
    const create = (key: string, body: object = payload) =>
      t.app.inject({ method: 'POST', url: base, headers: { ...owner.auth, 'idempotency-key': key }, payload: body });
    const first = await create('hook-key-1');
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.json().__v, 1);
    assert.equal(first.headers.etag, '"1"');
    const again = await create('hook-key-1');
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json(), 'the first answer, secret included');
    assert.equal(again.headers.location, first.headers.location);
    assert.equal((await t.app.inject({ method: 'GET', url: base, headers: owner.auth })).json().length, 1, 'one webhook from a retried create');
    const reused = await create('hook-key-1', { ...payload, description: 'other' });
    assert.equal(reused.statusCode, 422);
    assert.equal(reused.json().code, 'idempotency_key_reused');
    const stored = await t.db.kysely.selectFrom('idempotency_keys').selectAll().execute();
    assert.ok(!JSON.stringify(stored).includes(first.json().secret.slice(6)), 'the stored answer holds no secret');

    const one = `${base}/${first.json()._id}`;
    const got = await t.app.inject({ method: 'GET', url: one, headers: owner.auth });
    assert.equal(got.headers.etag, '"1"');
    const cached = await t.app.inject({ method: 'GET', url: one, headers: { ...owner.auth, 'if-none-match': '"1"' } });
    assert.equal(cached.statusCode, 304);
    assert.equal(cached.body, '');
    assert.equal(cached.headers.etag, '"1"');

    const patch = (ifMatch: string, body: object) =>
      t.app.inject({ method: 'PATCH', url: one, headers: { ...owner.auth, 'if-match': ifMatch }, payload: body });
    const changed = await patch('"1"', { description: 'CRM' });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json().__v, 2);
    assert.equal(changed.headers.etag, '"2"');
    const stale = await patch('"1"', { description: 'lost update' });
    assert.equal(stale.statusCode, 412);
    assert.equal(stale.json().code, 'precondition_failed');
    assert.equal((await patch('"1"', {})).statusCode, 412, 'stale even when nothing would change');
    assert.equal((await t.app.inject({ method: 'GET', url: one, headers: { ...owner.auth, 'if-none-match': '"1"' } })).statusCode, 200);
    const staleDelete = await t.app.inject({ method: 'DELETE', url: one, headers: { ...owner.auth, 'if-match': '"1"' } });
    assert.equal(staleDelete.statusCode, 412);
    assert.equal((await t.app.inject({ method: 'GET', url: one, headers: owner.auth })).json().description, 'CRM');
    assert.equal((await t.app.inject({ method: 'DELETE', url: one, headers: { ...owner.auth, 'if-match': '"2"' } })).statusCode, 204);
  });

  test('loopback and private targets are refused, also by a host name resolving to 127.0.0.1, unless ALLOW_PRIVATE_TARGETS', async () => {
    const strict = await buildTestApp({ env: { OUTBOX_POLL_MS: '0', HOLD_SWEEP_SEC: '0' } });
    try {
      const me = await userWithToken(strict);
      const p = await createProject(strict.app, me.auth);
      for (const url of [
        'http://127.0.0.1:8080/x',
        'http://localhost:8080/x',
        'http://10.1.2.3/x',
        'http://192.168.0.10/x',
        'http://169.254.169.254/latest',
        'http://[::1]:8080/x',
        'http://[::ffff:127.0.0.1]/x',
        'http://0.0.0.0/',
        'http://2130706433/',
        'http://0x7f.1/',
        'http://127.1:8080/',
        'http://0177.0.0.1/',
        'http://[::127.0.0.1]/',
        'http://[::ffff:0:7f00:1]/',
        'http://[2002:7f00:1::]/',
        'http://[64:ff9b::7f00:1]/',
        'http://[fd00::1]/',
        'http://[fe80::1]/',
      ]) {
        const res = await strict.app.inject({ method: 'POST', url: `/projects/${p._id}/webhooks`, headers: me.auth, payload: { url, events: ['*'] } });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(res.json().errors[0].path, '/url');
        assert.match(res.json().errors[0].message, /loopback or private/);
      }
      const ok = await strict.app.inject({
        method: 'POST',
        url: `/projects/${p._id}/webhooks`,
        headers: me.auth,
        payload: { url: 'https://93.184.215.14/hook', events: ['*'] },
      });
      assert.equal(ok.statusCode, 201, ok.body);
      const hook = ok.json();
      const moved = await strict.app.inject({
        method: 'PATCH',
        url: `/projects/${p._id}/webhooks/${hook._id}`,
        headers: me.auth,
        payload: { url: 'http://localhost/x' },
      });
      assert.equal(moved.statusCode, 400);

      // A name that was public when saved and resolves to loopback at delivery: refused before connecting, named.
      const r = await receiver();
      await sql`update webhooks set url = ${r.url.replace('127.0.0.1', 'localhost')} where id = ${hook._id}`.execute(strict.db.kysely);
      await strict.app.inject({ method: 'PATCH', url: `/project/${p._id}`, headers: me.auth, payload: { name: 'Moved' } });
      await strict.app.outbox.drain();
      assert.equal(r.received.length, 0, 'nothing reached the receiver');
      const [d] = (await strict.app.inject({ method: 'GET', url: `/projects/${p._id}/webhooks/${hook._id}/deliveries`, headers: me.auth })).json();
      assert.match(d.attempts[0].error, /localhost resolves to (127\.0\.0\.1|::1), a loopback or private address/);
    } finally {
      await strict.close();
    }
    // Allowed in this file's app (ALLOW_PRIVATE_TARGETS=true): the receivers below live on loopback.
    const p = await createProject(t.app, owner.auth);
    await subscribe(t.app, p._id, 'http://localhost:9/x');
  });
});

describe(`webhooks: deliveries (${ENGINE})`, () => {
  test('a matching event is POSTed once, signed per Standard Webhooks (verified with the standardwebhooks package)', async () => {
    // On the real clock, so the package's check of webhook-timestamp against the time now applies too.
    const live = await buildTestApp({ env: { ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '0', HOLD_SWEEP_SEC: '0' } });
    try {
      const me = await userWithToken(live);
      const r = await receiver();
      const p = await createProject(live.app, me.auth);
      const u = await createUnit(live.app, me.auth, p._id, { name: 'W-1', body: { price: 10 } });
      const hook = (
        await live.app.inject({ method: 'POST', url: `/projects/${p._id}/webhooks`, headers: me.auth, payload: { url: r.url, events: ['unit.updated'] } })
      ).json();
      await caller(live.app, me.auth)('PATCH', `/units/${u._id}`, { price: 11 });
      await caller(live.app, me.auth)('PATCH', `/project/${p._id}`, { name: 'Not subscribed' });
      await live.app.outbox.drain();
      assert.equal(r.received.length, 1);
      const { headers, body } = r.received[0]!;
      const verified = new Webhook(hook.secret).verify(body, headerSet(headers)) as { type: string; data: unknown; projectId: string };
      assert.equal(verified.type, 'unit.updated');
      assert.deepEqual(verified.data, { _id: u._id, changes: { price: [10, 11] } });
      assert.equal(verified.projectId, p._id);
      assert.equal(headers['content-type'], 'application/json');
      // A tampered body or another secret does not verify.
      assert.throws(() => new Webhook(hook.secret).verify(body.replace('11', '12'), headerSet(headers)));
      const other = (
        await live.app.inject({ method: 'POST', url: `/projects/${p._id}/webhooks`, headers: me.auth, payload: { url: r.url, events: ['project.updated'] } })
      ).json();
      assert.throws(() => new Webhook(other.secret).verify(body, headerSet(headers)));
      const list = (await live.app.inject({ method: 'GET', url: `/projects/${p._id}/webhooks/${hook._id}/deliveries`, headers: me.auth })).json();
      assert.equal(list.length, 1);
      assert.equal(list[0].status, 'delivered');
      assert.equal(list[0].event.type, 'unit.updated');
      assert.deepEqual(
        list[0].attempts.map((a: any) => a.responseStatus),
        [200],
      );
    } finally {
      await live.close();
    }
  });

  test('a receiver failing twice then answering 200: retried after 5 s and 30 s (injected clock), same webhook-id each time', async () => {
    const r = await receiver((n) => (n <= 2 ? 500 : 200));
    const p = await createProject(t.app, owner.auth);
    const hook = await subscribe(t.app, p._id, r.url, ['unit.created']);
    await createUnit(t.app, owner.auth, p._id, { name: 'R-1' });
    const firstAt = clock.now();
    assert.equal(await t.app.outbox.drain(), 1);
    let jobs = await t.app.outbox.jobs('webhook');
    const next = () => jobs.filter((j) => j.state === 'created').map((j) => j.startAfter.getTime());
    assert.deepEqual(next(), [firstAt + 5_000]);
    clock.advance(5_000);
    assert.equal(await t.app.outbox.drain(), 1);
    jobs = await t.app.outbox.jobs('webhook');
    assert.deepEqual(next(), [clock.now() + 30_000]);
    clock.advance(30_000);
    await t.app.outbox.drain();
    assert.equal(r.received.length, 3);
    assert.equal(new Set(r.received.map((x) => x.headers['webhook-id'])).size, 1, 'one webhook-id for every attempt');
    assertSigned(hook.secret, r.received[2]!, clock.now());
    const [d] = await deliveries(p._id, hook._id);
    assert.equal(d.status, 'delivered');
    assert.deepEqual(
      d.attempts.map((a: any) => [a.attempt, a.responseStatus]),
      [
        [1, 500],
        [2, 500],
        [3, 200],
      ],
    );
    assert.equal(await t.app.outbox.drain(), 0, 'nothing left');
  });

  test('a receiver that never answers: the attempt times out (WEBHOOK_TIMEOUT_MS) and is retried', async () => {
    const r = await receiver(() => 'hang');
    const p = await createProject(t.app, owner.auth);
    const hook = await subscribe(t.app, p._id, r.url, ['unit.created']);
    await createUnit(t.app, owner.auth, p._id, { name: 'T-1' });
    assert.equal(await t.app.outbox.drain(), 1);
    const [d] = await deliveries(p._id, hook._id);
    assert.equal(d.status, 'pending');
    assert.equal(d.attempts.length, 1);
    assert.match(d.attempts[0].error, /no answer within 500 ms/);
    assert.equal(d.attempts[0].responseStatus, undefined);
    r.answer = () => 200;
    clock.advance(5_000);
    await t.app.outbox.drain();
    assert.equal((await deliveries(p._id, hook._id))[0].status, 'delivered');
  });

  test("one webhook's deliveries go out in seq order, even while the first is being retried", async () => {
    const r = await receiver((n) => (n === 1 ? 503 : 200));
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'O-1' });
    const hook = await subscribe(t.app, p._id, r.url, ['unit.updated']);
    for (const price of [1, 2, 3, 4]) await caller(t.app, owner.auth)('PATCH', `/units/${u._id}`, { price });
    await t.app.outbox.drain();
    assert.equal(r.received.length, 1, 'the later ones wait for the first');
    clock.advance(5_000);
    await t.app.outbox.drain();
    const seqs = r.events().map((e) => e.seq);
    assert.deepEqual(seqs, [seqs[0], seqs[0], seqs[0] + 1, seqs[0] + 2, seqs[0] + 3]);
    assert.deepEqual(
      (await deliveries(p._id, hook._id)).map((d) => d.status),
      ['delivered', 'delivered', 'delivered', 'delivered'],
    );
  });

  test('a bulk PATCH: each changed unit is delivered to a unit.updated webhook, in seq order, also behind a failing first attempt', async () => {
    const r = await receiver((n) => (n === 1 ? 503 : 200));
    const p = await createProject(t.app, owner.auth);
    const units = [];
    for (const name of ['K-1', 'K-2', 'K-3']) units.push(await createUnit(t.app, owner.auth, p._id, { name, body: { price: 1 } }));
    const hook = await subscribe(t.app, p._id, r.url, ['unit.updated']);
    const res = await caller(t.app, owner.auth)('PATCH', '/units', [
      { _id: units[2]!._id, price: 3 },
      { _id: units[1]!._id, price: 1 },
      { _id: units[0]!._id, availability: 'sold' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    await t.app.outbox.drain();
    assert.equal(r.received.length, 1, 'the second waits for the first');
    clock.advance(5_000);
    await t.app.outbox.drain();
    const got = r.events();
    assert.deepEqual(
      got.map((e) => [e.seq, e.type, e.data._id]),
      [
        [4, 'unit.updated', units[2]!._id],
        [4, 'unit.updated', units[2]!._id],
        [5, 'unit.updated', units[0]!._id],
      ],
    );
    assert.deepEqual(got[2].actor, { kind: 'user', id: owner.id });
    assert.deepEqual(got[2].data.changes, { availability: ['available', 'sold'] });
    assert.deepEqual(
      (await deliveries(p._id, hook._id)).map((d) => d.status),
      ['delivered', 'delivered'],
    );
  });

  test('a bulk PATCH behind a pending delivery of the same webhook: its deliveries wait their turn', async () => {
    const r = await receiver((n) => (n === 1 ? 503 : 200));
    const p = await createProject(t.app, owner.auth);
    const [a, b] = [await createUnit(t.app, owner.auth, p._id, { name: 'L-1' }), await createUnit(t.app, owner.auth, p._id, { name: 'L-2' })];
    await subscribe(t.app, p._id, r.url, ['unit.updated']);
    // Its delivery is pending (not yet attempted) when the bulk PATCH appends.
    await caller(t.app, owner.auth)('PATCH', `/units/${a._id}`, { price: 1 });
    const res = await caller(t.app, owner.auth)('PATCH', '/units', [
      { _id: b._id, price: 2 },
      { _id: a._id, price: 3 },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    await t.app.outbox.drain();
    assert.equal(r.received.length, 1, 'the first attempt failed, and nothing of the bulk PATCH went out before it');
    clock.advance(5_000);
    await t.app.outbox.drain();
    assert.deepEqual(
      r.events().map((e) => [e.seq, e.data._id]),
      [
        [3, a._id],
        [3, a._id],
        [4, b._id],
        [5, a._id],
      ],
    );
  });

  test('manual retry sends a delivered event once more with the same webhook-id; unknown delivery 404', async () => {
    const r = await receiver();
    const p = await createProject(t.app, owner.auth);
    const hook = await subscribe(t.app, p._id, r.url, ['unit.created']);
    await createUnit(t.app, owner.auth, p._id, { name: 'M-1' });
    await t.app.outbox.drain();
    const [d] = await deliveries(p._id, hook._id);
    const res = await caller(t.app, owner.auth)('POST', `/projects/${p._id}/webhooks/${hook._id}/deliveries/${d._id}/retry`);
    assert.equal(res.statusCode, 202, res.body);
    await t.app.outbox.drain();
    assert.equal(r.received.length, 2);
    assert.equal(r.received[0]!.headers['webhook-id'], r.received[1]!.headers['webhook-id']);
    const [after] = await deliveries(p._id, hook._id);
    assert.deepEqual(
      after.attempts.map((a: any) => [a.attempt, a.manual ?? false]),
      [
        [1, false],
        [2, true],
      ],
    );
    const missing = await caller(t.app, owner.auth)('POST', `/projects/${p._id}/webhooks/${hook._id}/deliveries/${'0'.repeat(24)}/retry`);
    assert.equal(missing.statusCode, 404);
  });
});

describe(`webhooks: a receiver down while the service restarts (${ENGINE})`, () => {
  let shared: TestDb;
  before(async () => {
    shared = await openTestDb();
  });
  after(() => shared.drop());

  test('the pending delivery survives the restart and is delivered once the receiver is back', async () => {
    const env = { ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '0', HOLD_SWEEP_SEC: '0', SECRET_KEY: 'b'.repeat(64) };
    // Reserve a port, then close the receiver: connections are refused.
    const r = await new Receiver().listen();
    const port = r.port;
    await r.close();
    let first: TestApp | undefined = await buildTestApp({ clock, env, testDb: shared });
    const me = await userWithToken(first);
    const p = await createProject(first.app, me.auth);
    const created = await first.app.inject({
      method: 'POST',
      url: `/projects/${p._id}/webhooks`,
      headers: me.auth,
      payload: { url: `http://127.0.0.1:${port}/hook`, events: ['unit.created'] },
    });
    const hook = created.json();
    await createUnit(first.app, me.auth, p._id, { name: 'D-1' });
    assert.equal(await first.app.outbox.drain(), 1);
    await first.close();
    first = undefined;

    const back = await new Receiver().listen(port);
    receivers.push(back);
    const second = await buildTestApp({ clock, env, testDb: shared });
    try {
      clock.advance(5_000);
      assert.equal(await second.app.outbox.drain(), 1);
      assert.equal(back.received.length, 1);
      assertSigned(hook.secret, back.received[0]!, clock.now());
      const [d] = (await second.app.inject({ method: 'GET', url: `/projects/${p._id}/webhooks/${hook._id}/deliveries`, headers: me.auth })).json();
      assert.equal(d.status, 'delivered');
      assert.equal(d.attempts.length, 2);
      assert.match(d.attempts[0].error, /ECONNREFUSED/);
    } finally {
      await second.close();
    }
  });
});

describe(`webhooks: OpenAPI (${ENGINE})`, () => {
  test('a `webhooks` entry per event type whose body schema is that type’s event schema; delivered bodies match it', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'openapi' });
    for (const type of ['project.updated', 'unit.created', 'unit.updated', 'unit.held', 'unit.hold_expired', 'lead.created', 'floor.deleted']) {
      const ref = doc.webhooks[type]?.post?.requestBody?.content?.['application/json']?.schema?.$ref as string;
      assert.ok(ref, `webhooks.${type} documented`);
      const name = ref.split('/').pop()!;
      assert.deepEqual(doc.components.schemas[name].properties.type.enum, [type]);
      assert.deepEqual(
        doc.webhooks[type].post.parameters.map((p: { name: string }) => p.name),
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
      );
    }
    const r = await receiver();
    const p = await createProject(t.app, owner.auth);
    await subscribe(t.app, p._id, r.url, ['*']);
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'S-1' });
    await caller(t.app, owner.auth)('PATCH', `/units/${u._id}`, { availability: 'sold' });
    await caller(t.app, owner.auth)('DELETE', `/units/${u._id}`);
    await t.app.outbox.drain();
    assert.deepEqual(
      r.events().map((e) => e.type),
      ['unit.created', 'unit.updated', 'unit.deleted'],
    );
    for (const e of r.events()) {
      const validate = ajv.getSchema(`openapi#/components/schemas/Event`)!;
      assert.ok(validate(e), `${e.type}: ${JSON.stringify(validate.errors)}`);
    }
  });
});
