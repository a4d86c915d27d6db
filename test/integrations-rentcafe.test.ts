import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../src/app.ts';
import {
  caller,
  loggingTestApp,
  createUser,
  ENGINE,
  openTestDb,
  publicProject,
  sessionToken,
  slug,
  testConfig,
  TestClock,
  type Caller,
  type TestApp,
  type TestDb,
} from './helpers.ts';
import { RentcafeServer, type Apartment } from './support/rentcafe-server.ts';
import { Receiver } from './support/webhook-receiver.ts';

/**
 * Yardi RENTCafé against a local server speaking its availability call: the pull through the inventory import (dry
 * run, If-Match, sync records, lastSync, the change log), statuses through yiStatusMapping, its refusals and rate
 * limit, the schedule, the private-target rule, and the API token kept out of answers, logs, events and webhooks.
 */
const TOKEN = 'rc-api-token-5b1e9d0c';
const COMPANY = 'c00000012345';
const DAY = 24 * 3600 * 1000;

// The app's clock a day behind the database's, so the outbox's webhook deliveries are due at once (drain()).
const clock = new TestClock(Date.now() - DAY);
let testDb: TestDb;
let t: TestApp;
let call: Caller;
let auth: { authorization: string };
let ownerId: string;
let server: RentcafeServer;
let secretKey: string;
const logs: string[] = [];
const answers: string[] = [];

before(async () => {
  server = await new RentcafeServer(TOKEN, COMPANY).listen();
  testDb = await openTestDb();
  const config = testConfig({
    ALLOW_PRIVATE_TARGETS: 'true',
    RENTCAFE_API_URL: server.url,
    INTEGRATION_TIMEOUT_MS: '2000',
    INVENTORY_SYNC_MINUTES: '15',
    OUTBOX_POLL_MS: '0',
    HOLD_SWEEP_SEC: '0',
  });
  secretKey = config.secretKey.toString('hex');
  t = await loggingTestApp(testDb, config, clock, logs);
  const user = await createUser(t.db);
  ownerId = user.id;
  const { token } = await sessionToken(t.db, user.id);
  auth = { authorization: `Bearer ${token}` };
  const raw = caller(t.app, auth);
  call = async (...args) => {
    const res = await raw(...args);
    answers.push(JSON.stringify(res.headers) + res.body);
    return res;
  };
});
after(async () => {
  await t?.close();
  await testDb?.drop();
  await server?.close();
});

/** A project with units 101, 102, 103 and PH1, RENTCafé set up on a property of its own holding `apartments`. */
async function rentcafeProject(apartments: (Partial<Apartment> & { ApartmentName: string })[], settings: Record<string, unknown> = {}) {
  const property = slug('p');
  server.setApartments(property, apartments);
  const p = await publicProject(t.app, auth, {
    settings: { onHoldExperienceEnabled: true, yiApiToken: TOKEN, yiCompanyCode: COMPANY, yiPropertyCode: property, ...settings },
    units: { '101': { price: 900 }, '102': { price: 900 }, '103': {}, PH1: { price: 5000 } },
  });
  return { ...p, property };
}

const APARTMENTS = [
  { ApartmentName: '101', UnitStatus: 'Vacant Unrented Ready', AvailableDate: '6/1/2025', MinimumRent: '$1,250', MaximumRent: '$1,400' },
  { ApartmentName: '102', UnitStatus: 'Occupied No Notice', MinimumRent: '1300.00', MaximumRent: '1300.00' },
  { ApartmentName: '103', UnitStatus: 'Model' },
  { ApartmentName: '999', UnitStatus: 'Vacant Unrented Ready', AvailableDate: '6/1/2025', MinimumRent: '$2,000' },
];

const sync = (id: string, query = '', headers: Record<string, string> = {}) =>
  call('POST', `/projects/${id}/integrations/rentcafe/sync${query}`, undefined, headers);
