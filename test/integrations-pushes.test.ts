import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, caller, createUser, ENGINE, publicProject, sessionToken, slug, TestClock, type Caller, type TestApp } from './helpers.ts';
import { SalesforceServer, SparkServer } from './support/crm-servers.ts';
import { startStripe, stripeEnv, type StripeServer } from './support/stripe-server.ts';

/**
 * Worksheets and deposits reach the CRMs as leads do: a realtor's worksheet is pushed (source `worksheet`) through the
 * outbox once submitted, and a deposit paid or refunded pushes its lead again, carrying it; never created twice.
 */
const SPARK_TOKEN = 'spark-token-pushes-3c1d';
const SF_KEY = 'sf-key-pushes-8a2b';
const SF_SECRET = 'sf-secret-pushes-6e4f';
const DAY = 24 * 3600 * 1000;

// The app's clock a day behind the database's, as in the other CRM tests: a retry the outbox schedules is due at once.
const clock = new TestClock(Date.now() - DAY);
let t: TestApp;
let owner: { auth: { authorization: string } };
let call: Caller;
let spark: SparkServer;
let sf: SalesforceServer;
let stripe: StripeServer;
let opener = 0;

before(async () => {
  spark = await new SparkServer(SPARK_TOKEN).listen();
  sf = await new SalesforceServer(SF_KEY, SF_SECRET).listen();
  stripe = await startStripe();
  t = await buildTestApp({
    clock,
    env: {
      ...stripeEnv(stripe),
      ALLOW_PRIVATE_TARGETS: 'true',
      OUTBOX_POLL_MS: '0',
      HOLD_SWEEP_SEC: '0',
      HOLD_REQUESTS_PER_MINUTE: '10000',
      HOLDS_PER_CLIENT: '1000',
      SALESFORCE_LOGIN_URL: sf.url,
      INTEGRATION_TIMEOUT_MS: '2000',
      PAGES_URL: 'https://homes.example.com',
    },
  });
  // A session signed in real time: the app's clock is a day behind.
  const user = await createUser(t.db);
  owner = { auth: { authorization: `Bearer ${(await sessionToken(t.db, user.id)).token}` } };
  call = caller(t.app, owner.auth);
});
after(async () => {
  await t?.close();
  await spark?.close();
  await sf?.close();
  await stripe?.stop();
});

const CRMS = () => ({ srBaseUrl: spark.baseUrl, srToken: SPARK_TOKEN, sfKey: SF_KEY, sfSecret: SF_SECRET });
const sparkContacts = (email: string) => [...spark.contacts.values()].filter((c) => c.email === email);
const sfLeads = (email: string) => [...sf.leads.values()].filter((l) => l.Email === email);

