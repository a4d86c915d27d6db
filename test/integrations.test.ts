import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../src/app.ts';
import { buildTestApp, caller, createUser, ENGINE, publicProject, sessionToken, slug, testConfig, TestClock, type Caller, type TestApp } from './helpers.ts';
import { SalesforceServer, SparkServer, ZohoServer } from './support/crm-servers.ts';
import { Receiver } from './support/webhook-receiver.ts';

const DAY = 24 * 3600 * 1000;
/** The sealed credentials (a client id is no secret: `zhClientId` is a readable field). */
const SECRETS = {
  srToken: 'spark-token-7f3a9c',
  sfKey: 'sf-consumer-key-91ab',
  sfSecret: 'sf-consumer-secret-42cd',
  zhClientSecret: 'zoho-client-secret-5e6f',
  zhAccessToken: '1000.refresh-token-aa11',
};
const ZOHO_CLIENT_ID = '1000.ZOHOCLIENTID77';

// As in the webhook tests: the app's clock runs a day behind the database's, so a retry the outbox schedules is already
// due for the queue, and each retry is driven by drain(); its time is checked against the clock.
const clock = new TestClock(Date.now() - DAY);
let t: TestApp;
let call: Caller;
let auth: { authorization: string };
let spark: SparkServer;
let sf: SalesforceServer;
let zoho: ZohoServer;
/** Every answer this file's requests got, to look for credentials in. */
const seen: string[] = [];

before(async () => {
  spark = await new SparkServer(SECRETS.srToken).listen();
  sf = await new SalesforceServer(SECRETS.sfKey, SECRETS.sfSecret).listen();
  zoho = await new ZohoServer(ZOHO_CLIENT_ID, SECRETS.zhClientSecret, SECRETS.zhAccessToken).listen();
  t = await buildTestApp({
    clock,
    env: {
      ALLOW_PRIVATE_TARGETS: 'true',
      OUTBOX_POLL_MS: '0',
      HOLD_SWEEP_SEC: '0',
      SALESFORCE_LOGIN_URL: sf.url,
      ZOHO_ACCOUNTS_URL: zoho.url,
      ZOHO_API_URL: zoho.url,
      INTEGRATION_TIMEOUT_MS: '2000',
    },
  });
  const user = await createUser(t.db);
  const { token } = await sessionToken(t.db, user.id);
  auth = { authorization: `Bearer ${token}` };
  const raw = caller(t.app, auth);
  call = async (...args) => {
    const res = await raw(...args);
    seen.push(res.body);
    return res;
  };
});
after(async () => {
  await t.close();
  for (const s of [spark, sf, zoho]) await s.close();
});

const CRM_FIELDS = {
  srBaseUrl: '',
  srToken: SECRETS.srToken,
  sfKey: SECRETS.sfKey,
  sfSecret: SECRETS.sfSecret,
  sfProjectId: '701000000000001',
  zhClientId: ZOHO_CLIENT_ID,
  zhClientSecret: SECRETS.zhClientSecret,
  zhAccessToken: SECRETS.zhAccessToken,
  zhOrgId: '654321',
};

/** A project taking enquiries, with one unit, and (unless told) all three CRMs set up. */
async function project(fields: Record<string, unknown> = { ...CRM_FIELDS, srBaseUrl: spark.baseUrl }) {
  return publicProject(t.app, auth, { settings: { enableForms: true, waitlistEnabled: true, onHoldExperienceEnabled: true, ...fields }, units: { A1: {} } });
}

async function enquire(namespace: string, extra: Record<string, unknown> = {}) {
  const email = typeof extra.email === 'string' ? extra.email : `${slug('buyer')}@example.com`;
  const res = await call('POST', '/public/leads', {
    namespace,
    firstName: 'Ada',
    lastName: 'Lovelace',
    email,
    phone: '+1 555 0100',
    message: 'Two bedrooms?',
    utm: { source: 'google', medium: 'cpc', campaign: 'spring-launch' },
    ...extra,
  });
  assert.equal(res.statusCode, 201, res.body);
  return { id: String(res.json()._id), email };
}

async function leadOf(projectId: string, id: string) {
  const res = await call('GET', `/leads?project=${projectId}`);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as Record<string, any>[]).find((l) => l._id === id) as Record<string, any>;
}

