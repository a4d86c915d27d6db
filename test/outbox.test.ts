import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { simpleParser } from 'mailparser';
import { buildApp } from '../src/app.ts';
import { openDb } from '../src/db/db.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { MAIL_KIND } from '../src/mail/mail.ts';
import { bossDb } from '../src/outbox/outbox.ts';
import { sql } from 'kysely';
import { newObjectId } from '../src/lib/object-id.ts';
import { buildTestApp, caller, createProject, createUser, ENGINE, openTestDb, TestClock, tempDir, testConfig, type TestApp, startTwoNodes } from './helpers.ts';
import { startSmtp, type Smtp } from './smtp.ts';

const DAY = 24 * 60 * 60 * 1000;
const visitor = { firstName: 'Ana', lastName: 'Lima', email: 'ana@example.com', phone: '+1 555 0100' };

/** A project written straight to the database (these tests' clock is a day off, so no sign-in). */
async function projectWithForms(t: TestApp, settings: Record<string, unknown> = {}) {
  const owner = await createUser(t.db);
  const id = newObjectId();
  const data = { enableForms: true, formsSendTo: 'sales@example.com', ...settings };
  await sql`insert into projects (id, user_id, name, data) values (${id}, ${owner.id}, ${`Outbox ${id.slice(-6)}`}, ${JSON.stringify(data)}::jsonb)`.execute(
    t.db.kysely,
  );
  return { project: { _id: id } };
}

