import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, caller, createGroup, createProject, createUser, login, TestClock, TEST_PASSWORD, userWithToken, type TestApp } from './helpers.ts';
import { startSmtp, type Smtp } from './smtp.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('invitations to projects and groups', () => {
  let smtp: Smtp;
  let t: TestApp;
  const clock = new TestClock();
  let owner: Awaited<ReturnType<typeof userWithToken>>;
  before(async () => {
    smtp = await startSmtp();
    t = await buildTestApp({
      clock,
      env: { SMTP_URL: smtp.url, OUTBOX_POLL_MS: '0', PUBLIC_URL: 'https://app.showsuite.test/', ACCOUNT_REQUESTS_PER_MINUTE: '60' },
    });
    owner = await userWithToken(t);
  });
  after(async () => {
    await t.close();
    await smtp.stop();
  });

  /** Sends what is queued; returns the token of the invitation link mailed to `to`. */
  async function mailedToken(to: string) {
    const before = smtp.received.length;
    const n = await t.app.outbox.drain();
    await smtp.waitFor(before + n);
    const mail = smtp.received.slice(before).find((m) => m.rcptTo.includes(to));
    assert.ok(mail, `a message to ${to}`);
    const m = /https:\/\/app\.showsuite\.test\/admin\/invites\/([A-Za-z0-9_-]+)/.exec(mail.parsed.text ?? '');
    assert.ok(m, mail.parsed.text);
    assert.ok(String(mail.parsed.html).includes(`href="${m[0]}"`), 'the HTML part links it too');
    return { token: m[1]!, mail };
  }

  test('create (owner), listed in invites, mailed link; look-up; accept as a new user → administrators, invite leaves invites, signed in', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Marina Tower', body: { projectLang: 'fr' } });
    const email = `new-${Date.now()}@example.com`;
    const res = await caller(t.app, owner.auth)('POST', `/projects/${p._id}/invites`, { email, firstName: 'Inès', lastName: 'Roy', level: 'administrator' });
    assert.equal(res.statusCode, 201);
    const invite = res.json();
    assert.match(invite._id, /^[0-9a-f]{24}$/);
    assert.deepEqual(Object.keys(invite).sort(), ['_id', 'createdAt', 'email', 'expiresAt', 'firstName', 'lastName', 'level']);
    assert.equal(new Date(invite.expiresAt).getTime() - new Date(invite.createdAt).getTime(), 7 * DAY);
    const listed = (await caller(t.app, owner.auth)('GET', `/projects/${p._id}`)).json();
    assert.deepEqual(listed.invites, [invite]);
    assert.ok(!JSON.stringify(listed).includes('token'), 'no token in the record');

    const { token, mail } = await mailedToken(email);
    assert.equal(mail.parsed.subject, 'Invitation : Marina Tower', 'in the project language');
    assert.ok((mail.parsed.text ?? '').includes(`${owner.username} vous invite à rejoindre Marina Tower`));
    assert.ok(!res.body.includes(token), 'the token is never answered');

    const look = await caller(t.app)('GET', `/invites/${token}`);
    assert.equal(look.statusCode, 200);
    assert.deepEqual(look.json(), {
      email,
      level: 'administrator',
      firstName: 'Inès',
      lastName: 'Roy',
      expiresAt: invite.expiresAt,
      project: { _id: p._id, name: 'Marina Tower' },
    });

    const accepted = await caller(t.app)('POST', `/invites/${token}/accept`, { password: 'a new password' });
    assert.equal(accepted.statusCode, 200);
    const body = accepted.json();
    assert.equal(body.username, email);
    assert.equal(body.name, 'Inès');
    assert.equal(body.message, 'Login successful');
    assert.ok(body.access_token);
    assert.ok(accepted.cookies.some((c) => c.name === 'service'));
    assert.ok(accepted.cookies.some((c) => c.name === 'serviceRefresh'));
    const after = (await caller(t.app, owner.auth)('GET', `/projects/${p._id}`)).json();
    assert.deepEqual(after.administrators, [body._id]);
    assert.deepEqual(after.editors, []);
    assert.deepEqual(after.invites, []);
    // The new administrator can read the project and its leads with the token it got, and log in with the password.
    assert.equal((await caller(t.app, { authorization: `Bearer ${body.access_token}` })('GET', `/leads?project=${p._id}`)).statusCode, 200);
    await login(t.app, { username: email, password: 'a new password' });

    // Once: the link is spent.
    assert.equal((await caller(t.app)('GET', `/invites/${token}`)).statusCode, 410);
    const again = await caller(t.app)('POST', `/invites/${token}/accept`, { password: 'another password' });
    assert.equal(again.statusCode, 410);
    assert.equal(again.json().code, 'gone');
  });

  test('a group invite; accepted by the signed-in invitee (existing user) → editors; another signed-in user → 403 and nothing changes', async () => {
    const g = await createGroup(t.app, owner.auth, { name: 'Coast Group' });
    const invitee = await userWithToken(t);
    const stranger = await userWithToken(t);
    const res = await caller(t.app, owner.auth)('POST', `/groups/${g._id}/invites`, { email: invitee.username.toUpperCase(), level: 'editor' });
    assert.equal(res.statusCode, 201);
    const { token, mail } = await mailedToken(invitee.username);
    assert.equal(mail.parsed.subject, 'You are invited to Coast Group');
    assert.deepEqual((await caller(t.app)('GET', `/invites/${token}`)).json().group, { _id: g._id, name: 'Coast Group' });

    const wrong = await caller(t.app, stranger.auth)('POST', `/invites/${token}/accept`, {});
    assert.equal(wrong.statusCode, 403);
    assert.deepEqual((await caller(t.app, owner.auth)('GET', `/groups/${g._id}`)).json().editors, []);

    const ok = await caller(t.app, invitee.auth)('POST', `/invites/${token}/accept`, {});
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json()._id, invitee.id);
    const group = (await caller(t.app, owner.auth)('GET', `/groups/${g._id}`)).json();
    assert.deepEqual(group.editors, [invitee.id]);
    assert.deepEqual(group.invites, []);
    assert.equal((await caller(t.app, invitee.auth)('GET', `/groups/${g._id}`)).statusCode, 200);
  });

  test('a change of owner is an invitation (level owner) the recipient accepts: only the owner sends it; the old owner stays as an administrator', async () => {
    const administrator = await userWithToken(t);
    const recipient = await userWithToken(t);
    const p = await createProject(t.app, owner.auth, { name: 'Harbour Lofts', body: { administrators: [administrator.id], editors: [recipient.id] } });
    const asOwner = caller(t.app, owner.auth);
    // Administrators manage members but cannot hand the project over.
    const byAdmin = await caller(t.app, administrator.auth)('POST', `/projects/${p._id}/invites`, { email: recipient.username, level: 'owner' });
    assert.equal(byAdmin.statusCode, 403);
    const res = await asOwner('POST', `/projects/${p._id}/invites`, { email: recipient.username, level: 'owner' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().level, 'owner');
    const { token, mail } = await mailedToken(recipient.username);
    assert.ok((mail.parsed.text ?? '').includes(`${owner.username} invited you to join Harbour Lofts on Showsuite as its owner`), mail.parsed.text);
    // Until it is accepted nothing moves: the project is still the owner's.
    assert.equal((await asOwner('GET', `/projects/${p._id}`)).json().user, owner.id);
    assert.equal((await caller(t.app)('GET', `/invites/${token}`)).json().level, 'owner');

    const ok = await caller(t.app, recipient.auth)('POST', `/invites/${token}/accept`, {});
    assert.equal(ok.statusCode, 200, ok.body);
    const after = (await caller(t.app, recipient.auth)('GET', `/projects/${p._id}`)).json();
    assert.equal(after.user, recipient.id);
    assert.deepEqual(after.administrators, [administrator.id, owner.id]);
    assert.deepEqual(after.editors, []);
    assert.deepEqual(after.invites, []);
    // The old owner is now an administrator: may manage, may not delete or hand it over again.
    assert.equal((await asOwner('DELETE', `/project/${p._id}`)).statusCode, 403);
    assert.equal((await asOwner('POST', `/projects/${p._id}/invites`, { email: administrator.username, level: 'owner' })).statusCode, 403);
    const audit = (await caller(t.app, recipient.auth)('GET', `/audit?filters[action]=owner_changed&filters[project]=${p._id}`)).json();
    assert.deepEqual(audit[0].detail, { kind: 'project', targetId: p._id, from: owner.id, to: recipient.id });

    // A group the same way; PATCH { user } stays refused with one answer for any id.
    const g = await createGroup(t.app, owner.auth, { name: 'Coast Group' });
    const direct = await asOwner('PATCH', `/groups/${g._id}`, { user: recipient.id });
    const unknown = await asOwner('PATCH', `/groups/${g._id}`, { user: 'ffffffffffffffffffffffff' });
    assert.equal(direct.statusCode, 400);
    assert.deepEqual(unknown.json(), direct.json());
    assert.equal((await asOwner('POST', `/groups/${g._id}/invites`, { email: recipient.username, level: 'owner' })).statusCode, 201);
    const groupInvite = await mailedToken(recipient.username);
    assert.equal((await caller(t.app, recipient.auth)('POST', `/invites/${groupInvite.token}/accept`, {})).statusCode, 200);
    const group = (await caller(t.app, recipient.auth)('GET', `/groups/${g._id}`)).json();
    assert.deepEqual([group.user, group.administrators], [recipient.id, [owner.id]]);
  });

  test('an existing account that is not signed in accepts with its own password (wrong one → 401)', async () => {
    const p = await createProject(t.app, owner.auth);
    const existing = await createUser(t.db);
    assert.equal((await caller(t.app, owner.auth)('POST', `/projects/${p._id}/invites`, { email: existing.username, level: 'editor' })).statusCode, 201);
    const { token } = await mailedToken(existing.username);
    assert.equal((await caller(t.app)('POST', `/invites/${token}/accept`, { password: 'not the password' })).statusCode, 401);
    assert.equal((await caller(t.app)('POST', `/invites/${token}/accept`, {})).statusCode, 400);
    const ok = await caller(t.app)('POST', `/invites/${token}/accept`, { password: TEST_PASSWORD });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual((await caller(t.app, owner.auth)('GET', `/projects/${p._id}`)).json().editors, [existing.id]);
  });

  test('7 days: the link expires (410) by the injected clock; revoke → 204, link 410, invite leaves invites', async () => {
    const p = await createProject(t.app, owner.auth);
    assert.equal((await caller(t.app, owner.auth)('POST', `/projects/${p._id}/invites`, { email: 'late@example.com', level: 'editor' })).statusCode, 201);
    const { token } = await mailedToken('late@example.com');
    clock.advance(7 * DAY - 1000);
    assert.equal((await caller(t.app)('GET', `/invites/${token}`)).statusCode, 200);
    clock.advance(1000);
    assert.equal((await caller(t.app)('GET', `/invites/${token}`)).statusCode, 410);
    assert.equal((await caller(t.app)('POST', `/invites/${token}/accept`, { password: 'whatever pass' })).statusCode, 410);

    // A week on, the owner signs in again (the old access token has expired by the same clock).
    owner = { ...owner, ...(await login(t.app, owner)), auth: { authorization: `Bearer ${(await login(t.app, owner)).token}` } };
    const made = (await caller(t.app, owner.auth)('POST', `/projects/${p._id}/invites`, { email: 'revoked@example.com', level: 'administrator' })).json();
    const { token: t2 } = await mailedToken('revoked@example.com');
    assert.equal((await caller(t.app, owner.auth)('DELETE', `/projects/${p._id}/invites/${made._id}`)).statusCode, 204);
    assert.equal((await caller(t.app, owner.auth)('DELETE', `/projects/${p._id}/invites/${made._id}`)).statusCode, 404);
    assert.equal((await caller(t.app)('GET', `/invites/${t2}`)).statusCode, 410);
    assert.equal((await caller(t.app)('POST', `/invites/${t2}/accept`, { password: 'whatever pass' })).statusCode, 410);
    assert.ok(!(await caller(t.app, owner.auth)('GET', `/projects/${p._id}`)).json().invites.some((i: { _id: string }) => i._id === made._id));
  });

  test('who may invite: owner and administrators; editors → 403; strangers → 404; bad input → 400 naming the field; unknown token → 404', async () => {
    const p = await createProject(t.app, owner.auth);
    const admin = await userWithToken(t);
    const editor = await userWithToken(t);
    const stranger = await userWithToken(t);
    assert.equal((await caller(t.app, owner.auth)('PATCH', `/projects/${p._id}`, { administrators: [admin.id], editors: [editor.id] })).statusCode, 200);
    const body = { email: 'someone@example.com', level: 'editor' };
    assert.equal((await caller(t.app, admin.auth)('POST', `/projects/${p._id}/invites`, body)).statusCode, 201);
    assert.equal((await caller(t.app, editor.auth)('POST', `/projects/${p._id}/invites`, body)).statusCode, 403);
    assert.equal((await caller(t.app, stranger.auth)('POST', `/projects/${p._id}/invites`, body)).statusCode, 404);
    assert.equal((await caller(t.app)('POST', `/projects/${p._id}/invites`, body)).statusCode, 401);
    const bad = await caller(t.app, owner.auth)('POST', `/projects/${p._id}/invites`, { email: 'nope', level: 'superuser' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      bad
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
      ['/email', '/level'],
    );
    const made = (await caller(t.app, owner.auth)('POST', `/projects/${p._id}/invites`, body)).json();
    assert.equal((await caller(t.app, editor.auth)('DELETE', `/projects/${p._id}/invites/${made._id}`)).statusCode, 403);
    assert.equal((await caller(t.app, stranger.auth)('DELETE', `/projects/${p._id}/invites/${made._id}`)).statusCode, 404);
    assert.equal((await caller(t.app)('GET', `/invites/${'x'.repeat(43)}`)).statusCode, 404);
    assert.equal((await caller(t.app)('GET', '/invites/short')).statusCode, 400);
    await t.app.outbox.drain();
  });
});
