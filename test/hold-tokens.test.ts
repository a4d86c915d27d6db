import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { hashToken } from '../src/http/auth.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { newObjectId } from '../src/lib/object-id.ts';
import {
  publicProject,
  buildTestApp,
  createProject,
  createUnit,
  type LoggedIn,
  openTestDb,
  slug,
  type TestApp,
  TestClock,
  useOwnerApp,
  userWithToken,
} from './helpers.ts';
import { startSmtp, type Smtp } from './smtp.ts';

const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

describe('hold tokens: GET, DELETE and extend /public/holds/{holdToken}', () => {
  let t: TestApp;
  let owner: LoggedIn;
  const clock = new TestClock();
  useOwnerApp({ clock, env: { HOLD_SWEEP_SEC: '0', HOLDS_PER_CLIENT: '2', HOLD_REQUESTS_PER_MINUTE: '1000' } }, (f) => ({ t, owner } = f));

  async function holdable(settings: Record<string, unknown> = {}) {
    const p = await publicProject(t.app, owner.auth, {
      name: 'Tower',
      settings: { onHoldExperienceEnabled: true, onHoldMinsDuration: 10, ...settings },
      units: { 'A-101': { price: 500000 } },
    });
    return { p: p.id, u: p.units['A-101']!, namespace: p.namespace };
  }
  const hold = (unit: string, ip = '203.0.113.7', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: `/public/units/${unit}/hold`, payload: visitor, headers, remoteAddress: ip });
  const read = (token: string) => t.app.inject({ method: 'GET', url: `/public/holds/${token}` });
  const release = (token: string) => t.app.inject({ method: 'DELETE', url: `/public/holds/${token}` });
  const extend = (token: string) => t.app.inject({ method: 'POST', url: `/public/holds/${token}/extend` });
  const events = async (p: string) =>
    (await t.app.inject({ method: 'GET', url: `/projects/${p}/events?after=0`, headers: owner.auth })).json() as {
      type: string;
      actor: { kind: string };
      data: { _id: string; changes?: Record<string, [unknown, unknown]> };
    }[];
  const unitIn = async (namespace: string, id: string) => {
    const bundle = (await t.app.inject({ method: 'GET', url: `/public/projects/${namespace}` })).json();
    return bundle.floors.flatMap((f: { units: { _id: string }[] }) => f.units).find((u: { _id: string }) => u._id === id);
  };

  test('the hold answer carries a 256-bit token; GET shows the unit, the project and the expiry; only a hash is stored', async () => {
    const { p, u, namespace } = await holdable();
    const res = await hold(u);
    assert.equal(res.statusCode, 200);
    const { holdToken, ...unit } = res.json();
    assert.match(holdToken, TOKEN);
    assert.equal(unit.availability, 'on_hold');
    const expiresAt = new Date(clock.now() + 10 * 60_000).toISOString();
    assert.equal(unit.onHoldExpiresAt, expiresAt);

    const got = await read(holdToken);
    assert.equal(got.statusCode, 200);
    assert.equal(got.headers['cache-control'], 'no-store');
    const body = got.json();
    assert.deepEqual(body.project, { _id: p, name: 'Tower', namespace });
    assert.equal(body.expiresAt, expiresAt);
    assert.equal(body.extended, false);
    assert.equal(body.unit._id, u);
    assert.equal(body.unit.name, 'A-101');
    assert.equal(body.unit.availability, 'on_hold');
    assert.equal(body.unit.price, 500000);

    // The token is nowhere in the database: the hold keeps its hash; the lead, events and mail queue never see it.
    const stored = await t.db.kysely.selectFrom('holds').select(['token_hash', 'client']).where('unit_id', '=', u).executeTakeFirstOrThrow();
    assert.deepEqual(stored, { token_hash: hashToken(holdToken), client: '203.0.113.7' });
    for (const table of ['holds', 'leads', 'events', 'idempotency_keys']) {
      const found = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} x where x::text like ${'%' + holdToken + '%'}`.execute(
        t.db.kysely,
      );
      assert.equal(found.rows[0]!.n, 0, table);
    }
  });

  test('extend: once, by onHoldMinsDuration from the current expiry (a second time → 409); event unit.hold_extended', async () => {
    const { p, u, namespace } = await holdable();
    const { holdToken, onHoldExpiresAt } = (await hold(u, '203.0.113.8')).json();
    clock.advance(4 * 60_000);
    const first = await extend(holdToken);
    assert.equal(first.statusCode, 200);
    const until = new Date(Date.parse(onHoldExpiresAt) + 10 * 60_000).toISOString();
    assert.equal(first.json().onHoldExpiresAt, until);
    assert.equal(first.json().expiresAt, until);
    assert.equal(first.json().extended, true);
    assert.equal(first.json().unit.onHoldExpiresAt, until);
    assert.match(String(first.headers.etag), /^"\d+"$/);
    const second = await extend(holdToken);
    assert.equal(second.statusCode, 409);
    assert.equal(second.json().code, 'conflict');
    assert.equal((await read(holdToken)).json().extended, true);
    assert.equal((await unitIn(namespace, u)).onHoldExpiresAt, until, 'everyone sees the new expiry');
    const ev = (await events(p)).filter((e) => e.type === 'unit.hold_extended');
    assert.equal(ev.length, 1);
    assert.equal(ev[0]!.actor.kind, 'public');
    assert.deepEqual(ev[0]!.data, { _id: u, changes: { onHoldExpiresAt: [onHoldExpiresAt, until] } });
    // Past the first expiry, within the extended one: still held.
    clock.advance(7 * 60_000);
    assert.equal((await read(holdToken)).statusCode, 200);
  });

  test('release: 204, the unit is available to everyone, event unit.hold_released; the token then answers 410', async () => {
    const { p, u, namespace } = await holdable();
    const { holdToken, onHoldExpiresAt } = (await hold(u, '203.0.113.9')).json();
    const res = await release(holdToken);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await unitIn(namespace, u)).availability, 'available');
    const ev = (await events(p)).filter((e) => e.type === 'unit.hold_released');
    assert.equal(ev.length, 1);
    assert.equal(ev[0]!.actor.kind, 'public');
    assert.deepEqual(ev[0]!.data, { _id: u, changes: { availability: ['on_hold', 'available'], onHoldExpiresAt: [onHoldExpiresAt, null] } });
    for (const again of [read, release, extend]) {
      const gone = await again(holdToken);
      assert.equal(gone.statusCode, 410);
      assert.equal(gone.json().code, 'gone');
    }
    // Someone else holds it now: the old token still names an ended hold.
    const other = await hold(u, '203.0.113.10');
    assert.equal(other.statusCode, 200);
    assert.equal((await read(holdToken)).statusCode, 410);
    assert.notEqual(other.json().holdToken, holdToken);
    assert.equal((await read(other.json().holdToken)).statusCode, 200);
  });

  test('a lapsed hold → 410 before any sweep; unknown token → 404; a malformed one → 400 naming it', async () => {
    const { u } = await holdable({ onHoldMinsDuration: 1 });
    const { holdToken } = (await hold(u, '203.0.113.11')).json();
    clock.advance(60_000);
    for (const call of [read, release, extend]) assert.equal((await call(holdToken)).statusCode, 410);
    const unknown = 'A'.repeat(43);
    for (const call of [read, release, extend]) {
      const res = await call(unknown);
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 'not_found');
    }
    const bad = await read('short');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/holdToken');
  });

  test('the sales team ending a hold (sold, available, or on hold again by hand) ends the token too', async () => {
    for (const availability of ['sold', 'available']) {
      const { u } = await holdable();
      const { holdToken } = (await hold(u, '203.0.113.12')).json();
      const patch = await t.app.inject({ method: 'PATCH', url: `/units/${u}`, headers: owner.auth, payload: { availability } });
      assert.equal(patch.statusCode, 200);
      assert.equal((await read(holdToken)).statusCode, 410, availability);
      await t.app.inject({
        method: 'PATCH',
        url: `/units/${u}`,
        headers: owner.auth,
        payload: { availability: 'on_hold', onHoldExpiresAt: new Date(clock.now() + 3_600_000).toISOString() },
      });
      assert.equal((await read(holdToken)).statusCode, 410, `${availability}, then on hold by hand`);
      assert.equal((await release(holdToken)).statusCode, 410);
    }
  });

  test('a released hold no longer counts against the per-address cap', async () => {
    const ip = '203.0.113.20';
    const units = [(await holdable()).u, (await holdable()).u, (await holdable()).u];
    const first = (await hold(units[0]!, ip)).json().holdToken;
    assert.equal((await hold(units[1]!, ip)).statusCode, 200);
    assert.equal((await hold(units[2]!, ip)).statusCode, 429);
    assert.equal((await release(first)).statusCode, 204);
    assert.equal((await hold(units[2]!, ip)).statusCode, 200);
  });

  test('Idempotency-Key: a retry gets the same token back; the stored answer keeps it sealed', async () => {
    const { u } = await holdable();
    const key = { 'idempotency-key': `tok-${u}` };
    const first = await hold(u, '203.0.113.30', key);
    const retry = await hold(u, '203.0.113.30', key);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.json(), first.json());
    assert.match(first.json().holdToken, TOKEN);
  });

  test('concurrent calls with one token take turns: one extension and one release win, the rest 409 / 410', async () => {
    const { p, u } = await holdable();
    const { holdToken } = (await hold(u, '203.0.113.40')).json();
    const extensions = await Promise.all(Array.from({ length: 12 }, () => extend(holdToken)));
    assert.deepEqual(extensions.map((r) => r.statusCode).sort(), [200, ...Array(11).fill(409)]);
    const releases = await Promise.all(Array.from({ length: 12 }, () => release(holdToken)));
    assert.deepEqual(releases.map((r) => r.statusCode).sort(), [204, ...Array(11).fill(410)]);
    const types = (await events(p)).map((e) => e.type).filter((x) => x.startsWith('unit.hold'));
    assert.deepEqual(types, ['unit.hold_extended', 'unit.hold_released']);
    const row = await t.db.kysely.selectFrom('holds').select(['extended_at', 'released_at']).where('unit_id', '=', u).executeTakeFirstOrThrow();
    assert.ok(row.extended_at && row.released_at);
  });

  test('the token routes are rate-limited per address (HOLD_REQUESTS_PER_MINUTE) → 429', async () => {
    const strict = await buildTestApp({
      clock,
      env: { HOLD_SWEEP_SEC: '0', HOLD_REQUESTS_PER_MINUTE: '3' },
      testDb: { db: t.db, url: undefined, drop: async () => {} },
    });
    try {
      const send = (ip: string) => strict.app.inject({ method: 'GET', url: `/public/holds/${'B'.repeat(43)}`, remoteAddress: ip });
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await send('192.0.2.230')).statusCode);
      assert.deepEqual(codes, [404, 404, 404, 429]);
      assert.equal((await send('192.0.2.231')).statusCode, 404, 'another address has its own budget');
    } finally {
      await strict.close();
    }
  });
});

describe('the holder is mailed the expiry and a link to the page that shows the hold', () => {
  let smtp: Smtp;
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof userWithToken>>;
  before(async () => {
    smtp = await startSmtp();
    t = await buildTestApp({
      env: { SMTP_URL: smtp.url, OUTBOX_POLL_MS: '0', PUBLIC_URL: 'https://console.example.com', PAGES_URL: 'https://homes.example.com' },
    });
    owner = await userWithToken(t);
  });
  after(async () => {
    await t.close();
    await smtp.stop();
  });

  test('to the visitor: unit, project, expiry in UTC, and <PAGES_URL>/p/<namespace>/units/<id>?hold=<token>', async () => {
    const namespace = slug('mail');
    const p = await createProject(t.app, owner.auth, {
      name: 'Tower',
      body: { namespace, onHoldExperienceEnabled: true, onHoldMinsDuration: 15, formsFromName: 'Tower Sales' },
    });
    const unit = await createUnit(t.app, owner.auth, p._id, { name: 'A-101' });
    const res = await t.app.inject({ method: 'POST', url: `/public/units/${unit._id}/hold`, payload: visitor });
    assert.equal(res.statusCode, 200);
    const { holdToken, onHoldExpiresAt } = res.json();
    const before = smtp.received.length;
    const attempts = await t.app.outbox.drain();
    await smtp.waitFor(before + attempts);
    const got = smtp.received.slice(before);
    assert.equal(got.length, 1, 'no formsSendTo or formsMessage: the holder’s notice only');
    const m = got[0]!.parsed;
    assert.deepEqual(got[0]!.rcptTo, ['vera@example.com']);
    assert.equal(m.subject, 'Unit A-101 is held for you: Tower');
    assert.equal(m.from?.value[0]?.name, 'Tower Sales');
    const link = `https://homes.example.com/p/${namespace}/units/${unit._id}?hold=${holdToken}`;
    const until = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(onHoldExpiresAt));
    // No timeZone on the project: UTC, named.
    assert.ok(m.text?.includes(`until ${until} (UTC)`), m.text);
    assert.ok(m.text?.includes(link), m.text);
    assert.ok(String(m.html).includes(`href="${link}"`));
  });
});