const states = async (projectId: string) => {
  const res = await call('GET', `/projects/${projectId}/integrations`);
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries((res.json() as Record<string, any>[]).map((s) => [s.name, s]));
};

const sparkContact = (email: string) => [...spark.contacts.values()].filter((c) => c.email === email);
const sfLeads = (email: string) => [...sf.leads.entries()].filter(([, l]) => l.Email === email);
const zohoLeads = (email: string) => [...zoho.leads.entries()].filter(([, l]) => l.Email === email);

describe(`integrations: leads reach the CRMs (${ENGINE})`, () => {
  test('an enquiry reaches Spark, Salesforce and Zoho CRM with its source and UTM, and the lead says where and when', async () => {
    const p = await project();
    const { id, email } = await enquire(p.namespace);
    // Nothing was sent before the 201: the pushes are outbox jobs.
    assert.equal(sparkContact(email).length, 0);
    assert.equal((await leadOf(p.id, id)).sentTo, undefined);
    await t.app.outbox.drain();

    const [contact] = sparkContact(email);
    assert.equal(contact?.first_name, 'Ada');
    assert.equal(contact?.marketing_source, 'presentation');
    assert.equal(contact?.utm_source, 'google');
    assert.equal(contact?.utm_campaign, 'spring-launch');

    const [[sfId, sfLead] = []] = sfLeads(email);
    assert.equal(sfLead?.LastName, 'Lovelace');
    assert.equal(sfLead?.LeadSource, 'presentation');
    assert.match(String(sfLead?.Description), /utm_source=google utm_medium=cpc utm_campaign=spring-launch/);
    assert.ok(sf.members.has(`701000000000001/${sfId}`), 'attached to the campaign sfProjectId names');

    const [[zohoId, zohoLead] = []] = zohoLeads(email);
    assert.equal(zohoLead?.Lead_Source, 'presentation');
    assert.equal(zohoLead?.Lead_Status, 'Not Contacted');
    assert.match(String(zohoLead?.Description), /utm_campaign=spring-launch/);
    assert.equal(zoho.callsTo('/crm/v7/Leads', 'POST').at(-1)?.headers['x-crm-org'], '654321');

    const lead = await leadOf(p.id, id);
    assert.deepEqual(lead.utm, { source: 'google', medium: 'cpc', campaign: 'spring-launch' });
    const sent = Object.fromEntries((lead.sentTo as { integration: string; at: string; externalId: string }[]).map((s) => [s.integration, s]));
    assert.equal(sent.spark?.externalId, String(contact?.id));
    assert.equal(sent.salesforce?.externalId, sfId);
    assert.equal(sent.zoho?.externalId, zohoId);
    assert.equal(sent.zoho?.at, new Date(clock.now()).toISOString());

    const s = await states(p.id);
    for (const name of ['spark', 'salesforce', 'zoho']) {
      assert.equal(s[name].connected, true, name);
      assert.equal(s[name].complete, true, name);
      assert.equal(s[name].lastSuccessAt, new Date(clock.now()).toISOString(), name);
    }
    assert.equal(s.rentcafe.complete, false);
  });

  test('a hold and a waitlist entry are pushed with their own source', async () => {
    const p = await project();
    const email = `${slug('holder')}@example.com`;
    const held = await call('POST', `/public/units/${p.units.A1}/hold`, {
      firstName: 'Grace',
      lastName: 'Hopper',
      email,
      phone: '+1 555 0101',
      utm: { source: 'newsletter' },
    });
    assert.equal(held.statusCode, 200, held.body);
    const waitEmail = `${slug('waiter')}@example.com`;
    const waited = await call('POST', '/public/waitlist', { namespace: p.namespace, firstName: 'Alan', lastName: 'Turing', email: waitEmail });
    assert.equal(waited.statusCode, 201, waited.body);
    await t.app.outbox.drain();
    assert.equal(sparkContact(email)[0]?.marketing_source, 'hold');
    assert.equal(sparkContact(email)[0]?.utm_source, 'newsletter');
    assert.equal(sfLeads(waitEmail)[0]?.[1].LeadSource, 'waitlist');
    assert.equal(zohoLeads(waitEmail)[0]?.[1].Lead_Source, 'waitlist');
  });

  test('a change of status, notes or assignee updates the lead in each CRM, never creates it again', async () => {
    const p = await project();
    const { id, email } = await enquire(p.namespace);
    await t.app.outbox.drain();
    const patched = await call('PATCH', `/leads/${id}`, { status: 'lost', notes: 'Bought elsewhere' });
    assert.equal(patched.statusCode, 200, patched.body);
    await t.app.outbox.drain();
    assert.equal(sparkContact(email).length, 1);
    assert.equal(sparkContact(email)[0]?.status, 'lost');
    assert.match(String(sparkContact(email)[0]?.notes), /Bought elsewhere/);
    assert.equal(sfLeads(email).length, 1);
    assert.equal(sfLeads(email)[0]?.[1].Status, 'Closed - Not Converted');
    assert.equal(zohoLeads(email).length, 1);
    assert.equal(zohoLeads(email)[0]?.[1].Lead_Status, 'Lost Lead');
    // The campaign link was asked again and was already there: still one member.
    assert.equal([...sf.members].filter((m) => m.endsWith(sfLeads(email)[0]?.[0] ?? '?')).length, 1);
  });

  test('a CRM that is down: the lead is 201 at once, the push is retried later, nothing is lost or sent twice', async () => {
    const p = await project();
    spark.down = true;
    let lead: { id: string; email: string };
    try {
      lead = await enquire(p.namespace);
      await t.app.outbox.drain();
      assert.equal(sparkContact(lead.email).length, 0);
      const s = await states(p.id);
      assert.equal(s.spark.connected, false);
      assert.match(s.spark.lastError, /Spark could not be reached/);
      // The others were not held up by it.
      assert.equal(sfLeads(lead.email).length, 1);
      const jobs = await t.app.outbox.jobs('crm-push');
      assert.ok(jobs.some((j) => j.attempt >= 2 && /Spark could not be reached/.test(j.error ?? '')));
    } finally {
      spark.down = false;
    }
    await t.app.outbox.drain();
    assert.equal(sparkContact(lead.email).length, 1);
    assert.equal((await states(p.id)).spark.connected, true);
    await t.app.outbox.drain();
    assert.equal(sparkContact(lead.email).length, 1, 'not sent twice');
    assert.equal(sfLeads(lead.email).length, 1, 'not sent twice');
    const sentTo = (await leadOf(p.id, lead.id)).sentTo as { integration: string }[];
    assert.deepEqual(sentTo.map((s) => s.integration).sort(), ['salesforce', 'spark', 'zoho']);
  });

  test("a vendor's 429 is honoured: the next attempt is not before its Retry-After", async () => {
    const p = await project();
    const failedAt = clock.now();
    const email = `${slug('limited')}@example.com`;
    zoho.limitNext(900, (c) => c.body.includes(email));
    await enquire(p.namespace, { email });
    await t.app.outbox.drain();
    // The queue's clock is a day ahead of this app's, so the retry already ran within drain(); when it was due is kept.
    const retry = (await t.app.outbox.jobs('crm-push')).find((j) => j.attempt === 2 && /Zoho CRM asked to slow down/.test(j.error ?? ''));
    assert.ok(retry, 'a retry was queued');
    assert.ok(retry.startAfter.getTime() >= failedAt + 900_000, `retry at ${retry.startAfter.toISOString()}, not before the Retry-After`);
    assert.ok(retry.startAfter.getTime() < failedAt + 900_000 + 60_000, 'and not much later');
    assert.equal(zohoLeads(email).length, 1);
    // A rate limit says nothing of the connection: the failure is kept, the connection still stands.
    const s = await states(p.id);
    assert.match(s.zoho.lastError, /too many requests/);
    assert.equal(s.zoho.connected, true);
  });

  test('an expired token is fetched again (Salesforce INVALID_SESSION_ID, Zoho INVALID_TOKEN) and the call goes through', async () => {
    const p = await project();
    const { id, email } = await enquire(p.namespace);
    await t.app.outbox.drain();
    const sfTokens = sf.callsTo('/services/oauth2/token').length;
    const zohoTokens = zoho.callsTo('/oauth/v2/token').length;
    sf.expireSessions();
    zoho.expireTokens();
    assert.equal((await call('PATCH', `/leads/${id}`, { status: 'contacted' })).statusCode, 200);
    await t.app.outbox.drain();
    assert.equal(sf.callsTo('/services/oauth2/token').length, sfTokens + 1);
    assert.equal(zoho.callsTo('/oauth/v2/token').length, zohoTokens + 1);
    assert.equal(sfLeads(email)[0]?.[1].Status, 'Working - Contacted');
    assert.equal(zohoLeads(email)[0]?.[1].Lead_Status, 'Contacted');
    // Cached: a further change fetches no new token.
    assert.equal((await call('PATCH', `/leads/${id}`, { status: 'qualified' })).statusCode, 200);
    await t.app.outbox.drain();
    assert.equal(sf.callsTo('/services/oauth2/token').length, sfTokens + 1);
    assert.equal(zohoLeads(email)[0]?.[1].Lead_Status, 'Pre-Qualified');
  });

  test('a project without complete credentials sends nothing', async () => {
    const p = await project({ srBaseUrl: spark.baseUrl, sfKey: SECRETS.sfKey });
    const { email } = await enquire(p.namespace);
    await t.app.outbox.drain();
    assert.equal(sparkContact(email).length, 0);
    assert.equal(sfLeads(email).length, 0);
    const s = await states(p.id);
    assert.equal(s.spark.complete, false);
    assert.equal(s.salesforce.complete, false);
  });
});

