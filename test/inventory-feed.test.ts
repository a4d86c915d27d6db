import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { ENGINE, caller, createProject, openTestDb, testConfig, TestClock, userWithToken, type TestApp, type TestDb, loggingTestApp } from './helpers.ts';
import { selfSignedCert, startFtpServer, startSftpServer } from './support/feed-servers.ts';

/**
 * The inventory feed against real servers started here: FTP and explicit FTPS (ftp-srv), SFTP (ssh2's
 * Server). Pulls on demand, white/blacklists, the three failures, secrets kept out of logs, and the schedule's
 * one pull per project per interval across two processes on one PostgreSQL database.
 */
const USER = 'feed-user-7f3a';
const PASSWORD = 'pa55-w0rd-never-logged-91c2';
const CSV = 'Unidad;Precio;Estado\nA1;"1.250.000";Vendido\nA2;99.000;Disponible\nB1;"300.000";Apartado\nP1;5.000;Disponible\n';

let testDb: TestDb;
let t: TestApp;
let owner: Awaited<ReturnType<typeof userWithToken>>;
let call: ReturnType<typeof caller>;
let ftp: Awaited<ReturnType<typeof startFtpServer>>;
let ftps: Awaited<ReturnType<typeof startFtpServer>>;
let sftp: Awaited<ReturnType<typeof startSftpServer>>;
const logs: string[] = [];
const clock = new TestClock();
let secretKey: string;

before(async () => {
  const tls = selfSignedCert();
  ftp = await startFtpServer({ username: USER, password: PASSWORD });
  ftps = await startFtpServer({ username: USER, password: PASSWORD, tls });
  sftp = await startSftpServer({ username: USER, password: PASSWORD });
  for (const server of [ftp, ftps, sftp]) server.put('exports/inventory.csv', CSV);
  testDb = await openTestDb();
  // The servers listen on loopback, which project settings may reach only with ALLOW_PRIVATE_TARGETS.
  const config = testConfig({ INVENTORY_FTP_CA: tls.certFile, INVENTORY_FTP_TIMEOUT_SEC: '5', INVENTORY_SYNC_MINUTES: '15', ALLOW_PRIVATE_TARGETS: 'true' });
  secretKey = config.secretKey.toString('hex');
  t = await loggingTestApp(testDb, config, clock, logs);
  owner = await userWithToken(t);
  call = caller(t.app, owner.auth);
});
// Whatever the set-up got to is closed, so a failed before() ends the file instead of leaving servers open.
after(async () => {
  await t?.close();
  await testDb?.drop();
  await Promise.all([ftp?.close(), ftps?.close(), sftp?.close()]);
});

async function feedProject(settings: Record<string, unknown>) {
  const p = await createProject(t.app, owner.auth, {
    body: {
      ftpPath: '/exports',
      ftpFileName: 'inventory.csv',
      ftpUsername: USER,
      ftpPassword: PASSWORD,
      ftpMapping: [
        { header: 'Unidad', property: 'name' },
        { header: 'Precio', property: 'price' },
        { header: 'Estado', property: 'availability' },
      ],
      yiStatusMapping: { available: 'Disponible', sold: 'Vendido', reserved: 'Apartado' },
      ...settings,
    },
  });
  return p;
}

const sync = (id: string, query = '') => call('POST', `/projects/${id}/inventory/sync${query}`);
const units = async (id: string) => Object.fromEntries(((await call('GET', `/units?project=${id}`)).json() as any[]).map((u) => [u.name, u]));
const syncs = async (id: string) => (await call('GET', `/projects/${id}/inventory/syncs`)).json() as any[];

