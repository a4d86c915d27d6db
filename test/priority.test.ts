import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { nodeOn, createProject, createUnit, openTestDb, slug, type TestApp, TestClock, type TestDb, userWithToken } from './helpers.ts';
import { startSmtp } from './smtp.ts';

/**
 * The priority list across two service nodes on one database (two apps, each with its own connection pool on
 * PostgreSQL), one injected clock, and a restart: a node closed and a new one built on the same database.
 */
describe('priority list: a unit that comes free goes down the waiting list, once, across nodes', () => {
  const clock = new TestClock();
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let testDb: TestDb;
  // Every node of one deployment shares SECRET_KEY (sealed mail, secrets) and JWT_SECRET.
  const secretKey = randomBytes(32).toString('hex');
  const env = () => ({
    SECRET_KEY: secretKey,
    SMTP_URL: smtp.url,
    OUTBOX_POLL_MS: '0',
    HOLD_SWEEP_SEC: '0',
    HOLD_REQUESTS_PER_MINUTE: '1000',
    PUBLIC_LEADS_PER_MINUTE: '1000',
    PUBLIC_URL: 'https://console.example.com',
    PAGES_URL: 'https://homes.example.com',
  });
  const extraPools: { close(): Promise<void> }[] = [];
  /** Another node on the same database. */
  const node = () => nodeOn(testDb, { clock, env: env() }, extraPools);
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    smtp = await startSmtp();
    testDb = await openTestDb();
    a = await node();
    b = await node();
  });
  after(async () => {
    await a.close();
    await b.close().catch(() => {});
    for (const p of extraPools) await p.close();
    await testDb.drop();
    await smtp.stop();
  });

  /** Sends every queued mail (from both nodes) and answers the new ones. */
  async function mails() {
    const before = smtp.received.length;
    const n = (await a.app.outbox.drain()) + (await b.app.outbox.drain());
    await smtp.waitFor(before + n);
    return smtp.received.slice(before).map((m) => ({ to: m.rcptTo[0], text: m.parsed.text ?? '' }));
  }
  const tokenIn = (text: string) => /\?hold=([A-Za-z0-9_-]{43})/.exec(text)?.[1];

  test('ranked by arrival, offered in rank, passed on at lapse and release, spent → available to all', async () => {
    const owner = await userWithToken(a);
    const namespace = slug('prio');
    const settings = { namespace, waitlistEnabled: true, onHoldExperienceEnabled: true, priorityList: true, specialRankEnabled: true, onHoldMinsDuration: 10 };
    const p = await createProject(a.app, owner.auth, { name: 'Harbour', body: settings });
    const unit = (await createUnit(a.app, owner.auth, p._id, { name: 'PH-1', body: { availability: 'sold' } }))._id;
    const asOwner = (t: TestApp, method: 'GET' | 'PATCH', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: owner.auth, ...(payload ? { payload } : {}) });

    // Four people join, alternately through both nodes: ranks 1..4 by arrival.
    const people = ['w1', 'w2', 'w3', 'w4'];
    const ids: string[] = [];
    for (const [i, who] of people.entries()) {
      const node = i % 2 ? b : a;
      const res = await node.app.inject({
        method: 'POST',
        url: '/public/waitlist',
        payload: { namespace, firstName: who, lastName: 'Waiting', email: `${who}@example.com`, unit },
        remoteAddress: `192.0.2.${i + 1}`,
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().rank, i + 1);
      ids.push(res.json()._id);
      clock.advance(1);
    }
    // Staff move w4 to the front and back to last (specialRankEnabled): the others close up.
    assert.equal((await asOwner(a, 'PATCH', `/leads/${ids[3]}`, { rank: 1 })).json().rank, 1);
    const moved = (await asOwner(b, 'GET', `/units/${unit}/waitlist`)).json();
    assert.deepEqual(
      moved.map((l: { firstName: string; rank: number }) => [l.firstName, l.rank]),
      [
        ['w4', 1],
        ['w1', 2],
        ['w2', 3],
        ['w3', 4],
      ],
    );
    assert.equal((await asOwner(a, 'PATCH', `/leads/${ids[3]}`, { rank: 99 })).json().rank, 4);

    // The unit comes free by hand: w1 gets a priority hold, and the mail with the page's link and hold token.
    const freed = await asOwner(b, 'PATCH', `/units/${unit}`, { availability: 'available' });
    assert.equal(freed.statusCode, 200);
    assert.equal(freed.json().availability, 'on_hold');
    let got = await mails();
    assert.deepEqual(
      got.map((m) => m.to),
      ['w1@example.com'],
    );
    assert.ok(got[0]!.text.includes(`https://homes.example.com/p/${namespace}/units/${unit}?hold=`), got[0]!.text);
    const t1 = tokenIn(got[0]!.text)!;
    const held = await a.app.inject({ method: 'GET', url: `/public/holds/${t1}` });
    assert.equal(held.statusCode, 200);
    assert.equal(held.json().expiresAt, new Date(clock.now() + 10 * 60_000).toISOString());
    // Nobody else can take it meanwhile.
    const visitor = { firstName: 'Vic', lastName: 'Visitor', email: 'vic@example.com', phone: '+1 555 0199' };
    const hold = (t: TestApp) => t.app.inject({ method: 'POST', url: `/public/units/${unit}/hold`, payload: visitor, remoteAddress: '198.51.100.99' });
    assert.equal((await hold(a)).statusCode, 409);

    // w1's hold lapses; both nodes sweep at once: exactly one passes it on, to w2. A public hold in between → 409.
    clock.advance(10 * 60_000 + 1);
    assert.equal((await hold(b)).statusCode, 409);
    const sweeps = await Promise.all([a.app.sweepHolds(), b.app.sweepHolds()]);
    assert.equal(sweeps.filter((s) => s.ran && s.released === 1).length, 1, JSON.stringify(sweeps));
    got = await mails();
    assert.deepEqual(
      got.map((m) => m.to),
      ['w2@example.com'],
    );
    const t2 = tokenIn(got[0]!.text)!;
    assert.equal((await a.app.inject({ method: 'GET', url: `/public/holds/${t1}` })).statusCode, 410);

    // w2 releases it (two concurrent releases, one per node): exactly one 204, and w3 gets it.
    const releases = await Promise.all([a, b].map((t) => t.app.inject({ method: 'DELETE', url: `/public/holds/${t2}` })));
    assert.deepEqual(releases.map((r) => r.statusCode).sort(), [204, 410]);
    got = await mails();
    assert.deepEqual(
      got.map((m) => m.to),
      ['w3@example.com'],
    );

    // A restart: node b goes away, node c comes up on the same database. w3's hold lapses; a and c sweep together;
    // also a read on each node finds the lapse: w4 is offered the unit exactly once.
    await b.close();
    const c = await node();
    b = c;
    clock.advance(10 * 60_000 + 1);
    await Promise.all([a.app.sweepHolds(), c.app.sweepHolds(), asOwner(a, 'GET', `/units/${unit}`), asOwner(c, 'GET', `/units/${unit}`)]);
    got = await mails();
    assert.deepEqual(
      got.map((m) => m.to),
      ['w4@example.com'],
    );
    const t4 = tokenIn(got[0]!.text)!;
    assert.equal((await c.app.inject({ method: 'DELETE', url: `/public/holds/${t4}` })).statusCode, 204);

    // The list is spent: the unit is available to all, and a visitor's hold works.
    assert.deepEqual(await mails(), []);
    assert.equal((await asOwner(a, 'GET', `/units/${unit}`)).json().availability, 'available');
    assert.equal((await hold(c)).statusCode, 200);

    // Each entry offered once; the change log has one priority unit.held (actor system) per offer.
    const list = (await asOwner(a, 'GET', `/units/${unit}/waitlist`)).json();
    assert.ok(list.every((l: { offeredAt?: string }) => typeof l.offeredAt === 'string'));
    const events = (await asOwner(a, 'GET', `/projects/${p._id}/events?limit=1000`)).json();
    const offers = events.filter((e: { type: string; actor: { kind: string } }) => e.type === 'unit.held' && e.actor.kind === 'system');
    assert.equal(offers.length, 4);
  });

  test('a waitlist entry and a hold racing for an available unit: the hold always wins; the entry joins only a unit then held', async () => {
    const owner = await userWithToken(a);
    const namespace = slug('race');
    const p = await createProject(a.app, owner.auth, {
      body: { namespace, waitlistEnabled: true, onHoldExperienceEnabled: true, priorityList: true, enableForms: true },
    });
    const visitor = { firstName: 'Rae', lastName: 'Racer', email: 'rae@example.com', phone: '+1 555 0101' };
    for (let i = 0; i < 12; i++) {
      const unit = (await createUnit(a.app, owner.auth, p._id, { name: `R-${i}` }))._id;
      const [entry, hold] = await Promise.all([
        a.app.inject({
          method: 'POST',
          url: '/public/waitlist',
          payload: { namespace, ...visitor, email: `w${i}@example.com`, unit },
          remoteAddress: `198.51.100.${i + 1}`,
        }),
        b.app.inject({ method: 'POST', url: `/public/units/${unit}/hold`, payload: visitor, remoteAddress: `203.0.113.${i + 1}` }),
      ]);
      assert.equal(hold.statusCode, 200, `round ${i}: the hold on an available unit succeeds (${hold.body})`);
      assert.ok(entry.statusCode === 201 || entry.statusCode === 409, `round ${i}: ${entry.statusCode} ${entry.body}`);
      // Either way the unit is the holder's, and a waiting list never blocks a hold on a unit that is available.
      const now = (await a.app.inject({ method: 'GET', url: `/units/${unit}`, headers: owner.auth })).json();
      assert.equal(now.availability, 'on_hold');
    }
    // A unit that is simply available is held at once, whatever lists the project keeps.
    const unit = (await createUnit(a.app, owner.auth, p._id, { name: 'R-free' }))._id;
    const res = await b.app.inject({ method: 'POST', url: `/public/units/${unit}/hold`, payload: visitor, remoteAddress: '203.0.113.200' });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('re-ranking needs specialRankEnabled (403) and a waitlist entry for a unit (400); editors and strangers cannot', async () => {
    const owner = await userWithToken(a);
    const namespace = slug('rank');
    const p = await createProject(a.app, owner.auth, { body: { namespace, waitlistEnabled: true, enableForms: true } });
    const unit = (await createUnit(a.app, owner.auth, p._id, { name: 'X-1', body: { availability: 'sold' } }))._id;
    const join = await a.app.inject({
      method: 'POST',
      url: '/public/waitlist',
      payload: { namespace, firstName: 'A', lastName: 'B', email: 'ab@example.com', unit },
    });
    const entry = join.json()._id;
    const patch = (auth: { authorization: string }, id: string) => a.app.inject({ method: 'PATCH', url: `/leads/${id}`, headers: auth, payload: { rank: 1 } });
    assert.equal((await patch(owner.auth, entry)).statusCode, 403);
    await a.app.inject({ method: 'PATCH', url: `/projects/${p._id}`, headers: owner.auth, payload: { specialRankEnabled: true } });
    assert.equal((await patch(owner.auth, entry)).statusCode, 200);
    const enquiry = await a.app.inject({
      method: 'POST',
      url: '/public/leads',
      payload: { namespace, firstName: 'E', lastName: 'Q', email: 'eq@example.com', phone: '+1 555 0123' },
    });
    const bad = await patch(owner.auth, enquiry.json()._id);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/rank');
    const stranger = await userWithToken(a);
    assert.equal((await patch(stranger.auth, entry)).statusCode, 404);
    assert.equal((await a.app.inject({ method: 'GET', url: `/units/${unit}/waitlist`, headers: stranger.auth })).statusCode, 404);
  });
});