describe('outbox: mail queued with the lead, sent by the worker, retried, never lost', () => {
  let smtp: Smtp;
  let t: TestApp;
  // The app's clock runs a day behind the database's: an attempt it schedules "in 30 s" is already due for
  // pg-boss (which compares with the database's now()), so the test drives every retry with drain(), no waits.
  const clock = new TestClock(Date.now() - DAY);
  before(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 's3cret pass' });
    t = await buildTestApp({ clock, env: { SMTP_URL: smtp.url, OUTBOX_POLL_MS: '0', MAIL_FROM: 'Showsuite <no-reply@showsuite.test>' } });
  });
  after(async () => {
    await t.close();
    await smtp.stop();
  });

  test('the message row commits with the lead: queued, not sent until the worker runs; a refused lead queues nothing', async () => {
    const { project } = await projectWithForms(t);
    const before = smtp.received.length;
    const res = await caller(t.app)('POST', '/public/leads', { project: project._id, ...visitor });
    assert.equal(res.statusCode, 201);
    const queued = await t.app.outbox.jobs(MAIL_KIND);
    const mine = queued.filter((j) => j.state === 'created');
    assert.ok(mine.length >= 1, 'a mail job waits in the outbox');
    assert.equal(smtp.received.length, before, 'nothing sent before the worker runs');

    // A lead that is refused (the project takes no enquiries) rolls back and leaves no job behind.
    const closed = await projectWithForms(t, { enableForms: false });
    const count = (await t.app.outbox.jobs(MAIL_KIND)).length;
    assert.equal((await caller(t.app)('POST', '/public/leads', { project: closed.project._id, ...visitor })).statusCode, 403);
    assert.equal((await t.app.outbox.jobs(MAIL_KIND)).length, count);

    assert.ok((await t.app.outbox.drain()) >= 1);
    await smtp.waitFor(before + 1);
    const got = smtp.received.at(-1)!;
    assert.deepEqual(got.rcptTo, ['sales@example.com']);
    assert.equal(got.mailFrom, 'no-reply@showsuite.test');
    assert.equal((await t.app.outbox.jobs(MAIL_KIND)).filter((j) => j.state === 'created' || j.state === 'active').length, 0);
  });

  test('SMTP down: the attempt fails, the next is scheduled 30 s later by the injected clock; once SMTP is back it is delivered once', async () => {
    const { project } = await projectWithForms(t, { formsSendTo: 'down@example.com' });
    await smtp.down();
    try {
      assert.equal((await caller(t.app)('POST', '/public/leads', { project: project._id, ...visitor })).statusCode, 201);
      const [job] = (await t.app.outbox.jobs(MAIL_KIND)).filter((j) => j.state === 'created');
      assert.ok(job);
      const failedAt = clock.now();
      assert.equal(await t.app.outbox.drain(), 1, 'one attempt made');
      const attempts = await t.app.outbox.jobs(MAIL_KIND, job.key);
      assert.equal(attempts.length, 2);
      const [next, first] = attempts;
      assert.equal(first!.attempt, 1);
      assert.match(String(first!.output?.error), /ECONNREFUSED|connect/i);
      assert.equal(next!.attempt, 2);
      assert.equal(next!.state, 'created');
      assert.equal(next!.startAfter.getTime(), failedAt + 30_000, 'retry after 30 s, by the injected clock');
      // Still down: the third attempt waits 60 s (growing delays).
      clock.advance(30_000);
      assert.equal(await t.app.outbox.drain(), 1);
      const third = (await t.app.outbox.jobs(MAIL_KIND, job.key))[0]!;
      assert.equal(third.attempt, 3);
      assert.equal(third.startAfter.getTime(), clock.now() + 60_000);
    } finally {
      await smtp.up();
    }
    const before = smtp.received.length;
    assert.equal(await t.app.outbox.drain(), 1);
    await smtp.waitFor(before + 1);
    assert.equal(await t.app.outbox.drain(), 0, 'nothing left to send');
    const delivered = smtp.received.filter((m) => m.rcptTo.includes('down@example.com'));
    assert.equal(delivered.length, 1, 'delivered exactly once');
  });

  test('a message still undelivered 24 hours after it was queued is given up, never sent later', async () => {
    const { project } = await projectWithForms(t, { formsSendTo: 'never@example.com' });
    await smtp.down();
    try {
      const known = new Set((await t.app.outbox.jobs(MAIL_KIND)).map((j) => j.key));
      assert.equal((await caller(t.app)('POST', '/public/leads', { project: project._id, ...visitor })).statusCode, 201);
      const key = (await t.app.outbox.jobs(MAIL_KIND)).find((j) => !known.has(j.key))!.key;
      assert.equal(await t.app.outbox.drain(), 1);
      clock.advance(DAY);
      assert.equal(await t.app.outbox.drain(), 1);
      const [last] = await t.app.outbox.jobs(MAIL_KIND, key);
      assert.equal(last!.attempt, 2);
      assert.equal(last!.output?.gaveUp, true, 'the last attempt is marked as given up');
      assert.equal(last!.state, 'completed');
    } finally {
      await smtp.up();
    }
    assert.equal(await t.app.outbox.drain(), 0);
    assert.equal(smtp.received.filter((m) => m.rcptTo.includes('never@example.com')).length, 0);
  });
});