describe('inventory feed', () => {
  for (const kind of ['ftp', 'ftps', 'sftp'] as const) {
    test(`${kind}: a dry run previews, a pull imports with source "ftp", records the sync and sets lastSync`, async () => {
      const server = { ftp, ftps, sftp }[kind];
      const p = await feedProject({ ftpUrl: kind === 'ftp' ? '127.0.0.1' : `${kind}://127.0.0.1`, ftpPort: server.port });
      const dry = await sync(p._id, '?dryRun=true');
      assert.equal(dry.statusCode, 200, dry.body);
      assert.deepEqual(dry.json().summary, { created: 4, updated: 0, unchanged: 0, kept: 0, errors: 0, skipped: 0 });
      assert.deepEqual(await units(p._id), {}, 'a dry run changes nothing');
      assert.deepEqual(await syncs(p._id), [], 'and records nothing');
      clock.advance(1000);
      const res = await sync(p._id);
      assert.equal(res.statusCode, 200, res.body);
      const after = await units(p._id);
      assert.deepEqual(
        Object.values(after)
          .map((u: any) => [u.name, u.price, u.availability])
          .sort(),
        [
          ['A1', 1250000, 'sold'],
          ['A2', 99000, 'available'],
          ['B1', 300000, 'reserved'],
          ['P1', 5000, 'available'],
        ],
      );
      const [record] = await syncs(p._id);
      assert.equal(record.source, 'ftp');
      assert.equal(record.status, 'applied');
      assert.equal(record.user, owner.id);
      assert.equal((await call('GET', `/project/${p._id}`)).json().lastSync, new Date(clock.now()).toISOString());
      assert.ok(server.logins.includes(USER), 'the server saw the sealed username');
    });
  }

  test('ftpWhitelist reads only matching unit names; ftpBlacklist skips rows', async () => {
    const p = await feedProject({ ftpUrl: `ftp://127.0.0.1:${ftp.port}`, ftpWhitelist: 'a*, B1', ftpBlacklist: 'A2' });
    const res = await sync(p._id);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().summary.skipped, 2);
    assert.deepEqual(Object.keys(await units(p._id)).sort(), ['A1', 'B1']);
  });

  test('unreachable server, refused login, missing file → 502 upstream_failed naming which, a failed sync record, no change', async () => {
    const closed = await startFtpServer({ username: USER, password: PASSWORD });
    await closed.close();
    const cases = [
      { name: 'unreachable', settings: { ftpUrl: `ftp://127.0.0.1:${closed.port}` }, reason: 'unreachable', detail: /Could not reach/ },
      {
        name: 'refused login (ftp)',
        settings: { ftpUrl: `ftp://127.0.0.1:${ftp.port}`, ftpPassword: 'wrong' },
        reason: 'login_refused',
        detail: /refused the login/,
      },
      {
        name: 'refused login (sftp)',
        settings: { ftpUrl: `sftp://127.0.0.1:${sftp.port}`, ftpPassword: 'wrong' },
        reason: 'login_refused',
        detail: /refused the login/,
      },
      {
        name: 'missing file (ftp)',
        settings: { ftpUrl: `ftp://127.0.0.1:${ftp.port}`, ftpFileName: 'nope.csv' },
        reason: 'file_missing',
        detail: /no file at/,
      },
      {
        name: 'missing file (sftp)',
        settings: { ftpUrl: `sftp://127.0.0.1:${sftp.port}`, ftpFileName: 'nope.csv' },
        reason: 'file_missing',
        detail: /no file at/,
      },
    ];
    for (const c of cases) {
      const p = await feedProject(c.settings);
      await call('POST', `/units?project=${p._id}&name=Existing`, { price: 1 });
      const before = await units(p._id);
      const res = await sync(p._id);
      assert.equal(res.statusCode, 502, `${c.name}: ${res.body}`);
      const body = res.json();
      assert.equal(body.code, 'upstream_failed', c.name);
      assert.equal(body.reason, c.reason, c.name);
      assert.match(body.detail, c.detail, c.name);
      assert.deepEqual(await units(p._id), before, `${c.name}: no change`);
      const records = await syncs(p._id);
      assert.equal(records.length, 1, c.name);
      assert.equal(records[0].status, 'failed');
      assert.equal(records[0].source, 'ftp');
      assert.equal(records[0].errors[0].message, body.detail);
      assert.equal(records[0]._id, body.sync);
      assert.equal((await call('GET', `/project/${p._id}`)).json().lastSync, undefined, `${c.name}: lastSync only for applied pulls`);
    }
    const none = await createProject(t.app, owner.auth);
    const misconfigured = await sync(none._id);
    assert.equal(misconfigured.statusCode, 400);
    assert.equal(misconfigured.json().errors[0].path, '/ftpUrl');
  });

  test('credentials never reach a response, a sync record or the log', async () => {
    const bad = await feedProject({ ftpUrl: `ftp://127.0.0.1:${ftp.port}`, ftpUsername: `${USER}-x`, ftpPassword: `${PASSWORD}-x` });
    await sync(bad._id);
    const good = await feedProject({ ftpUrl: `sftp://127.0.0.1:${sftp.port}` });
    const bodies = [(await sync(good._id)).body, (await sync(bad._id)).body, JSON.stringify(await syncs(bad._id)), JSON.stringify(await syncs(good._id))];
    bodies.push((await call('GET', `/project/${good._id}`)).body);
    for (const text of [...bodies, ...logs]) {
      assert.ok(!text.includes(PASSWORD), `password leaked: ${text.slice(0, 200)}`);
      assert.ok(!text.includes(USER), `username leaked: ${text.slice(0, 200)}`);
    }
    assert.ok(logs.length > 10, 'the log was written');
  });

  test('editors may not pull (403); strangers get 404', async () => {
    const p = await feedProject({ ftpUrl: `ftp://127.0.0.1:${ftp.port}` });
    const editor = await userWithToken(t);
    await call('PATCH', `/project/${p._id}`, { editors: [editor.id] });
    assert.equal((await caller(t.app, editor.auth)('POST', `/projects/${p._id}/inventory/sync`)).statusCode, 403);
    const stranger = await userWithToken(t);
    assert.equal((await caller(t.app, stranger.auth)('POST', `/projects/${p._id}/inventory/sync`)).statusCode, 404);
  });

  test('the schedule pulls each feed once per interval however many nodes tick', async () => {
    // Only this test's projects have feeds from here on: earlier ones lose theirs.
    await sql`update projects set data = data - 'ftpUrl'`.execute(t.db.kysely);
    const feeds = [
      await feedProject({ ftpUrl: `ftp://127.0.0.1:${ftp.port}` }),
      await feedProject({ ftpUrl: `sftp://127.0.0.1:${sftp.port}` }),
      await feedProject({ ftpUrl: `ftp://127.0.0.1:${ftp.port}`, ftpFileName: 'gone.csv' }),
    ];
    const ids = feeds.map((p) => p._id);
    const start = clock.now();
    const round = async (at: number) => {
      if (ENGINE === 'postgres') {
        // Two processes on one PostgreSQL database, ticking at the same instant.
        const outputs = await Promise.all([nodeTick(at), nodeTick(at)]);
        return outputs.flat();
      }
      // PGlite is one process's database: two app instances on it stand in for two nodes.
      const other = await buildApp({
        config: testConfig({ INVENTORY_SYNC_MINUTES: '15', SECRET_KEY: secretKey, INVENTORY_FTP_TIMEOUT_SEC: '5', ALLOW_PRIVATE_TARGETS: 'true' }),
        db: t.db,
        logger: false,
        clock: { now: () => at },
      });
      await other.ready();
      other.feedScheduler.stop();
      clock.t = at;
      const results = await Promise.all([0, 1, 2].flatMap(() => [t.app.feedScheduler.tick(), other.feedScheduler.tick()]));
      await other.close();
      return results.flatMap((r) => r.pulled.map((p) => `${p.project}:${p.status}`));
    };
    const first = await round(start);
    assert.deepEqual(first.map((p) => p.split(':')[0]).sort(), [...ids].sort(), `each feed pulled exactly once: ${first}`);
    assert.deepEqual(
      first.filter((p) => p.startsWith(ids[2]!)).map((p) => p.split(':')[1]),
      ['failed'],
    );
    assert.deepEqual(await round(start + 14 * 60_000), [], 'nothing before the interval has passed');
    const second = await round(start + 15 * 60_000);
    assert.deepEqual(second.map((p) => p.split(':')[0]).sort(), [...ids].sort());
    for (const id of ids) {
      const records = await syncs(id);
      assert.equal(records.length, 2, `two pulls of ${id}`);
      assert.ok(records.every((r) => r.user === null && r.source === 'ftp'));
    }
    assert.deepEqual(
      (await syncs(ids[0]!)).map((r) => r.status),
      ['applied', 'applied'],
    );
    assert.deepEqual(
      (await syncs(ids[2]!)).map((r) => r.status),
      ['failed', 'failed'],
    );
  });

  test('INVENTORY_SYNC_MINUTES=0 turns the schedule off', async () => {
    const off = await buildApp({ config: testConfig({ INVENTORY_SYNC_MINUTES: '0' }), db: t.db, logger: false });
    await off.ready();
    assert.deepEqual((await off.feedScheduler.tick()).pulled, []);
    await off.close();
  });
});