test('holds in progress when migration 0027 runs keep counting against their address, with a token nobody knows', async () => {
  const t = await openTestDb({ migrate: false });
  try {
    await migrate(
      t.db,
      listMigrations().filter((m) => m.version < 27),
    );
    const [user, project, unit] = [newObjectId(), newObjectId(), newObjectId()];
    await sql`insert into users (id, username, password_hash) values (${user}, ${`m-${user}@example.com`}, 'x')`.execute(t.db.kysely);
    await sql`insert into projects (id, user_id, name) values (${project}, ${user}, 'Before')`.execute(t.db.kysely);
    const until = new Date(Date.now() + 600_000);
    await sql`insert into units (id, project_id, name, availability, on_hold_expires_at, held_by) values (${unit}, ${project}, 'U1', 'on_hold', ${until}, '198.51.100.9')`.execute(
      t.db.kysely,
    );
    await migrate(t.db);
    const row = await t.db.kysely
      .selectFrom('units as u')
      .innerJoin('holds as h', 'h.id', 'u.held_by')
      .select(['h.client', 'h.unit_id', 'h.project_id', 'h.token_hash'])
      .where('u.id', '=', unit)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...row, token_hash: row.token_hash.length }, { client: '198.51.100.9', unit_id: unit, project_id: project, token_hash: 64 });
  } finally {
    await t.drop();
  }
});
