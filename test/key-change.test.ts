import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { checkKeys, KeyMismatchError } from '../src/db/key-check.ts';
import { resealSecrets } from '../src/db/reseal.ts';
import { SecretBox } from '../src/lib/secret-box.ts';
import type { Config } from '../src/config.ts';
import { createProject, createUser, ENGINE, login, openTestDb, slug, testConfig, type TestDb, type TestUser } from './helpers.ts';

/**
 * Changing JWT_SECRET and SECRET_KEY on a running database, as docs/deploy.md says: nodes start with the new keys and the
 * retiring ones (`*_PREVIOUS`), sessions and sealed values made under the old keys keep working, stored secrets are
 * sealed again, and once the retiring keys are dropped only a node with another key is refused.
 */
describe(`key change (${ENGINE})`, () => {
  const J1 = `old-jwt-${randomBytes(24).toString('hex')}`;
  const J2 = `new-jwt-${randomBytes(24).toString('hex')}`;
  const K1 = randomBytes(32).toString('hex');
  const K2 = randomBytes(32).toString('hex');
  let testDb: TestDb;
  const apps: FastifyInstance[] = [];
  let user: TestUser;

  /** A node on the shared database: its keys checked as main.ts does, the secrets sealed again when it has a retiring key. */
  async function node(env: Record<string, string>): Promise<{ app: FastifyInstance; config: Config }> {
    const config = testConfig(env);
    await checkKeys(testDb.db, config);
    if (config.previousSecretKey) await resealSecrets(testDb.db, new SecretBox(config.secretKey, config.previousSecretKey));
    const app = await buildApp({ config, db: testDb.db, logger: false });
    await app.ready();
    apps.push(app);
    return { app, config };
  }

  before(async () => {
    testDb = await openTestDb();
    user = await createUser(testDb.db);
  });
  after(async () => {
    for (const app of apps) await app.close();
    await testDb?.drop();
  });

  test('old sessions and sealed values keep working through the change; then only the new keys do', async () => {
    const before = await node({ JWT_SECRET: J1, SECRET_KEY: K1, WEBHOOK_ALLOW_PRIVATE: 'true' });
    const oldToken = (await login(before.app, user)).token;
    const oldAuth = { authorization: `Bearer ${oldToken}` };
    const project = await createProject(before.app, oldAuth, { query: { namespace: slug('keys') }, body: { ftpPassword: 'feed-password-1' } });
    const hook = await before.app.inject({
      method: 'POST',
      url: `/projects/${project._id}/webhooks`,
      headers: oldAuth,
      payload: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const hookUrl = `/projects/${project._id}/webhooks/${hook.json()._id}`;
    const secret = hook.json().secret as string;
    const sealedBefore = await testDb.db.kysely.selectFrom('webhooks').select('secret').where('id', '=', hook.json()._id).executeTakeFirstOrThrow();

    // During the change: the new keys, the old ones retiring.
    const during = await node({ JWT_SECRET: J2, JWT_SECRET_PREVIOUS: J1, SECRET_KEY: K2, SECRET_KEY_PREVIOUS: K1 });
    assert.equal((await during.app.inject({ method: 'GET', url: '/users/me', headers: oldAuth })).statusCode, 200, 'a session signed with the old JWT_SECRET');
    assert.equal((await during.app.inject({ method: 'GET', url: hookUrl, headers: oldAuth })).statusCode, 200);
    const sealedAfter = await testDb.db.kysely.selectFrom('webhooks').select('secret').where('id', '=', hook.json()._id).executeTakeFirstOrThrow();
    assert.notEqual(sealedAfter.secret, sealedBefore.secret, 'sealed again under the new key');
    const newToken = (await login(during.app, user)).token;

    // After: the retiring keys dropped. What was sealed again opens; a new session works; an old one does not.
    const done = await node({ JWT_SECRET: J2, SECRET_KEY: K2 });
    const newAuth = { authorization: `Bearer ${newToken}` };
    assert.equal((await done.app.inject({ method: 'GET', url: hookUrl, headers: newAuth })).statusCode, 200);
    assert.equal((await done.app.inject({ method: 'GET', url: '/users/me', headers: oldAuth })).statusCode, 401, 'the old JWT_SECRET is gone');
    const box = new SecretBox(done.config.secretKey);
    assert.equal(box.open(sealedAfter.secret), secret, 'the webhook secret opens with the new key alone');
    const row = await testDb.db.kysely.selectFrom('projects').select('secrets').where('id', '=', project._id).executeTakeFirstOrThrow();
    assert.equal(box.open(row.secrets.ftpPassword!), 'feed-password-1', 'a project secret sealed again opens with the new key alone');

    // A node with another JWT_SECRET, or the old SECRET_KEY, is refused, naming the setting.
    await assert.rejects(
      checkKeys(testDb.db, testConfig({ JWT_SECRET: J1, SECRET_KEY: K2 })),
      (err) => err instanceof KeyMismatchError && /^JWT_SECRET /.test(err.message),
    );
    await assert.rejects(
      checkKeys(testDb.db, testConfig({ JWT_SECRET: J2, SECRET_KEY: K1 })),
      (err) => err instanceof KeyMismatchError && /^SECRET_KEY /.test(err.message),
    );
  });

  test('a second node with another JWT_SECRET is refused before it serves (it would sign people out at random)', async () => {
    const fresh = await openTestDb();
    try {
      await checkKeys(fresh.db, testConfig({ JWT_SECRET: J1, SECRET_KEY: K1 }));
      await checkKeys(fresh.db, testConfig({ JWT_SECRET: J1, SECRET_KEY: K1 }));
      await assert.rejects(
        checkKeys(fresh.db, testConfig({ JWT_SECRET: J2, SECRET_KEY: K1 })),
        (err) => err instanceof KeyMismatchError && /JWT_SECRET is not the key/.test(err.message),
      );
    } finally {
      await fresh.drop();
    }
  });
});