describe('inventory feed in the change log', () => {
  const events = async (id: string) => {
    const res = await call('GET', `/projects/${id}/events?limit=1000`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as any[];
  };

  test('a pull asked for through the API appends with actor sync naming the user; a dry run and a failed pull append nothing', async () => {
    const p = await feedProject({ ftpUrl: `sftp://127.0.0.1:${sftp.port}` });
    assert.equal((await sync(p._id, '?dryRun=true')).statusCode, 200);
    const missing = await feedProject({ ftpUrl: `ftp://127.0.0.1:${ftp.port}`, ftpFileName: 'nope.csv' });
    assert.equal((await sync(missing._id)).statusCode, 502);
    assert.deepEqual(await events(p._id), []);
    assert.deepEqual(await events(missing._id), []);
    const res = await sync(p._id);
    assert.equal(res.statusCode, 200, res.body);
    const log = await events(p._id);
    const byName = await units(p._id);
    assert.deepEqual(
      log.map((e) => [e.seq, e.type, e.data._id]),
      [
        [1, 'unit.created', byName.A1._id],
        [2, 'unit.created', byName.A2._id],
        [3, 'unit.created', byName.B1._id],
        [4, 'unit.created', byName.P1._id],
        [5, 'inventory.imported', res.json().sync],
      ],
    );
    for (const e of log) assert.deepEqual(e.actor, { kind: 'sync', id: owner.id });
    assert.deepEqual(log[0].data.changes.availability, [null, 'sold']);
    assert.deepEqual(log[4].data.changes.source, [null, 'ftp']);
  });

  test('a scheduled pull appends with actor sync and no user; unchanged rows append nothing but the import', async () => {
    // Only this test's project has a feed, so the tick pulls it alone.
    await sql`update projects set data = data - 'ftpUrl'`.execute(t.db.kysely);
    const p = await feedProject({ ftpUrl: `ftp://127.0.0.1:${ftp.port}` });
    await call('POST', `/units?project=${p._id}&name=A2`, { price: 99000 });
    const tick = await t.app.feedScheduler.tick();
    assert.deepEqual(tick.pulled, [{ project: p._id, source: 'ftp', status: 'applied' }]);
    const log = await events(p._id);
    assert.deepEqual(log[0].actor, { kind: 'user', id: owner.id }, 'the unit made through the API');
    assert.deepEqual(
      log.slice(1).map((e) => [e.seq, e.type]),
      [
        [2, 'unit.created'],
        [3, 'unit.created'],
        [4, 'unit.created'],
        [5, 'inventory.imported'],
      ],
    );
    for (const e of log.slice(1)) assert.deepEqual(e.actor, { kind: 'sync' });
    assert.deepEqual(log[4].data.changes.summary[1], { created: 3, updated: 0, unchanged: 1, kept: 0, errors: 0, skipped: 0 });
  });
});

function nodeTick(at: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/feed-node.ts'], {
      env: { ...process.env, DATABASE_URL: testDb.url!, FEED_NOW: String(at), FEED_SECRET_KEY: secretKey, FEED_TICKS: '3' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`feed node exited ${code}: ${err}`))));
  });
}