const units = async (id: string) => Object.fromEntries(((await call('GET', `/units?project=${id}`)).json() as any[]).map((u) => [u.name, u]));
const syncs = async (id: string) => (await call('GET', `/projects/${id}/inventory/syncs`)).json() as any[];
const state = async (id: string) => ((await call('GET', `/projects/${id}/integrations`)).json() as any[]).find((s) => s.name === 'rentcafe');
const events = async (id: string) => (await call('GET', `/projects/${id}/events?limit=1000`)).json() as any[];
const shape = (u: Record<string, any>) => Object.fromEntries(Object.values(u).map((x: any) => [x.name, [x.availability, x.price]]));

describe(`RENTCafé: availability and prices through the import (${ENGINE})`, () => {
  test('a dry run previews and records nothing; the sync applies exactly that, records it, sets lastSync and logs each change', async () => {
    const p = await rentcafeProject(APARTMENTS);
    const before = shape(await units(p.id));
    const dry = await sync(p.id, '?dryRun=true');
    assert.equal(dry.statusCode, 200, dry.body);
    assert.equal(dry.json().dryRun, true);
    assert.deepEqual(dry.json().summary, { created: 0, updated: 3, unchanged: 0, kept: 0, errors: 0, skipped: 1 });
    assert.deepEqual(shape(await units(p.id)), before, 'a dry run changes nothing');
    assert.deepEqual(await syncs(p.id), [], 'and records nothing');
    assert.deepEqual(await events(p.id).then((e) => e.filter((x) => x.type === 'inventory.imported')), []);

    clock.advance(1000);
    const res = await sync(p.id, '', { 'if-match': String(dry.headers.etag) });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(shape(await units(p.id)), {
      '101': ['available', 1250],
      '102': ['leased', 1300],
      '103': ['unavailable', undefined],
      PH1: ['available', 5000],
    });
    const [record] = await syncs(p.id);
    assert.equal(record.source, 'rentcafe');
    assert.equal(record.status, 'applied');
    assert.equal(record.user, ownerId);
    assert.equal((await call('GET', `/project/${p.id}`)).json().lastSync, new Date(clock.now()).toISOString());
    const log = await events(p.id);
    const imported = log.find((e) => e.type === 'inventory.imported');
    assert.deepEqual(imported.data.changes.source, [null, 'rentcafe']);
    assert.deepEqual(imported.actor, { kind: 'sync', id: ownerId });
    const updated = log.filter((e) => e.type === 'unit.updated' && e.actor.kind === 'sync');
    assert.equal(updated.length, 3);
    assert.ok(updated.some((e) => e.data.changes.availability?.[1] === 'leased'));

    // What RENTCafé was asked: its documented parameters, the credentials in the query only.
    const [asked] = server.callsTo('/rentcafeapi.aspx').slice(-1);
    const q = new URL(asked!.path, server.url).searchParams;
    assert.equal(q.get('requestType'), 'apartmentavailability');
    assert.equal(q.get('companyCode'), COMPANY);
    assert.equal(q.get('propertyCode'), p.property);
    assert.equal(q.get('showallunit'), '1');

    const s = await state(p.id);
    assert.equal(s.connected, true);
    assert.equal(s.complete, true);
    assert.equal(s.testable, true);
    assert.equal(s.lastSuccessAt, new Date(clock.now()).toISOString());

    // The inventory changed since the dry run: its ETag no longer applies.
    const stale = await sync(p.id, '', { 'if-match': String(dry.headers.etag) });
    assert.equal(stale.statusCode, 412, stale.body);
  });

  test('yiStatusMapping names RENTCafé statuses (several, comma-separated) over the defaults; a unit held now keeps its hold', async () => {
    const p = await rentcafeProject(
      [
        { ApartmentName: '101', UnitStatus: 'notice rented', MinimumRent: '1500' },
        { ApartmentName: '102', UnitStatus: 'Pre-leased' },
        { ApartmentName: 'ph1', UnitStatus: 'Vacant Rented Ready' },
      ],
      { yiStatusMapping: { available: 'Notice Rented', reserved: 'Pre-leased, Application Approved' } },
    );
    const held = await call('POST', `/public/units/${p.units.PH1}/hold`, {
      firstName: 'Grace',
      lastName: 'Hopper',
      email: `${slug('h')}@example.com`,
      phone: '+1 555 0101',
    });
    const res = await sync(p.id);
    assert.equal(res.statusCode, 200, res.body);
    const after = shape(await units(p.id));
    assert.deepEqual(after['101'], ['available', 1500]);
    assert.deepEqual(after['102'], ['reserved', 900]);
    assert.equal(held.statusCode, 200, held.body);
    assert.equal(after.PH1?.[0], 'on_hold', 'matched by name in any case, and kept');
    assert.deepEqual(
      res.json().kept.map((k: { name: string }) => k.name),
      ['PH1'],
    );
  });

  test('an unknown status is a row error: nothing applied, a failed sync, the last error in words; skipErrors applies the rest', async () => {
    const p = await rentcafeProject([
      { ApartmentName: '101', UnitStatus: 'Vacant Unrented Ready', MinimumRent: '1100' },
      { ApartmentName: '102', UnitStatus: 'Mystery Status' },
    ]);
    const res = await sync(p.id);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().errors[0].message, /"Mystery Status" is not an availability/);
    assert.deepEqual(shape(await units(p.id))['101'], ['available', 900], 'nothing applied');
    const [failed] = await syncs(p.id);
    assert.equal(failed.source, 'rentcafe');
    assert.equal(failed.status, 'failed');
    const s = await state(p.id);
    assert.equal(s.connected, true, 'RENTCafé answered');
    assert.match(s.lastError, /1 apartment from RENTCafé could not be applied, so nothing changed: row 2 \(Status\) "Mystery Status"/);
    const skip = await sync(p.id, '?skipErrors=true');
    assert.equal(skip.statusCode, 200, skip.body);
    assert.deepEqual(shape(await units(p.id))['101'], ['available', 1100]);
  });

  test('refusals, failures and the rate limit: 502 in words with a reason and a failed sync (none for a dry run); the state keeps it', async () => {
    const p = await rentcafeProject(APARTMENTS);
    assert.equal((await call('POST', `/projects/${p.id}/integrations/rentcafe/test`)).statusCode, 200);

    server.limitNext(120);
    const limited = await sync(p.id);
    assert.equal(limited.statusCode, 502, limited.body);
    assert.equal(limited.json().code, 'upstream_failed');
    assert.equal(limited.json().reason, 'rate_limited');
    assert.equal(limited.headers['retry-after'], '120');
    assert.match(limited.json().detail, /RENTCafé asked to slow down \(too many requests\); retry after 120 s/);
    assert.equal((await state(p.id)).connected, true, 'a rate limit says nothing of the connection');

    server.down = true;
    try {
      const down = await sync(p.id, '?dryRun=true');
      assert.equal(down.statusCode, 502, down.body);
      assert.equal(down.json().reason, 'unreachable');
      assert.match(down.json().detail, /RENTCafé could not be reached/);
    } finally {
      server.down = false;
    }
    const records = await syncs(p.id);
    assert.deepEqual(
      records.map((r) => [r.source, r.status, r.summary.reason]),
      [['rentcafe', 'failed', 'rate_limited']],
      'the dry run recorded nothing',
    );

    assert.equal((await call('PATCH', `/projects/${p.id}`, { yiApiToken: 'rc-wrong-token-0000' })).statusCode, 200);
    const refused = await sync(p.id);
    assert.equal(refused.statusCode, 502, refused.body);
    assert.equal(refused.json().reason, 'refused');
    assert.match(refused.json().detail, /RENTCafé refused the availability call: error 1020, the API token, company code or property code was refused/);
    const tested = await call('POST', `/projects/${p.id}/integrations/rentcafe/test`);
    assert.equal(tested.statusCode, 502, tested.body);
    assert.equal(tested.json().integration.connected, false);
    assert.match(tested.json().integration.lastError, /error 1020/);
    for (const a of answers) assert.ok(!a.includes('rc-wrong-token-0000'), 'the wrong token appeared in an answer');
  });

  test('credentials not all set → 409 naming them; a stranger gets 404 for the sync and the test', async () => {
    const p = await rentcafeProject(APARTMENTS, { yiPropertyCode: '' });
    const res = await sync(p.id);
    assert.equal(res.statusCode, 409, res.body);
    assert.match(res.json().detail, /RENTCafé is not set up: yiPropertyCode is not set/);
    const stranger = await createUser(t.db);
    const { token } = await sessionToken(t.db, stranger.id);
    const as = caller(t.app, { authorization: `Bearer ${token}` });
    assert.equal((await as('POST', `/projects/${p.id}/integrations/rentcafe/sync`)).statusCode, 404);
    assert.equal((await as('POST', `/projects/${p.id}/integrations/rentcafe/test`)).statusCode, 404);
  });

  test('the schedule pulls each RENTCafé project once per interval, as the feed', async () => {
    const p = await rentcafeProject(APARTMENTS);
    const mine = async () => (await t.app.feedScheduler.tick()).pulled.filter((x) => x.project === p.id);
    assert.deepEqual(await mine(), [{ project: p.id, source: 'rentcafe', status: 'applied' }]);
    clock.advance(14 * 60_000);
    assert.deepEqual(await mine(), [], 'nothing before the interval has passed');
    clock.advance(60_000);
    assert.deepEqual(await mine(), [{ project: p.id, source: 'rentcafe', status: 'applied' }]);
    const records = await syncs(p.id);
    assert.deepEqual(
      records.map((r) => [r.source, r.status, r.user]),
      [
        ['rentcafe', 'applied', null],
        ['rentcafe', 'applied', null],
      ],
    );
    assert.deepEqual(shape(await units(p.id))['102'], ['leased', 1300]);
  });

  test('an address that is private is refused when the rule is on: no call leaves', async () => {
    const p = await rentcafeProject(APARTMENTS);
    const strict = await buildApp({
      config: testConfig({ RENTCAFE_API_URL: server.url, SECRET_KEY: secretKey, INVENTORY_SYNC_MINUTES: '0' }),
      db: t.db,
      logger: false,
      clock,
    });
    await strict.ready();
    try {
      const calls = server.calls.length;
      const user = await createUser(t.db);
      const { token } = await sessionToken(t.db, user.id);
      // The owner's token works on any node: the same database and JWT secret.
      const owner = await sessionToken(t.db, ownerId);
      const res = await caller(strict, { authorization: `Bearer ${owner.token}` })('POST', `/projects/${p.id}/integrations/rentcafe/test`);
      assert.equal(res.statusCode, 502, res.body);
      assert.match(res.json().detail, /RENTCafé: .*loopback or private address/);
      assert.equal(server.calls.length, calls);
      assert.equal((await caller(strict, { authorization: `Bearer ${token}` })('POST', `/projects/${p.id}/integrations/rentcafe/test`)).statusCode, 404);
    } finally {
      await strict.close();
    }
  });

  test('the API token is in no answer, log line, change-log event, webhook or sync record', async () => {
    const p = await rentcafeProject(APARTMENTS);
    const receiver = await new Receiver().listen();
    try {
      assert.equal((await call('POST', `/projects/${p.id}/webhooks`, { url: receiver.url, events: ['*'] })).statusCode, 201);
      assert.equal((await sync(p.id)).statusCode, 200);
      assert.equal((await call('POST', `/projects/${p.id}/integrations/rentcafe/test`)).statusCode, 200);
      await t.app.outbox.drain();
      const hooks = receiver.received.map((r) => r.body).join('\n');
      assert.match(hooks, /inventory\.imported/);
      assert.ok(!hooks.includes(TOKEN), 'the token was sent in a webhook');
    } finally {
      await receiver.close();
    }
    assert.ok(!JSON.stringify(await events(p.id)).includes(TOKEN), 'the token is in the change log');
    assert.ok(!JSON.stringify(await syncs(p.id)).includes(TOKEN), 'the token is in a sync record');
    assert.ok(logs.length > 0);
    for (const line of logs) assert.ok(!line.includes(TOKEN), `the token was logged: ${line.slice(0, 200)}`);
    for (const a of answers) assert.ok(!a.includes(TOKEN), `the token was in an answer: ${a.slice(0, 200)}`);
  });
});