describe(`integrations: the connection test (${ENGINE})`, () => {
  test('each CRM answers 200 with its state when the vendor accepts the credentials', async () => {
    const p = await project();
    for (const name of ['spark', 'salesforce', 'zoho']) {
      const res = await call('POST', `/projects/${p.id}/integrations/${name}/test`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().connected, true);
      assert.equal(res.json().lastSuccessAt, new Date(clock.now()).toISOString());
    }
    assert.ok(zoho.callsTo('/crm/v7/org', 'GET').length > 0);
  });

  test("the vendor's refusal is a 502 in words, kept as the last error; never a credential", async () => {
    const p = await project({
      ...CRM_FIELDS,
      srBaseUrl: spark.baseUrl,
      srToken: 'wrong-spark-token',
      sfSecret: 'wrong-sf-secret',
      zhAccessToken: 'wrong-refresh',
    });
    const cases = [
      ['spark', /Spark refused the token \(401\)/],
      ['salesforce', /Salesforce refused the connected app .*invalid_client: invalid client credentials/],
      ['zoho', /Zoho CRM refused the refresh token .*invalid_code/],
    ] as const;
    for (const [name, words] of cases) {
      const res = await call('POST', `/projects/${p.id}/integrations/${name}/test`);
      assert.equal(res.statusCode, 502, res.body);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.equal(res.json().code, 'upstream_failed');
      assert.match(res.json().detail, words);
      assert.equal(res.json().integration.connected, false);
      assert.match(res.json().integration.lastError, words);
    }
    const s = await states(p.id);
    assert.match(s.salesforce.lastError, /invalid_client/);
    for (const body of seen)
      for (const [field, value] of Object.entries({ ...SECRETS, w1: 'wrong-spark-token', w2: 'wrong-sf-secret', w3: 'wrong-refresh' })) {
        assert.ok(!body.includes(value), `${field} appeared in an answer`);
      }
  });

  test('incomplete credentials are 409; an unknown integration 400; a stranger gets 404', async () => {
    const p = await project({});
    const incomplete = await call('POST', `/projects/${p.id}/integrations/salesforce/test`);
    assert.equal(incomplete.statusCode, 409, incomplete.body);
    assert.match(incomplete.json().detail, /sfKey, sfSecret are not set/);
    const bad = await call('POST', `/projects/${p.id}/integrations/hubspot/test`);
    assert.equal(bad.statusCode, 400);
    const stranger = await createUser(t.db);
    const { token } = await sessionToken(t.db, stranger.id);
    const as = caller(t.app, { authorization: `Bearer ${token}` });
    assert.equal((await as('POST', `/projects/${p.id}/integrations/spark/test`)).statusCode, 404);
    assert.equal((await as('GET', `/projects/${p.id}/integrations`)).statusCode, 404);
  });

  test('every integration is listed, with its fields and no credential', async () => {
    const p = await project();
    const res = await call('GET', `/projects/${p.id}/integrations`);
    assert.deepEqual(
      (res.json() as { name: string }[]).map((s) => s.name),
      ['spark', 'salesforce', 'zoho', 'rentcafe', 'cal'],
    );
    for (const value of Object.values(SECRETS)) assert.ok(!res.body.includes(value));
  });
});

