import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { Config } from '../src/config.ts';
import { openDb, type Db } from '../src/db/db.ts';
import { checkKey, KeyMismatchError } from '../src/db/key-check.ts';
import { SecretBox } from '../src/lib/secret-box.ts';
import {
  createFloor,
  createGroup,
  createProject,
  createUnit,
  ENGINE,
  login,
  createUser,
  openTestDb,
  throwawayDatabase,
  slug,
  SPEC_SECRET_FIELDS,
  tempDir,
  testConfig,
  type TestDb,
} from './helpers.ts';

/**
 * Backup and restore as docs/deploy.md tells an operator to do it: `pg_dump --format=custom` of the database, a tar of
 * the media directory, the two keys kept aside; then `pg_restore` into an EMPTY database, the media unpacked, and the
 * service started there with the kept keys serves every record and opens every sealed secret. Started with another
 * SECRET_KEY it refuses (the check value stored at the first start). PostgreSQL only: the embedded engine is backed up
 * by copying its stopped DATA_DIR.
 */

const run = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}:\n${r.stderr}`);
};

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
function multipartPdf() {
  const boundary = `----backup${randomBytes(6).toString('hex')}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="brochure.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
    PDF,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe(`backup and restore (${ENGINE})`, { skip: ENGINE !== 'postgres' && 'pg_dump and pg_restore need PostgreSQL' }, () => {
  let source: TestDb;
  let config: Config;
  let app: FastifyInstance;
  /** What the restored service must answer the same: url → body. */
  const records = new Map<string, string>();
  const secrets: Record<string, string> = {};
  let projectId = '';
  let webhookSecret = '';
  let mediaUrl = '';
  let auth: { authorization: string };
  let credentials: { username: string; password: string };

  before(async () => {
    source = await openTestDb();
    // The keys an operator keeps with the backup (set, or generated into DATA_DIR/secrets.json).
    config = testConfig({ MEDIA_DIR: join(tempDir(), 'media'), WEBHOOK_ALLOW_PRIVATE: 'true', OUTBOX_POLL_MS: '0' });
    await checkKey(source.db, 'SECRET_KEY', config.secretKey);
    app = await buildApp({ config, db: source.db, logger: false });
    await app.ready();
    const user = await createUser(source.db);
    credentials = user;
    auth = { authorization: `Bearer ${(await login(app, user)).token}` };
    for (const f of SPEC_SECRET_FIELDS) secrets[f] = `${f}-${randomBytes(8).toString('hex')}`;
    const project = await createProject(app, auth, { query: { namespace: slug('backup') }, body: secrets });
    projectId = project._id;
    const floor = await createFloor(app, auth, projectId);
    const unit = await createUnit(app, auth, projectId, { floor: floor._id });
    const group = await createGroup(app, auth);
    const hook = await app.inject({
      method: 'POST',
      url: `/projects/${projectId}/webhooks`,
      headers: auth,
      payload: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    webhookSecret = hook.json().secret;
    const upload = multipartPdf();
    const media = await app.inject({ method: 'POST', url: '/media', headers: { ...auth, ...upload.headers }, payload: upload.payload });
    assert.equal(media.statusCode, 201, media.body);
    mediaUrl = new URL(media.json().url, 'http://x').pathname;
    for (const url of [
      `/project/${projectId}`,
      `/floors/${floor._id}`,
      `/units/${unit._id}`,
      `/groups/${group._id}`,
      `/projects/${projectId}/webhooks/${hook.json()._id}`,
      '/users/me',
    ]) {
      const res = await app.inject({ method: 'GET', url, headers: auth });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      records.set(url, res.body);
    }
    const pub = await app.inject({ method: 'GET', url: `/public/projects/${project.namespace}` });
    assert.equal(pub.statusCode, 200);
    records.set(`/public/projects/${project.namespace}`, pub.body);
  });
  after(async () => {
    await app?.close();
    await source?.drop();
  });

  test('pg_dump + media tar, restored into an empty database with the kept keys: every record and secret is back', async () => {
    const dir = tempDir('showsuite-backup-');
    const dump = join(dir, 'showsuite.dump');
    const mediaTar = join(dir, 'media.tar.gz');
    // The recipe of docs/deploy.md.
    run('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${dump}`, source.url!]);
    run('tar', ['-C', config.mediaDir, '-czf', mediaTar, '.']);

    const target = await throwawayDatabase('showsuite_restore');
    let restored: Db | undefined;
    let restoredApp: FastifyInstance | undefined;
    try {
      run('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', `--dbname=${target.url}`, dump]);
      const mediaDir = join(tempDir(), 'media');
      run('mkdir', ['-p', mediaDir]);
      run('tar', ['-C', mediaDir, '-xzf', mediaTar]);

      restored = await openDb({ databaseUrl: target.url, poolSize: 4 });
      // Started with another SECRET_KEY, the service refuses: the stored check value names the key it was started with.
      await assert.rejects(
        checkKey(restored, 'SECRET_KEY', randomBytes(32)),
        (err: unknown) => err instanceof KeyMismatchError && /SECRET_KEY/.test(err.message),
      );
      // With the kept keys it starts, and nothing waits to be migrated.
      await checkKey(restored, 'SECRET_KEY', config.secretKey);
      const keptConfig: Config = { ...config, mediaDir };
      restoredApp = await buildApp({ config: keptConfig, db: restored, logger: false });
      await restoredApp.ready();

      // The same access token still works (same JWT_SECRET, sessions restored); a fresh login too.
      for (const [url, body] of records) {
        const res: { statusCode: number; body: string; json(): unknown } = await restoredApp.inject({
          method: 'GET',
          url,
          headers: url.startsWith('/public') ? {} : auth,
        });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assert.deepEqual(res.json(), JSON.parse(body), url);
      }
      assert.equal((await login(restoredApp, credentials)).token.length > 0, true);
      const file = await restoredApp.inject({ method: 'GET', url: mediaUrl });
      assert.equal(file.statusCode, 200);
      assert.deepEqual(file.rawPayload, PDF);

      // Every sealed secret opens with the kept SECRET_KEY and is the value that was written.
      const box = new SecretBox(keptConfig.secretKey);
      const row = await restored.kysely.selectFrom('projects').select('secrets').where('id', '=', projectId).executeTakeFirstOrThrow();
      const sealed = row.secrets as Record<string, string>;
      assert.deepEqual(Object.keys(sealed).sort(), Object.keys(secrets).sort());
      for (const [field, value] of Object.entries(secrets)) assert.equal(box.open(sealed[field]!), value, field);
      const hooks = await restored.kysely.selectFrom('webhooks').select('secret').where('project_id', '=', projectId).execute();
      assert.deepEqual(
        hooks.map((h) => box.open(h.secret)),
        [webhookSecret],
      );
    } finally {
      await restoredApp?.close();
      await restored?.close();
      await target.drop();
    }
  });

  test('deploy/backup.sh and deploy/restore.sh, the compose recipe, run as written (RUN_IN=host, the database and the keys)', async () => {
    const dir = tempDir('showsuite-compose-backup-');
    const envFile = join(dir, '.env');
    writeFileSync(envFile, `POSTGRES_PASSWORD=x\nJWT_SECRET=${config.jwtSecret}\nSECRET_KEY=${config.secretKey.toString('hex')}\n`);
    const pgEnv = (url: string) => {
      const u = new URL(url);
      return { PGHOST: u.hostname, PGPORT: u.port || '5432', PGUSER: decodeURIComponent(u.username), PGDATABASE: u.pathname.slice(1) };
    };
    const sh = (script: string, arg: string, env: Record<string, string>) => {
      const r = spawnSync('sh', [script, arg], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', RUN_IN: 'host', SKIP_MEDIA: '1', ENV_FILE: envFile, ...env },
      });
      return r;
    };
    const out = join(dir, 'backup');
    const backedUp = sh('deploy/backup.sh', out, pgEnv(source.url!));
    assert.equal(backedUp.status, 0, backedUp.stderr);
    assert.equal(readFileSync(join(out, 'keys.env'), 'utf8'), `JWT_SECRET=${config.jwtSecret}\nSECRET_KEY=${config.secretKey.toString('hex')}\n`);
    assert.equal(statSync(join(out, 'keys.env')).mode & 0o077, 0, 'the keys are readable by their owner only');

    const target = await throwawayDatabase('showsuite_compose');
    let restored: Db | undefined;
    let restoredApp: FastifyInstance | undefined;
    try {
      // An env file without the backup's keys is refused before anything is written.
      const otherEnv = join(dir, 'other.env');
      writeFileSync(otherEnv, 'JWT_SECRET=another\n');
      const refused = sh('deploy/restore.sh', out, { ...pgEnv(target.url), ENV_FILE: otherEnv });
      assert.equal(refused.status, 2);
      assert.match(refused.stderr, /lacks the backup's JWT_SECRET/);

      const done = sh('deploy/restore.sh', out, pgEnv(target.url));
      assert.equal(done.status, 0, done.stderr);
      restored = await openDb({ databaseUrl: target.url, poolSize: 2 });
      await checkKey(restored, 'SECRET_KEY', config.secretKey);
      restoredApp = await buildApp({ config, db: restored, logger: false });
      await restoredApp.ready();
      for (const [url, body] of records) {
        if (url.startsWith('/public')) continue;
        const res: { statusCode: number; body: string; json(): unknown } = await restoredApp.inject({ method: 'GET', url, headers: auth });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assert.deepEqual(res.json(), JSON.parse(body), url);
      }
      const row = await restored.kysely.selectFrom('projects').select('secrets').where('id', '=', projectId).executeTakeFirstOrThrow();
      const box = new SecretBox(config.secretKey);
      for (const [field, value] of Object.entries(secrets)) assert.equal(box.open((row.secrets as Record<string, string>)[field]!), value, field);
    } finally {
      await restoredApp?.close();
      await restored?.close();
      await target.drop();
    }
  });
});
