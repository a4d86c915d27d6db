import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, createUser, login, TestClock, TEST_PASSWORD, type TestApp } from './helpers.ts';
import { startSmtp, type Smtp } from './smtp.ts';

const HOUR = 60 * 60 * 1000;
let ip = 10;
/** Each test sends from its own client address, so the per-address limit of one does not touch another. */
const nextIp = () => `192.0.2.${ip++}`;

describe('password reset', () => {
  let smtp: Smtp;
  let t: TestApp;
  const clock = new TestClock();
  before(async () => {
    smtp = await startSmtp();
    t = await buildTestApp({
      clock,
      env: {
        SMTP_URL: smtp.url,
        OUTBOX_POLL_MS: '0',
        PUBLIC_URL: 'https://app.showsuite.test',
        ACCOUNT_REQUESTS_PER_MINUTE: '8',
        PASSWORD_RESETS_PER_HOUR: '3',
      },
    });
  });
  after(async () => {
    await t.close();
    await smtp.stop();
  });

  const post = (url: string, payload: object, from: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload, remoteAddress: from, headers });
  const request = (username: string, from: string, headers: Record<string, string> = {}) => post('/users/password-reset', { username }, from, headers);
  const confirm = (token: string, password: string, from: string) => post('/users/password-reset/confirm', { token, password }, from);

  /** Sends what is queued; the messages that arrived meanwhile. */
  async function deliver() {
    const before = smtp.received.length;
    await t.app.outbox.drain();
    // Placeholders (unknown addresses) send nothing, so wait only for what really went out: the mail jobs done.
    const jobs = await t.app.outbox.jobs('mail');
    assert.equal(jobs.filter((j) => j.state === 'created' || j.state === 'active').length, 0);
    return smtp.received.slice(before);
  }
  const tokenIn = (text: string | undefined) => /https:\/\/app\.showsuite\.test\/admin\/reset\/([A-Za-z0-9_-]+)/.exec(text ?? '')?.[1];
  const rowsFor = async (username: string) =>
    (
      await sql<{
        token_hash: string;
        user_id: string | null;
      }>`select token_hash, user_id from password_resets where username = ${username.toLowerCase()}`.execute(t.db.kysely)
    ).rows;

  test('202 and the same answer and work for a known and an unknown address; only the known one is mailed; the token is stored hashed', async () => {
    const user = await createUser(t.db);
    const from = nextIp();
    const known = await request(user.username, from);
    const unknown = await request(`nobody-${Date.now()}@example.com`, from);
    assert.equal(known.statusCode, 202);
    assert.equal(unknown.statusCode, 202);
    assert.equal(known.body, unknown.body);
    assert.deepEqual(Object.keys(known.json()), ['message']);
    // Same work: each request stored one row and queued one job.
    assert.equal((await rowsFor(user.username)).length, 1);
    const jobsBefore = (await t.app.outbox.jobs('mail')).filter((j) => j.state === 'created').length;
    assert.ok(jobsBefore >= 2);

    await smtp.waitFor(0);
    const before = smtp.received.length;
    await t.app.outbox.drain();
    await smtp.waitFor(before + 1);
    const got = smtp.received.slice(before);
    assert.equal(got.length, 1, 'only the existing account is mailed');
    assert.deepEqual(got[0]!.rcptTo, [user.username]);
    assert.equal(got[0]!.parsed.subject, 'Reset your Showsuite password');
    const token = tokenIn(got[0]!.parsed.text);
    assert.ok(token);
    assert.ok(String(got[0]!.parsed.html).includes(`https://app.showsuite.test/admin/reset/${token}`));
    const [row] = await rowsFor(user.username);
    assert.equal(row!.token_hash, createHash('sha256').update(token).digest('base64url'), 'stored as its SHA-256');
    const dump = JSON.stringify((await sql`select * from password_resets`.execute(t.db.kysely)).rows);
    assert.ok(!dump.includes(token), 'the token itself is stored nowhere in the table');
    const jobDump = JSON.stringify((await sql`select data from pgboss.job union all select data from pgboss.archive`.execute(t.db.kysely)).rows);
    assert.ok(!jobDump.includes(token), 'nor readable in the queue (the message is sealed)');
  });

  test('confirm → 204: the new password works, the old does not, every session and API token ends; the token works once (410)', async () => {
    const user = await createUser(t.db);
    const from = nextIp();
    const s1 = await login(t.app, user);
    const s2 = await login(t.app, user);
    const minted = await t.app.inject({
      method: 'POST',
      url: '/users/me/tokens',
      headers: { authorization: `Bearer ${s1.token}` },
      payload: { name: 'sync', scope: 'read' },
    });
    assert.equal(minted.statusCode, 201, minted.body);
    const apiToken = { authorization: `Bearer ${minted.json().token as string}` };
    assert.equal((await t.app.inject({ method: 'GET', url: '/users/me', headers: apiToken })).statusCode, 200);
    assert.equal((await request(user.username, from)).statusCode, 202);
    const [mail] = await deliver();
    const token = tokenIn(mail!.parsed.text)!;
    assert.equal((await confirm(token, 'short', from)).statusCode, 400);
    assert.equal((await confirm(token, 'brand new password', from)).statusCode, 204);
    for (const s of [s1, s2]) {
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/users/me', headers: { authorization: `Bearer ${s.token}` } })).statusCode,
        401,
        'access token ended',
      );
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/users/refresh', payload: { refresh_token: s.refreshToken } })).statusCode,
        401,
        'refresh token ended',
      );
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/users/me', headers: apiToken })).statusCode, 401, 'the API token ended');
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: user.username, password: TEST_PASSWORD }, remoteAddress: from }))
        .statusCode,
      401,
    );
    await login(t.app, { username: user.username, password: 'brand new password' });
    const again = await confirm(token, 'yet another password', from);
    assert.equal(again.statusCode, 410);
    assert.equal(again.json().code, 'gone');
    assert.equal((await confirm('A'.repeat(43), 'yet another password', from)).statusCode, 410, 'an unknown token');
  });

  test('1 hour, by the injected clock: then 410; using one link ends the others mailed before', async () => {
    const user = await createUser(t.db);
    const from = nextIp();
    assert.equal((await request(user.username, from)).statusCode, 202);
    const [first] = await deliver();
    clock.advance(HOUR);
    assert.equal((await confirm(tokenIn(first!.parsed.text)!, 'a late password', from)).statusCode, 410);

    assert.equal((await request(user.username, from)).statusCode, 202);
    assert.equal((await request(user.username, from)).statusCode, 202);
    const two = await deliver();
    assert.equal(two.length, 2);
    assert.equal((await confirm(tokenIn(two[1]!.parsed.text)!, 'the chosen password', from)).statusCode, 204);
    assert.equal((await confirm(tokenIn(two[0]!.parsed.text)!, 'a second password', from)).statusCode, 410);
  });

  test('per address: at most PASSWORD_RESETS_PER_HOUR links an hour (more: the same 202, nothing sent); per client address → 429', async () => {
    const user = await createUser(t.db);
    const from = nextIp();
    for (let i = 0; i < 5; i++) assert.equal((await request(user.username, from)).statusCode, 202);
    assert.equal((await deliver()).length, 3);
    assert.equal((await rowsFor(user.username)).length, 3);
    clock.advance(HOUR + 1);
    assert.equal((await request(user.username, from)).statusCode, 202);
    assert.equal((await deliver()).length, 1, 'an hour later, again');

    const busy = nextIp();
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push((await request(`x${i}-${Date.now()}@example.com`, busy)).statusCode);
    assert.deepEqual(answers, [202, 202, 202, 202, 202, 202, 202, 202, 429, 429]);
    const limited = await request('y@example.com', busy);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    const guesser = nextIp();
    const confirms = [];
    for (let i = 0; i < 9; i++) confirms.push((await confirm(`${'B'.repeat(40)}${i}xx`, 'some password', guesser)).statusCode);
    assert.deepEqual(confirms, [410, 410, 410, 410, 410, 410, 410, 410, 429], 'confirm is limited per client address too');
    await t.app.outbox.drain();
  });

  test('the mail follows Accept-Language (fr, es); bad input → 400 naming the field', async () => {
    const user = await createUser(t.db);
    const from = nextIp();
    assert.equal((await request(user.username, from, { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' })).statusCode, 202);
    assert.equal((await request(user.username, from, { 'accept-language': 'es' })).statusCode, 202);
    const got = await deliver();
    assert.deepEqual(got.map((m) => m.parsed.subject).sort(), ['Restablecer su contraseña de Showsuite', 'Réinitialiser votre mot de passe Showsuite']);
    const bad = await request('not-an-address', from);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json().errors, [{ path: '/username', message: 'must be an e-mail address' }]);
    const badConfirm = await post('/users/password-reset/confirm', { token: 'x' }, from);
    assert.equal(badConfirm.statusCode, 400);
    assert.deepEqual(
      badConfirm
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
      ['/password', '/token'],
    );
  });
});