describe('outbox across restarts and nodes', () => {
  test('a restart between queueing and sending: the next process sends it', async () => {
    const smtp = await startSmtp();
    const dataDir = tempDir('showsuite-restart-');
    // One database the two "processes" share: a PostgreSQL database, or PGlite files in a data directory.
    const shared = ENGINE === 'postgres' ? await openTestDb() : undefined;
    const open = async () => (shared ? shared.db : await openDb({ dataDir }));
    // Every node shares SECRET_KEY: queued mail is sealed with it.
    const env = { SMTP_URL: smtp.url, DATA_DIR: dataDir, SECRET_KEY: 'b'.repeat(64) };
    try {
      const db1 = await open();
      await migrate(db1);
      const first = await buildApp({ config: testConfig({ ...env, OUTBOX_POLL_MS: '0' }), db: db1, logger: false });
      await first.ready();
      const owner = await userWithTokenOn(first, db1);
      const p = await createProject(first, owner, { body: { enableForms: true, formsSendTo: 'restart@example.com' } });
      assert.equal((await caller(first)('POST', '/public/leads', { project: p._id, ...visitor })).statusCode, 201);
      await first.close();
      if (!shared) await db1.close();
      assert.equal(smtp.received.length, 0, 'the first process stopped before sending');

      const db2 = await open();
      const second = await buildApp({ config: testConfig({ ...env, OUTBOX_POLL_MS: '50' }), db: db2, logger: false });
      await second.ready();
      try {
        await smtp.waitFor(1);
        assert.deepEqual(smtp.received[0]!.rcptTo, ['restart@example.com']);
      } finally {
        await second.close();
        await db2.close();
      }
    } finally {
      await shared?.drop().catch(() => {});
      await smtp.stop();
    }
  });

  test('without SMTP_URL each message is DATA_DIR/mail/<id>.eml, as it would have been sent, and a log line', async () => {
    const lines: string[] = [];
    const stream = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) });
    const testDb = await openTestDb();
    const config = testConfig({ OUTBOX_POLL_MS: '0', LOG_LEVEL: 'info' });
    const app = await buildApp({ config, db: testDb.db, logger: { level: 'info', stream } });
    await app.ready();
    try {
      const owner = await userWithTokenOn(app, testDb.db);
      const p = await createProject(app, owner, { name: 'Harbour View', body: { enableForms: true, formsSendTo: 'files@example.com' } });
      assert.equal((await caller(app)('POST', '/public/leads', { project: p._id, ...visitor })).statusCode, 201);
      await app.outbox.drain();
      const dir = join(config.dataDir, 'mail');
      const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
      assert.equal(files.length, 1);
      assert.match(files[0]!, /^[0-9a-f]{24}\.eml$/);
      const parsed = await simpleParser(readFileSync(join(dir, files[0]!)));
      assert.equal(parsed.subject, 'New enquiry: Harbour View');
      assert.equal((parsed.to as { text: string }).text, 'files@example.com');
      assert.equal(parsed.messageId, `<${files[0]!.slice(0, 24)}@localhost>`);
      assert.match(parsed.text ?? '', /Ana/);
      assert.match(String(parsed.html), /<table/);
      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg?.includes('mail written'));
      assert.ok(logged, 'a log line names the message');
      assert.equal(logged.subject, 'New enquiry: Harbour View');
      assert.deepEqual(logged.to, ['files@example.com']);
    } finally {
      await app.close();
      await testDb.drop();
    }
  });
});