describe(`integrations: what leaves the server (${ENGINE})`, () => {
  test("srBaseUrl at a loopback or private address → 400 naming srBaseUrl, as the feed's address is; not an http(s) address → 400", async () => {
    // A node with the rule in force (no ALLOW_PRIVATE_TARGETS) on the same database and keys.
    const strict = await buildApp({
      config: testConfig({ SECRET_KEY: t.config.secretKey.toString('hex'), OUTBOX_POLL_MS: '0', HOLD_SWEEP_SEC: '0' }),
      db: t.db,
      clock,
      logger: false,
    });
    await strict.ready();
    try {
      const strictCall = caller(strict, auth);
      const p = await project({});
      for (const srBaseUrl of [
        spark.baseUrl,
        'http://127.1/v2',
        'https://[::1]/v2',
        'http://169.254.169.254/latest',
        'https://10.0.0.1/v2',
        'http://localhost:9/v2',
      ]) {
        const res = await strictCall('PATCH', `/project/${p.id}`, { srBaseUrl });
        assert.equal(res.statusCode, 400, `${srBaseUrl}: ${res.body}`);
        assert.equal(res.json().errors[0].path, '/srBaseUrl', srBaseUrl);
        assert.match(res.json().errors[0].message, /loopback or private/, srBaseUrl);
      }
      for (const srBaseUrl of ['ftp://api.example.com/v2', 'api.spark.re/v2']) {
        const res = await strictCall('PATCH', `/project/${p.id}`, { srBaseUrl });
        assert.equal(res.statusCode, 400, `${srBaseUrl}: ${res.body}`);
        assert.equal(res.json().errors[0].path, '/srBaseUrl', srBaseUrl);
        assert.match(res.json().errors[0].message, /http\(s\) address/);
      }
      const created = await strictCall('POST', '/projects?name=Spark', { srBaseUrl: 'http://127.0.0.1/v2' });
      assert.equal(created.statusCode, 400, created.body);
      assert.equal(created.json().errors[0].path, '/srBaseUrl');
      // A name that does not resolve here is kept (the connection test reports it); clearing it is always allowed.
      assert.equal((await strictCall('PATCH', `/project/${p.id}`, { srBaseUrl: 'https://crm.example.invalid/v2' })).statusCode, 200);
      assert.equal((await strictCall('PATCH', `/project/${p.id}`, { srBaseUrl: '' })).statusCode, 200);
    } finally {
      await strict.close();
    }
  });

  test('webhooks carry neither the credentials nor the pv*, so*, bs* fields', async () => {
    const p = await project();
    const receiver = await new Receiver().listen();
    try {
      const hook = await call('POST', `/projects/${p.id}/webhooks`, { url: receiver.url, events: ['*'] });
      assert.equal(hook.statusCode, 201, hook.body);
      const custom = {
        pvUsername: 'pv-user-3141',
        pvBuildingName: 'pv-building-2718',
        soProjectId: 'so-proj-1618',
        soDomain: 'so.example.com',
        bsBuildingId: 'bs-bldg-1414',
      };
      const patched = await call('PATCH', `/projects/${p.id}`, { ...custom, bsPassword: 'bs-password-9999', zhAccessToken: 'another-refresh-4242' });
      assert.equal(patched.statusCode, 200, patched.body);
      await enquire(p.namespace);
      await t.app.outbox.drain();
      const bodies = receiver.received.map((r) => r.body).join('\n');
      assert.match(bodies, /project\.updated/);
      assert.match(bodies, /lead\.created/);
      for (const value of [...Object.values(custom), ...Object.values(SECRETS), 'bs-password-9999', 'another-refresh-4242']) {
        assert.ok(!bodies.includes(value), `${value} was sent in a webhook`);
      }
      for (const key of Object.keys(custom)) assert.ok(!bodies.includes(`"${key}"`), `${key} was named in a webhook`);
    } finally {
      await receiver.close();
    }
    for (const body of seen)
      for (const value of Object.values(SECRETS)) assert.ok(!body.includes(value), `a credential appeared in an answer: ${body.slice(0, 300)}`);
  });
});
