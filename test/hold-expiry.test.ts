import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { nodeOn, openTestDb, publicProject, type TestApp, TestClock, type TestDb, userWithToken } from './helpers.ts';
import { startSmtp } from './smtp.ts';

/**
 * A hold that lapses is said: its holder and the project's team are mailed once, by whichever of two nodes sweeps
 * (or by the hold that takes the unit over before any sweep), with times in the project's time zone (`timeZone`).
 */
describe('hold expiry: mail to the holder and the team, once across nodes, in the project’s time zone', () => {
  const clock = new TestClock();
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let testDb: TestDb;
  const secretKey = randomBytes(32).toString('hex');
  const env = () => ({
    SECRET_KEY: secretKey,
    SMTP_URL: smtp.url,
    OUTBOX_POLL_MS: '0',
    HOLD_SWEEP_SEC: '0',
    HOLD_REQUESTS_PER_MINUTE: '1000',
    PUBLIC_URL: 'https://console.example.com',
    PAGES_URL: 'https://homes.example.com',
  });
  const pools: { close(): Promise<void> }[] = [];
  /** Another node on the same database. */
  const node = () => nodeOn(testDb, { clock, env: env() }, pools);
  let a: TestApp;
  let b: TestApp;
  let owner: Awaited<ReturnType<typeof userWithToken>>;
  before(async () => {
    smtp = await startSmtp();
    testDb = await openTestDb();
    a = await node();
    b = await node();
    owner = await userWithToken(a);
  });
  after(async () => {
    await a.close();
    await b.close().catch(() => {});
    for (const p of pools) await p.close();
    await testDb.drop();
    await smtp.stop();
  });

  /** Sends every queued mail (from both nodes) and answers the new ones. */
  async function mails() {
    const before = smtp.received.length;
    const n = (await a.app.outbox.drain()) + (await b.app.outbox.drain());
    await smtp.waitFor(before + n);
    return smtp.received
      .slice(before)
      .map((m) => ({ to: m.rcptTo, subject: m.parsed.subject ?? '', text: m.parsed.text ?? '', replyTo: m.parsed.replyTo?.text }));
  }
  const toronto = (iso: string) =>
    `${new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'America/Toronto' }).format(new Date(iso))} (America/Toronto)`;
  const hold = (app: TestApp, unit: string, who: { firstName: string; lastName: string; email: string }, ip: string) =>
    app.app.inject({ method: 'POST', url: `/public/units/${unit}/hold`, payload: { ...who, phone: '+1 555 0100' }, remoteAddress: ip });
  const vera = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com' };
  const otto = { firstName: 'Otto', lastName: 'Other', email: 'otto@example.com' };

  test('timeZone: an IANA name is kept; anything else is 400 saying what it must be', async () => {
    const p = await publicProject(a.app, owner.auth, { units: {} });
    const bad = await a.app.inject({ method: 'PATCH', url: `/project/${p.id}`, headers: owner.auth, payload: { timeZone: 'Mars/Olympus_Mons' } });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json().errors, [{ path: '/timeZone', message: 'must be an IANA time zone name, such as America/Toronto' }]);
    const ok = await a.app.inject({ method: 'PATCH', url: `/project/${p.id}`, headers: owner.auth, payload: { timeZone: 'America/Toronto' } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().timeZone, 'America/Toronto');
  });

  test('a hold mails its expiry in the project’s zone; at expiry, two nodes sweeping: one mail to the holder (hold again) and one to the team', async () => {
    const p = await publicProject(a.app, owner.auth, {
      name: 'Tower',
      settings: { onHoldExperienceEnabled: true, onHoldMinsDuration: 10, timeZone: 'America/Toronto', formsSendTo: 'sales@example.com' },
      units: { 'A-101': {} },
    });
    const unit = p.units['A-101']!;
    const res = await hold(a, unit, vera, '203.0.113.10');
    assert.equal(res.statusCode, 200, res.body);
    const { holdToken, onHoldExpiresAt } = res.json();
    const placed = await mails();
    const mine = placed.find((m) => m.to.includes(vera.email))!;
    assert.ok(mine.text.includes(`until ${toronto(onHoldExpiresAt)}`), mine.text);
    assert.ok(!/UTC|T\d\d:\d\d:\d\d/.test(mine.text), mine.text);
    // The hold's lead, and the team's notice of it, say the time the same way (not an ISO instant).
    const team = placed.find((m) => m.to.includes('sales@example.com'))!;
    assert.ok(team.text.includes(`Hold on unit A-101 until ${toronto(onHoldExpiresAt)}`), team.text);

    clock.advance(10 * 60_000 + 1);
    const sweeps = await Promise.all([a.app.sweepHolds(), b.app.sweepHolds()]);
    assert.equal(sweeps.filter((s) => s.ran && s.released === 1).length, 1, JSON.stringify(sweeps));
    const ended = await mails();
    assert.deepEqual(ended.map((m) => m.to).sort(), [['sales@example.com'], [vera.email]]);
    const toVera = ended.find((m) => m.to.includes(vera.email))!;
    assert.equal(toVera.subject, 'Your hold on unit A-101 has ended: Tower');
    assert.ok(toVera.text.includes(`ended at ${toronto(onHoldExpiresAt)}`), toVera.text);
    assert.ok(toVera.text.includes(`Hold it again: https://homes.example.com/p/${p.namespace}/units/${unit}\n`), toVera.text);
    assert.ok(!toVera.text.includes('hold='), 'no token: the hold is over');
    assert.equal(toVera.replyTo, 'sales@example.com');
    const toTeam = ended.find((m) => m.to.includes('sales@example.com'))!;
    assert.equal(toTeam.subject, 'Hold on unit A-101 ended: Tower');
    assert.ok(toTeam.text.includes(`by Vera Visitor (vera@example.com) ended at ${toronto(onHoldExpiresAt)}`), toTeam.text);
    assert.equal(toTeam.replyTo, vera.email);
    // The mailed link answers that the hold has ended; another sweep mails nothing more.
    assert.equal((await a.app.inject({ method: 'GET', url: `/public/holds/${holdToken}` })).statusCode, 410);
    await Promise.all([a.app.sweepHolds(), b.app.sweepHolds()]);
    assert.deepEqual(await mails(), []);
  });

  test('a lapsed hold taken over before any sweep: its holder is told by the new hold’s transaction, once', async () => {
    const p = await publicProject(a.app, owner.auth, {
      name: 'Quay',
      settings: { onHoldExperienceEnabled: true, onHoldMinsDuration: 5 },
      units: { B: {} },
    });
    const unit = p.units.B!;
    assert.equal((await hold(a, unit, vera, '203.0.113.11')).statusCode, 200);
    await mails();
    clock.advance(5 * 60_000 + 1);
    const taken = await hold(b, unit, otto, '203.0.113.12');
    assert.equal(taken.statusCode, 200, taken.body);
    const got = await mails();
    const ended = got.filter((m) => m.subject.startsWith('Your hold'));
    assert.deepEqual(
      ended.map((m) => m.to),
      [[vera.email]],
    );
    // No formsSendTo: no team notice. And no zone set: the time reads in UTC, named.
    assert.ok(ended[0]!.text.includes('(UTC)'), ended[0]!.text);
    await Promise.all([a.app.sweepHolds(), b.app.sweepHolds()]);
    assert.deepEqual(await mails(), []);
  });
});