describe('two app processes on one PostgreSQL', () => {
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  test('each message is delivered exactly once, whichever node queued it', async (ctx) => {
    if (ENGINE !== 'postgres') return ctx.skip('needs PostgreSQL (two processes cannot share an embedded database)');
    const smtp = await startSmtp();
    const shared = await openTestDb();
    try {
      const ports = await startTwoNodes(shared.url!, children, {
        PUBLIC_LEADS_PER_MINUTE: '10000',
        SMTP_URL: smtp.url,
        OUTBOX_POLL_MS: '100',
        OUTBOX_CONCURRENCY: '4',
      });
      const owner = await createUser(shared.db);
      const id = newObjectId();
      const settings = JSON.stringify({ enableForms: true, formsSendTo: 'team@example.com' });
      await sql`insert into projects (id, user_id, name, data) values (${id}, ${owner.id}, 'Two nodes', ${settings}::jsonb)`.execute(shared.db.kysely);

      const N = 40;
      const statuses = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          fetch(`http://127.0.0.1:${ports[i % 2]}/public/leads`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ project: id, ...visitor, message: `lead ${i}` }),
          }).then((r) => r.status),
        ),
      );
      assert.deepEqual(statuses, Array(N).fill(201));
      await smtp.waitFor(N, 60_000);
      // Every job finished: nothing queued, running or waiting to retry could still send a second copy.
      // (The last message can arrive a moment before its job is marked done: wait for that, bounded.)
      const openJobs = async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from pgboss.job where name = 'mail' and state in ('created', 'retry', 'active')`.execute(
            shared.db.kysely,
          )
        ).rows[0]!.n;
      for (let i = 0; i < 300 && (await openJobs()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(await openJobs(), 0);
      const failed = await sql<{ n: number }>`select count(*)::int as n from pgboss.job where name = 'mail' and output ? 'error'`.execute(shared.db.kysely);
      assert.equal(failed.rows[0]!.n, 0, 'no attempt failed');
      assert.equal(smtp.received.length, N, 'no message twice');
      const bodies = smtp.received.map((m) => /lead (\d+)/.exec(m.parsed.text ?? '')?.[1]).sort((a, b) => Number(a) - Number(b));
      assert.deepEqual(
        bodies,
        Array.from({ length: N }, (_, i) => String(i)),
      );
      assert.equal(new Set(smtp.received.map((m) => m.parsed.messageId)).size, N);
    } finally {
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
      await shared.drop();
      await smtp.stop();
    }
  });
});

/** A user and bearer header on an app built by hand. */
async function userWithTokenOn(app: Awaited<ReturnType<typeof buildApp>>, db: import('../src/db/db.ts').Db) {
  const { createUser, login } = await import('./helpers.ts');
  const user = await createUser(db);
  const { token } = await login(app, user);
  return { authorization: `Bearer ${token}` };
}

describe('nodes starting together on a new PostgreSQL database', () => {
  test('migrations and the job queue install once while three nodes start at the same moment; every node ends ready', async (ctx) => {
    if (ENGINE !== 'postgres') return ctx.skip('needs PostgreSQL (one process owns an embedded database)');
    // Before the start lock, two nodes both saw "not installed" and one failed half-way; its aborted
    // transaction stayed on a pooled connection and /ready answered 503 from then on. A few rounds catch it.
    for (let round = 0; round < 3; round++) {
      const fresh = await openTestDb({ migrate: false });
      const nodes = await Promise.all([0, 1, 2].map(() => openDb({ databaseUrl: fresh.url!, poolSize: 3 })));
      const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
      try {
        const applied = await Promise.all(nodes.map((db) => migrate(db)));
        // Every migration applied exactly once, by whichever node got there first.
        const all = listMigrations().map((m) => m.version);
        assert.deepEqual(
          applied.flat().sort((a, b) => a - b),
          all,
        );
        for (const db of nodes) apps.push(await buildApp({ config: testConfig({ OUTBOX_POLL_MS: '0' }), db, logger: false }));
        await Promise.all(apps.map((app) => app.ready()));
        for (const app of apps) {
          // Several reads: each must find a usable pooled connection, none left inside an aborted transaction.
          for (let i = 0; i < 6; i++) assert.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
        }
        const queues = await sql<{ n: number }>`select count(*)::int as n from pgboss.queue where name = ${MAIL_KIND}`.execute(fresh.db.kysely);
        assert.equal(queues.rows[0]!.n, 1);
      } finally {
        for (const app of apps) await app.close();
        for (const db of nodes) await db.close();
        await fresh.drop();
      }
    }
  });

  test('a pg-boss script that fails half-way leaves no aborted transaction on the pooled connection', async (ctx) => {
    if (ENGINE !== 'postgres') return ctx.skip('PGlite has no pool');
    const fresh = await openTestDb({ migrate: false });
    const db = await openDb({ databaseUrl: fresh.url!, poolSize: 1 });
    try {
      const boss = bossDb(db.kysely);
      await assert.rejects(boss.executeSql('begin; select 1 / 0; commit;'), /division by zero/);
      // The pool's only connection is the one that failed: it must be usable again.
      assert.deepEqual((await boss.executeSql('select 1 as one')).rows, [{ one: 1 }]);
      assert.equal((await sql<{ s: string }>`select 'ok' as s`.execute(db.kysely)).rows[0]!.s, 'ok');
    } finally {
      await db.close();
      await fresh.drop();
    }
  });
});

describe(`outbox: a stop waits for attempts in flight, then puts the unfinished back (${ENGINE})`, () => {
  test('a success whose batch still waits is marked done; an attempt still running is due again, attempt unchanged', async () => {
    const { Outbox } = await import('../src/outbox/outbox.ts');
    const testDb = await openTestDb();
    const quiet = { warn() {}, error() {}, info() {}, debug() {} } as unknown as ConstructorParameters<typeof Outbox>[2]['log'];
    const outbox = new Outbox(testDb.db, { now: () => Date.now() }, { pollMs: 0, concurrency: 5, log: quiet });
    let release: () => void = () => undefined;
    const started: string[] = [];
    outbox.register<{ hang: boolean }>({
      name: 'stop-test',
      retryDelaysSec: [30],
      async handle(payload, job) {
        started.push(job.key);
        // The hanging attempt never ends by itself (a server that does not answer).
        if (payload.hang) await new Promise<void>((resolve) => (release = resolve));
      },
    });
    try {
      await outbox.start();
      await testDb.db.kysely.transaction().execute(async (trx) => {
        await outbox.enqueue(trx, 'stop-test', { hang: false }, { key: 'quick' });
        await outbox.enqueue(trx, 'stop-test', { hang: true }, { key: 'hangs' });
      });
      const pass = outbox.drain().catch(() => 0);
      while (started.length < 2) await new Promise((r) => setTimeout(r, 10));
      await outbox.stop(200);
      const state = async (key: string) => (await outbox.jobs('stop-test', key)).map((j) => [j.state, j.attempt]);
      assert.deepEqual(await state('quick'), [['completed', 1]]);
      assert.deepEqual(await state('hangs'), [['created', 1]], 'back in the queue, due for any node, its attempt number unchanged');
      release();
      await pass;
    } finally {
      await testDb.drop();
    }
  });
});

describe(`outbox: a hung attempt holds its own slot only (${ENGINE})`, () => {
  test('while one mail hangs, the rest of its kind and every other kind are sent and marked done', async () => {
    const { Outbox } = await import('../src/outbox/outbox.ts');
    const testDb = await openTestDb();
    const quiet = { warn() {}, error() {}, info() {}, debug() {} } as unknown as ConstructorParameters<typeof Outbox>[2]['log'];
    const outbox = new Outbox(testDb.db, { now: () => Date.now() }, { pollMs: 0, concurrency: 2, log: quiet });
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    let hangStarted = false;
    outbox.register<{ hang: boolean }>({
      name: 'lane-mail',
      retryDelaysSec: [30],
      timeoutSec: 600,
      async handle(payload) {
        if (!payload.hang) return;
        hangStarted = true;
        await hanging;
      },
    });
    outbox.register<object>({ name: 'lane-hook', retryDelaysSec: [30], async handle() {} });
    try {
      await outbox.start();
      await testDb.db.kysely.transaction().execute(async (trx) => {
        await outbox.enqueue(trx, 'lane-mail', { hang: true }, { key: 'hangs' });
        for (let i = 0; i < 6; i++) await outbox.enqueue(trx, 'lane-mail', { hang: false }, { key: `quick-${i}` });
        await outbox.enqueue(trx, 'lane-hook', {}, { key: 'hook' });
      });
      const pass = outbox.drain();
      const states = async (kind: string) => (await outbox.jobs(kind)).map((j) => [j.key, j.state] as const);
      // Six quick messages through one free slot, and the other kind, all done while the hung attempt still runs.
      for (;;) {
        const mail = await states('lane-mail');
        const quickDone = mail.filter(([k, st]) => k.startsWith('quick-') && st === 'completed').length;
        const hook = await states('lane-hook');
        if (quickDone === 6 && hook.every(([, st]) => st === 'completed')) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(hangStarted);
      assert.deepEqual(
        (await states('lane-mail')).filter(([k]) => k === 'hangs').map(([, st]) => st),
        ['active'],
        'the hung one is still running',
      );
      release();
      assert.equal(await pass, 8);
      assert.ok((await states('lane-mail')).every(([, st]) => st === 'completed'));
    } finally {
      release();
      await outbox.stop(100);
      await testDb.drop();
    }
  });
});
