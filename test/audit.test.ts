import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { addMember } from '../src/db/member-lists.repo.ts';
import { AuditService } from '../src/modules/audit/audit.service.ts';
import { buildTestApp, createProject, createUser, ENGINE, TestClock, userWithToken, type TestApp } from './helpers.ts';

/** The audit log: security events recorded with actor, address, time and target; read by administrators and project owners. */
describe(`audit log (${ENGINE})`, () => {
  const clock = new TestClock();
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof userWithToken>>;
  before(async () => {
    t = await buildTestApp({ clock, env: { OUTBOX_POLL_MS: '0' } });
    admin = await userWithToken(t, { role: 'admin' });
  });
  after(async () => {
    await t?.close();
  });

  const get = async (auth: Record<string, string>, query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/audit?${query}`, headers: auth });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as {
      action: string;
      actor: { _id: string; username?: string } | null;
      address: string | null;
      subject: string | null;
      project: string | null;
      detail: Record<string, unknown>;
      at: string;
    }[];
  };

  test('sign-ins and failures, with the address they came from', async () => {
    const user = await createUser(t.db);
    const from = '198.51.100.7';
    const login = (password: string) =>
      t.app.inject({ method: 'POST', url: '/users/login', payload: { username: user.username, password }, remoteAddress: from });
    assert.equal((await login('not-the-password')).statusCode, 401);
    assert.equal((await login(user.password)).statusCode, 200);
    const failed = (await get(admin.auth, `filters[action]=sign_in_failed&filters[from]=${new Date(clock.now() - 1000).toISOString()}`)).filter(
      (e) => e.detail.username === user.username,
    );
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.actor, null);
    assert.equal(failed[0]!.address, from);
    const signedIn = await get(admin.auth, `filters[action]=sign_in&filters[actor]=${user.id}`);
    assert.equal(signedIn.length, 1);
    assert.deepEqual(signedIn[0]!.actor, { _id: user.id, username: user.username });
    assert.equal(signedIn[0]!.address, from);
  });

  test("a project's settings, members, invitations and lead exports: by whom, what (names, never values); owners read their projects' entries", async () => {
    const owner = await userWithToken(t);
    const stranger = await userWithToken(t);
    const p = await createProject(t.app, owner.auth);
    const colleague = await createUser(t.db);
    await addMember(t.db.kysely, 'projects', p._id, colleague.id, 'editor', Date.now());
    const patch = (payload: object) => t.app.inject({ method: 'PATCH', url: `/project/${p._id}`, headers: owner.auth, payload });
    assert.equal((await patch({ name: 'Renamed', ftpPassword: 'hunter2-secret' })).statusCode, 200);
    assert.equal((await patch({ editors: [] })).statusCode, 200);
    const invited = await t.app.inject({
      method: 'POST',
      url: `/projects/${p._id}/invites`,
      headers: owner.auth,
      payload: { email: 'new@example.com', level: 'editor' },
    });
    assert.equal(invited.statusCode, 201, invited.body);
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/projects/${p._id}/invites/${invited.json()._id}`, headers: owner.auth })).statusCode, 204);
    assert.equal((await t.app.inject({ method: 'GET', url: `/leads?project=${p._id}&format=csv`, headers: owner.auth })).statusCode, 200);

    const entries = await get(owner.auth, `filters[project]=${p._id}`);
    assert.deepEqual(
      entries.map((e) => e.action),
      ['leads_exported', 'invite_revoked', 'member_invited', 'members_changed', 'settings_changed'],
    );
    const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));
    assert.deepEqual(byAction.settings_changed!.detail, { fields: ['ftpPassword', 'name'] });
    assert.deepEqual(byAction.members_changed!.detail, { editors: [] });
    assert.deepEqual(byAction.leads_exported!.detail, { format: 'csv', count: 0 });
    assert.equal(byAction.settings_changed!.actor?._id, owner.id);
    assert.ok(!JSON.stringify(entries).includes('hunter2'), 'no secret value');
    // Another user reads nothing of this project; an administrator reads it too.
    assert.deepEqual(await get(stranger.auth, `filters[project]=${p._id}`), []);
    assert.equal((await get(admin.auth, `filters[project]=${p._id}`)).length, 5);
    assert.equal((await t.app.inject({ method: 'GET', url: '/audit' })).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'GET', url: '/audit?filters[action]=nonsense', headers: admin.auth })).statusCode, 400);
  });

  test('kept AUDIT_RETENTION_DAYS: older entries are forgotten by the prune', async () => {
    const marker = await createUser(t.db);
    const old = new Date(clock.now() - 400 * 24 * 60 * 60 * 1000);
    await sql`insert into audit_log (at, actor_id, action, subject_id) values (${old}, ${marker.id}, 'sign_in', ${marker.id}), (${new Date(clock.now())}, ${marker.id}, 'sign_in', ${marker.id})`.execute(
      t.db.kysely,
    );
    assert.equal((await get(admin.auth, `filters[actor]=${marker.id}`)).length, 2);
    assert.ok((await new AuditService({ db: t.db, clock, config: t.config }).prune()) >= 1);
    const left = await get(admin.auth, `filters[actor]=${marker.id}`);
    assert.equal(left.length, 1);
    assert.equal(left[0]!.at, new Date(clock.now()).toISOString());
  });
});