describe(`CRM pushes of worksheets and deposits (${ENGINE})`, () => {
  test('a submitted worksheet is answered 201 at once and reaches each CRM as a lead with source worksheet, once', async () => {
    const { id, namespace, units } = await publicProject(t.app, owner.auth, { settings: CRMS(), units: { 'A-1': {}, 'B-2': {} } });
    const allocations = [{ name: 'North Realty', password: 'north-secret-1', allocation: 'A-1, B-2' }];
    assert.equal((await call('PATCH', `/projects/${id}`, { allocations })).statusCode, 200);
    const opened = await t.app.inject({
      method: 'POST',
      url: '/public/allocations/open',
      payload: { namespace, password: 'north-secret-1' },
      remoteAddress: `203.0.113.${++opener}`,
    });
    const token = String(opened.json().token);
    const email = `${slug('ws')}@example.com`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/public/worksheets',
      headers: { 'x-allocation-token': token },
      payload: {
        buyer: { firstName: 'Bea', lastName: 'Buyer', email, phone: '+1 555 0102' },
        choices: [units['B-2'], units['A-1']],
        notes: 'Pre-approved',
        realtorEmail: 'agent@north.example.com',
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(sparkContacts(email).length, 0, 'the 201 did not wait for a vendor');
    await t.app.outbox.drain();

    const [contact] = sparkContacts(email);
    assert.equal(contact?.first_name, 'Bea');
    assert.equal(contact?.phone, '+1 555 0102');
    assert.equal(contact?.marketing_source, 'worksheet');
    assert.match(String(contact?.notes), /Worksheet from North Realty \(agent@north\.example\.com\): B-2, A-1/);
    assert.match(String(contact?.notes), /Pre-approved/);
    const [lead] = sfLeads(email);
    assert.equal(lead?.LeadSource, 'worksheet');
    assert.equal(lead?.Status, 'Open - Not Contacted');
    assert.match(String(lead?.Description), new RegExp(`Showsuite lead ${res.json()._id}`));

    await t.app.outbox.drain();
    assert.equal(sparkContacts(email).length, 1, 'not sent twice');
    assert.equal(sfLeads(email).length, 1, 'not sent twice');
    const states = (await call('GET', `/projects/${id}/integrations`)).json() as { name: string; connected: boolean }[];
    assert.ok(states.filter((s) => s.name === 'spark' || s.name === 'salesforce').every((s) => s.connected));
  });

  test('a deposit paid, then refunded, updates its lead at each CRM (never a second record), carrying the deposit', async () => {
    const onboarding = await call('POST', '/users/me/payments/onboarding');
    assert.equal(onboarding.statusCode, 200, onboarding.body);
    const account = (await call('GET', '/users/me')).json().paymentsAccountId as string;
    stripe.enableCharges(account);
    const signed = (event: Record<string, unknown>) => {
      const { payload, headers } = stripe.signed(event);
      return t.app.inject({ method: 'POST', url: '/payments/webhook', payload, headers });
    };
    assert.equal((await signed(stripe.event('account.updated', stripe.accounts.get(account)!, account))).statusCode, 200);

    const p = await publicProject(t.app, owner.auth, {
      settings: { ...CRMS(), onHoldExperienceEnabled: true, globalAmount: 1000, chargeCurrency: 'usd' },
      units: { 'A-1': {} },
    });
    const email = `${slug('dep')}@example.com`;
    const held = await t.app.inject({
      method: 'POST',
      url: `/public/units/${p.units['A-1']}/hold`,
      payload: { firstName: 'Vera', lastName: 'Buyer', email, phone: '+1 555 0100' },
    });
    assert.equal(held.statusCode, 200, held.body);
    await t.app.outbox.drain();
    assert.equal(sparkContacts(email).length, 1, "the hold's lead was pushed");

    const checkout = String(held.json().payment.checkoutUrl);
    const session = stripe.pay(checkout.split('/').pop()!);
    const paid = await signed(stripe.event('checkout.session.completed', session, stripe.sessions.get(session.id)!.account));
    assert.equal(paid.statusCode, 200, paid.body);
    await t.app.outbox.drain();
    assert.equal(sparkContacts(email).length, 1, 'updated, not created again');
    assert.match(String(sparkContacts(email)[0]?.notes), /Deposit: paid, 1000 USD/);
    assert.equal(sfLeads(email).length, 1);
    assert.match(String(sfLeads(email)[0]?.Description), /Deposit: paid, 1000 USD/);

    const refunded = await call('POST', `/deposits/${held.json().payment._id}/refund`);
    assert.equal(refunded.statusCode, 200, refunded.body);
    await t.app.outbox.drain();
    assert.equal(sparkContacts(email).length, 1);
    assert.match(String(sparkContacts(email)[0]?.notes), /Deposit: refunded, 1000 USD/);
    assert.match(String(sfLeads(email)[0]?.Description), /Deposit: refunded, 1000 USD/);
    const sentTo = ((await call('GET', `/leads?project=${p.id}`)).json() as { email?: string; sentTo?: { integration: string }[] }[])[0]?.sentTo;
    assert.deepEqual(sentTo?.map((s) => s.integration).sort(), ['salesforce', 'spark']);
  });
});