describe('inventory feed: loopback and private targets', () => {
  test('ftpUrl at a loopback or private address, in any spelling → 400 naming ftpUrl; a name resolving there later → a failed pull naming why', async () => {
    // A node with the rule in force (no ALLOW_PRIVATE_TARGETS), on the same database; the owner's token works on both.
    const strict = await buildApp({ config: testConfig({ INVENTORY_SYNC_MINUTES: '15', SECRET_KEY: secretKey }), db: t.db, clock, logger: false });
    await strict.ready();
    strict.feedScheduler.stop();
    try {
      const strictCall = caller(strict, owner.auth);
      const p = await feedProject({});
      for (const ftpUrl of [
        `sftp://127.0.0.1:${sftp.port}`,
        `sftp://127.1:${sftp.port}`,
        'sftp://2130706433',
        'ftps://0x7f.1',
        'ftp://0177.0.0.1',
        '10.0.0.1',
        'ftp://169.254.169.254',
        'sftp://[::1]',
        'sftp://[::ffff:7f00:1]',
        'sftp://[::127.0.0.1]',
        'sftp://[::ffff:0:7f00:1]',
        'sftp://[2002:7f00:1::]',
        'ftp://[64:ff9b::a00:1]',
        'sftp://[fd00::1]',
        'localhost',
      ]) {
        const res = await strictCall('PATCH', `/project/${p._id}`, { ftpUrl });
        assert.equal(res.statusCode, 400, `${ftpUrl}: ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.equal(res.json().errors[0].path, '/ftpUrl', ftpUrl);
        assert.match(res.json().errors[0].message, /loopback or private/, ftpUrl);
      }
      const created = await strictCall('POST', '/projects?name=Feed', { ftpUrl: `sftp://127.0.0.1:${sftp.port}` });
      assert.equal(created.statusCode, 400);
      assert.equal(created.json().errors[0].path, '/ftpUrl');
      assert.equal((await strictCall('PATCH', `/project/${p._id}`, { ftpUrl: 'sftp://files.example.com' })).statusCode, 200, 'a public name is kept');

      // Set while the name pointed elsewhere, it now resolves to loopback: refused before connecting, the same answer
      // for an open port (the SFTP server) and a closed one.
      await sql`update projects set data = data - 'ftpUrl'`.execute(t.db.kysely);
      const closed = await startFtpServer({ username: USER, password: PASSWORD });
      await closed.close();
      const answers = [];
      for (const port of [sftp.port, closed.port]) {
        const q = await feedProject({});
        await sql`update projects set data = data || ${JSON.stringify({ ftpUrl: `sftp://localhost:${port}` })}::jsonb where id = ${q._id}`.execute(t.db.kysely);
        const res = await strictCall('POST', `/projects/${q._id}/inventory/sync`);
        assert.equal(res.statusCode, 502, res.body);
        const body = res.json();
        assert.equal(body.reason, 'private_address');
        assert.match(body.detail, /localhost resolves to (127\.0\.0\.1|::1), a loopback or private address/);
        const records = await syncs(q._id);
        assert.equal(records[0].status, 'failed');
        assert.equal(records[0].summary.reason, 'private_address');
        answers.push({ status: res.statusCode, reason: body.reason, detail: body.detail.replace(`:${port}`, ':<port>') });
        await sql`update projects set data = data - 'ftpUrl' where id = ${q._id}`.execute(t.db.kysely);
      }
      assert.deepEqual(answers[0], answers[1], 'an open and a closed port answer alike');

      // The schedule fails the same way, naming the reason.
      const q = await feedProject({});
      await sql`update projects set data = data || ${JSON.stringify({ ftpUrl: `sftp://localhost:${sftp.port}` })}::jsonb where id = ${q._id}`.execute(
        t.db.kysely,
      );
      const tick = await strict.feedScheduler.tick();
      assert.deepEqual(
        tick.pulled.filter((x) => x.project === q._id),
        [{ project: q._id, source: 'ftp', status: 'failed', reason: 'private_address' }],
      );
      assert.equal((await syncs(q._id))[0].summary.reason, 'private_address');
    } finally {
      await strict.close();
    }
  });
});

describe('inventory feed: bounds', () => {
  test('a feed file past INVENTORY_MAX_ROWS → 413 too_many_rows naming the limit, a failed sync record, no change', async () => {
    ftp.put('exports/big.csv', ['Unidad;Precio', ...Array.from({ length: 20_001 }, (_, i) => `Z${i};1`)].join('\n') + '\n');
    const p = await feedProject({ ftpUrl: `ftp://127.0.0.1:${ftp.port}`, ftpFileName: 'big.csv' });
    const res = await sync(p._id);
    assert.equal(res.statusCode, 413, res.body);
    assert.equal(res.json().code, 'too_many_rows');
    assert.equal(res.json().maxRows, 20_000);
    assert.deepEqual(await units(p._id), {});
    const [record] = await syncs(p._id);
    assert.equal(record.status, 'failed');
    assert.equal(record.summary.reason, 'too_many_rows');
  });
});
