import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { addMember } from '../src/db/member-lists.repo.ts';
import { buildTestApp, createProject, createUser, ENGINE, login, openTestDb, userWithToken, type TestApp, type TestDb } from './helpers.ts';
import { startSmtp, type Smtp } from './smtp.ts';

/**
 * Account administration by the service's administrators: the list with projects and roles, deactivation that stops
 * sessions (on every node at once) and API tokens, reactivation, and a reset link mailed on their behalf.
 */
describe(`accounts (${ENGINE})`, () => {
  let smtp: Smtp;
  let testDb: TestDb;
  let t: TestApp;
  /** A second node on the same database, with the longest session cache: only the notice makes it forget in time. */
  let other: TestApp;
  let admin: Awaited<ReturnType<typeof userWithToken>>;

  before(async () => {
    smtp = await startSmtp();
    testDb = await openTestDb();
    const env = { SMTP_URL: smtp.url, OUTBOX_POLL_MS: '0', SESSION_CACHE_SEC: '60', PUBLIC_URL: 'https://app.showsuite.test' };
    t = await buildTestApp({ env, testDb });
    other = await buildTestApp({ env, testDb });
    admin = await userWithToken(t, { role: 'admin' });
  });
  after(async () => {
    await other?.close();
    await t?.close();
    await testDb?.drop();
    await smtp?.stop();
  });

  const call = (
    app: TestApp,
    method: 'GET' | 'PATCH' | 'POST',
    url: string,
    auth: Record<string, string>,
    payload?: object,
    headers: Record<string, string> = {},
  ) => app.app.inject({ method, url, headers: { ...auth, ...headers }, ...(payload ? { payload } : {}) });

  test('the list: every account with its projects and role in each, searched by e-mail or name, paged; administrators only', async () => {
    const tag = randomBytes(4).toString('hex');
    const owner = await userWithToken(t);
    const member = await createUser(testDb.db, { username: `zed-${tag}@example.com`, profile: { name: `Quentin${tag}`, lastName: 'Vale' } });
    const p = await createProject(t.app, owner.auth, { name: `Tower ${tag}` });
    await addMember(testDb.db.kysely, 'projects', p._id, member.id, 'administrator', Date.now());

    const byName = await call(t, 'GET', `/users?filters[q]=quentin${tag}`, admin.auth);
    assert.equal(byName.statusCode, 200, byName.body);
    assert.equal(byName.headers['x-total-count'], '1');
    const [account] = byName.json();
    assert.equal(account.username, member.username);
    assert.equal(account.active, true);
    assert.deepEqual(account.projects, [{ _id: p._id, name: `Tower ${tag}`, role: 'administrator' }]);
    const byMail = (await call(t, 'GET', `/users?filters[q]=${encodeURIComponent(owner.username.toUpperCase())}`, admin.auth)).json();
    assert.deepEqual(
      byMail.map((a: { projects: { role: string }[] }) => a.projects.map((x) => x.role)),
      [['owner']],
    );
    // A wildcard typed into the search is a character, not a pattern.
    assert.equal((await call(t, 'GET', '/users?filters[q]=%25', admin.auth)).headers['x-total-count'], '0');
    const paged = await call(t, 'GET', '/users?options[limit]=1&options[skip]=1', admin.auth);
    assert.equal(paged.json().length, 1);
    assert.ok(Number(paged.headers['x-total-count']) >= 3);

    assert.equal((await call(t, 'GET', '/users', owner.auth)).statusCode, 403);
    assert.equal((await t.app.inject({ method: 'GET', url: '/users' })).statusCode, 401);
    assert.equal((await call(t, 'GET', '/users?options[limit]=0', admin.auth)).statusCode, 400);
  });

  test('deactivated: its sessions (on both nodes at once), refresh token and API tokens stop; it cannot sign in; reactivated, it can', async () => {
    const user = await createUser(testDb.db);
    const session = await login(t.app, user);
    const auth = { authorization: `Bearer ${session.token}` };
    const minted = await call(t, 'POST', '/users/me/tokens', auth, { name: 'sync', scope: 'read' });
    assert.equal(minted.statusCode, 201, minted.body);
    const tokenAuth = { authorization: `Bearer ${minted.json().token}` };
    // Both nodes have checked (and cached) the session.
    for (const node of [t, other]) assert.equal((await call(node, 'GET', '/users/me', auth)).statusCode, 200);

    const off = await call(t, 'PATCH', `/users/${user.id}`, admin.auth, { active: false });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json().active, false);
    assert.ok(off.json().deactivatedAt);

    assert.equal((await call(t, 'GET', '/users/me', auth)).statusCode, 401, 'this node');
    // The other node forgets as soon as the notice arrives, long before its 60-second cache would lapse.
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      status = (await call(other, 'GET', '/users/me', auth)).statusCode;
      if (status === 200) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 401, 'the other node');
    assert.equal((await call(t, 'GET', '/users/me', tokenAuth)).statusCode, 401, 'the API token');
    const refreshed = await t.app.inject({ method: 'POST', url: '/users/refresh', payload: { refresh_token: session.refreshToken } });
    assert.equal(refreshed.statusCode, 401);
    const denied = await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: user.username, password: user.password } });
    assert.equal(denied.statusCode, 403);
    assert.match(denied.json().detail, /deactivated/);
    // A wrong password still says only that (the account's state is told to whoever knows its password).
    const wrong = await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: user.username, password: 'not-the-password' } });
    assert.equal(wrong.statusCode, 401);
    assert.doesNotMatch(wrong.body, /deactivated/);
    // Listed as deactivated.
    const listed = (await call(t, 'GET', `/users?filters[active]=false&filters[q]=${encodeURIComponent(user.username)}`, admin.auth)).json();
    assert.deepEqual(
      listed.map((a: { _id: string }) => a._id),
      [user.id],
    );
    // A reset link is not sent to a deactivated account.
    assert.equal((await call(t, 'POST', `/users/${user.id}/password-reset`, admin.auth)).statusCode, 409);

    const on = await call(t, 'PATCH', `/users/${user.id}`, admin.auth, { active: true }, { 'if-match': String(off.headers.etag) });
    assert.equal(on.statusCode, 200, on.body);
    assert.equal(on.json().active, true);
    assert.equal((await t.app.inject({ method: 'POST', url: '/users/login', payload: { username: user.username, password: user.password } })).statusCode, 200);
    // The old session stays ended.
    assert.equal((await call(t, 'GET', '/users/me', auth)).statusCode, 401);
  });

  test('a reset link mailed on the account’s behalf; rules: administrators only, not oneself, unknown → 404, stale If-Match → 412', async () => {
    const user = await createUser(testDb.db);
    const before = smtp.received.length;
    const sent = await call(t, 'POST', `/users/${user.id}/password-reset`, admin.auth);
    assert.equal(sent.statusCode, 202, sent.body);
    assert.match(sent.json().message, new RegExp(user.username));
    await t.app.outbox.drain();
    const mail = smtp.received.slice(before).find((m) => m.rcptTo.includes(user.username));
    assert.ok(mail, 'the reset mail');
    assert.match(mail.parsed.text ?? '', /https:\/\/app\.showsuite\.test\/admin\/reset\/[A-Za-z0-9_-]+/);

    const someone = await userWithToken(t);
    assert.equal((await call(t, 'PATCH', `/users/${user.id}`, someone.auth, { active: false })).statusCode, 403);
    assert.equal((await call(t, 'POST', `/users/${user.id}/password-reset`, someone.auth)).statusCode, 403);
    assert.equal((await call(t, 'PATCH', `/users/${admin.id}`, admin.auth, { active: false })).statusCode, 409);
    assert.equal((await call(t, 'PATCH', '/users/0123456789abcdef01234567', admin.auth, { active: false })).statusCode, 404);
    assert.equal((await call(t, 'PATCH', `/users/${user.id}`, admin.auth, { active: false }, { 'if-match': '"999"' })).statusCode, 412);
    assert.equal((await call(t, 'PATCH', `/users/${user.id}`, admin.auth, { active: 'no' })).statusCode, 400);
  });
});
