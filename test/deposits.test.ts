import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { buildTestApp, ENGINE, nodeOn, openTestDb, publicProject, TestClock, userWithToken, type LoggedIn, type TestApp, type TestDb } from './helpers.ts';
import { startSmtp } from './smtp.ts';
import { startStripe, stripeEnv, type StripeServer } from './support/stripe-server.ts';

/**
 * Deposits through the owner's own Stripe account, against a local server speaking Stripe's API, with events signed
 * as Stripe signs them, on two nodes of one database.
 */
describe(`deposits: the hold that takes money (${ENGINE})`, () => {
  const clock = new TestClock();
  let stripe: StripeServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let testDb: TestDb;
  const pools: { close(): Promise<void> }[] = [];
  const secretKey = randomBytes(32).toString('hex');
  let a: TestApp;
  let b: TestApp;
  let owner: LoggedIn;
  /** Every answer's body, to look for secrets in at the end. */
  const bodies: string[] = [];

  const env = () => ({
    ...stripeEnv(stripe),
    SECRET_KEY: secretKey,
    SMTP_URL: smtp.url,
    OUTBOX_POLL_MS: '0',
    HOLD_SWEEP_SEC: '0',
    HOLD_REQUESTS_PER_MINUTE: '10000',
    HOLDS_PER_CLIENT: '1000',
    PUBLIC_URL: 'https://console.example.com',
    PAGES_URL: 'https://homes.example.com',
  });

  before(async () => {
    stripe = await startStripe();
    smtp = await startSmtp();
    testDb = await openTestDb();
    a = await nodeOn(testDb, { clock, env: env() }, pools);
    b = await nodeOn(testDb, { clock, env: env() }, pools);
    owner = await userWithToken(a);
  });
  after(async () => {
    await a.close();
    await b.close().catch(() => {});
    for (const p of pools) await p.close();
    await testDb.drop();
    await smtp.stop();
    await stripe.stop();
  });

  const send = async (app: TestApp, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
    bodies.push(res.body);
    return res;
  };
  const as =
    (who: LoggedIn, app = a) =>
    (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
      send(app, method, url, payload, { ...who.auth, ...headers });
  const webhook = (app: TestApp, event: Record<string, unknown>, opts?: { secret?: string; t?: number }) => {
    const { payload, headers } = stripe.signed(event, opts);
    return send(app, 'POST', '/payments/webhook', payload, headers);
  };
  const visitor = { firstName: 'Vera', lastName: 'Buyer', email: 'vera@example.com', phone: '+1 555 0100' };
  const hold = (app: TestApp, unit: string, key?: string) => send(app, 'POST', `/public/units/${unit}/hold`, visitor, key ? { 'idempotency-key': key } : {});
  async function mails() {
    const start = smtp.received.length;
    const n = (await a.app.outbox.drain()) + (await b.app.outbox.drain());
    await smtp.waitFor(start + n);
    return smtp.received.slice(start).map((m) => ({ to: m.rcptTo, subject: m.parsed.subject ?? '', text: m.parsed.text ?? '' }));
  }

  /** Connects `who`'s Stripe account and has Stripe enable charges on it, as its owner finishing onboarding would. */
  async function onboard(who: LoggedIn): Promise<string> {
    const res = await as(who)('POST', '/users/me/payments/onboarding');
    assert.equal(res.statusCode, 200, res.body);
    const account = (await as(who)('GET', '/users/me')).json().paymentsAccountId as string;
    stripe.enableCharges(account);
    assert.equal((await webhook(a, stripe.event('account.updated', stripe.accounts.get(account)!, account))).statusCode, 200);
    return account;
  }
  const depositProject = (who: LoggedIn, settings: Record<string, unknown>, units: Record<string, Record<string, unknown>> = { 'A-1': {} }) =>
    publicProject(a.app, who.auth, {
      name: 'Harbour',
      settings: { onHoldExperienceEnabled: true, formsSendTo: 'sales@example.com', ...settings },
      units,
    });
  const sessionOf = (checkoutUrl: string) => checkoutUrl.split('/').pop()!;

  test('onboarding: one connected account per owner, a fresh link each time; account.updated is read back from Stripe', async () => {
    const me = await userWithToken(a);
    const first = await as(me)('POST', '/users/me/payments/onboarding');
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.json().url, new RegExp(`^${stripe.url}/setup/e/acct_`));
    const second = await as(me)('POST', '/users/me/payments/onboarding');
    const user = (await as(me)('GET', '/users/me')).json();
    assert.match(user.paymentsAccountId, /^acct_/);
    assert.equal(user.paymentsOnboardingDone, false);
    assert.ok(second.json().url.includes(user.paymentsAccountId));
    assert.equal([...stripe.accounts.values()].filter((x) => x.metadata.showsuite_user === me.id).length, 1);
    // Stripe sends the owner back to the console's Profile, which reads the account again.
    const link = stripe.requests.filter((r) => r.path === '/v1/account_links').at(-1)!;
    assert.equal(link.params.return_url, 'https://console.example.com/admin/profile?payments=done');
    assert.equal(link.params.refresh_url, 'https://console.example.com/admin/profile?payments=again');
    const created = stripe.requests.find((r) => r.path === '/v1/accounts' && r.params.email === me.username)!;
    assert.equal(created.params.type, 'express');
    assert.ok(created.idempotencyKey);

    // An event claiming charges are enabled is not believed: Stripe, asked, says they are not.
    const account = stripe.accounts.get(user.paymentsAccountId)!;
    const lying = stripe.event('account.updated', { ...account, charges_enabled: true, details_submitted: true }, account.id);
    assert.equal((await webhook(a, lying)).statusCode, 200);
    assert.equal((await as(me)('GET', '/users/me')).json().paymentsOnboardingDone, false);
    stripe.enableCharges(account.id);
    assert.equal((await webhook(b, stripe.event('account.updated', { id: account.id, object: 'account' }, account.id))).statusCode, 200);
    const done = (await as(me)('GET', '/users/me')).json();
    assert.equal(done.paymentsOnboardingDone, true);
    assert.equal(done.paymentsDetailsSubmitted, true);
  });

  test('amounts by chargeType: same → globalAmount; unit → payableAmount, else payProviderDeposit; in chargeCurrency, minor units', async () => {
    const me = await userWithToken(a);
    const account = await onboard(me);
    const same = await depositProject(me, { chargeType: 'same', globalAmount: 500, chargeCurrency: 'cad', chargeDescription: 'Refundable deposit' });
    const bySame = await hold(a, same.units['A-1']!);
    assert.equal(bySame.statusCode, 200, bySame.body);
    const pay = bySame.json().payment;
    assert.deepEqual({ status: pay.status, amount: pay.amount, currency: pay.currency }, { status: 'pending', amount: 50000, currency: 'cad' });
    const created = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
    assert.equal(created.account, account, 'on the owner’s account');
    assert.equal(created.idempotencyKey, `showsuite-deposit-${pay._id}`);
    const item = (created.params.line_items as any[])[0];
    assert.deepEqual(item.price_data.currency, 'cad');
    assert.equal(item.price_data.unit_amount, '50000');
    assert.equal(item.price_data.product_data.description, 'Refundable deposit');
    assert.equal(created.params.success_url, `https://homes.example.com/p/${same.namespace}/units/${same.units['A-1']}?deposit=${pay._id}&payment=done`);
    assert.equal(stripe.sessions.get(sessionOf(pay.checkoutUrl))!.account, account);

    const byUnit = await depositProject(
      me,
      { chargeType: 'unit', payProviderDeposit: 250, chargeCurrency: 'usd' },
      { own: { payableAmount: 1200.5 }, fallback: {} },
    );
    assert.equal((await hold(a, byUnit.units.own!)).json().payment.amount, 120050);
    assert.equal((await hold(a, byUnit.units.fallback!)).json().payment.amount, 25000);

    // Yen has no minor unit: 3000 is ¥3000.
    const yen = await depositProject(me, { globalAmount: 3000, chargeCurrency: 'jpy' });
    assert.deepEqual((await hold(a, yen.units['A-1']!)).json().payment.amount, 3000);

    // No deposit set: a plain hold, as always; the bundle says deposits are on for this owner.
    const plain = await depositProject(me, { chargeType: 'same' });
    const free = await hold(a, plain.units['A-1']!);
    assert.equal(free.statusCode, 200);
    assert.equal(free.json().payment, undefined);
    assert.equal((await send(a, 'GET', `/public/projects/${plain.namespace}`)).json().project.deposits, true);
  });

  test('a currency or amount Stripe would refuse → 400 naming the field (project and unit)', async () => {
    const call = as(owner);
    const p = await depositProject(owner, { chargeCurrency: 'usd' });
    const bad = async (url: string, body: Record<string, unknown>, path: string, message: RegExp) => {
      const res = await call('PATCH', url, body);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      const error = res.json().errors.find((e: { path: string }) => e.path === path);
      assert.ok(error, res.body);
      assert.match(error.message, message);
    };
    await bad(`/project/${p.id}`, { chargeCurrency: 'xyz' }, '/chargeCurrency', /currency Stripe charges in/);
    await bad(`/project/${p.id}`, { chargeCurrency: 'USD' }, '/chargeCurrency', /lower-case/);
    await bad(`/project/${p.id}`, { globalAmount: 0.3 }, '/globalAmount', /below Stripe's minimum charge of 0.5 usd/);
    await bad(`/project/${p.id}`, { globalAmount: 1_000_000 }, '/globalAmount', /above Stripe's maximum/);
    await bad(`/project/${p.id}`, { globalAmount: 10.005 }, '/globalAmount', /decimals/);
    await bad(`/project/${p.id}`, { payProviderDeposit: -5 }, '/payProviderDeposit', /negative/);
    await bad(`/project/${p.id}`, { chargeCurrency: 'jpy', globalAmount: 99.5 }, '/globalAmount', /decimals/);
    await bad(`/units/${p.units['A-1']}`, { payableAmount: 0.2 }, '/payableAmount', /minimum/);
    assert.equal((await call('PATCH', `/project/${p.id}`, { globalAmount: 0 })).statusCode, 200, 'zero: no deposit');
    assert.equal((await call('PATCH', `/project/${p.id}`, { chargeCurrency: 'gbp', globalAmount: 0.3 })).statusCode, 200);
    assert.equal((await call('PATCH', `/units/${p.units['A-1']}`, { payableAmount: 750 })).statusCode, 200);
  });

  test('pending → paid by a signed event (the session read back): unit reserved, lead marked, receipt and notice mailed; the same event to both nodes counts once', async () => {
    await onboard(owner);
    const p = await depositProject(owner, { globalAmount: 1000, chargeCurrency: 'usd' });
    const unit = p.units['A-1']!;
    const res = await hold(a, unit, 'hold-key-1');
    assert.equal(res.statusCode, 200, res.body);
    const held = res.json();
    assert.equal(held.availability, 'on_hold');
    // The payment window (DEPOSIT_WINDOW_MINUTES, 15), not onHoldMinsDuration.
    assert.equal(Date.parse(held.onHoldExpiresAt) - clock.now(), 15 * 60_000);
    const id = held.payment._id as string;
    assert.equal((await send(a, 'GET', `/public/deposits/${id}`)).json().status, 'pending');
    // A retry of the hold replays the first answer: the same deposit and Checkout page, no second session.
    const again = await hold(a, unit, 'hold-key-1');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().payment.checkoutUrl, held.payment.checkoutUrl);
    await mails();

    const session = stripe.pay(sessionOf(held.payment.checkoutUrl));
    const account = stripe.sessions.get(session.id)!.account;
    // The event's body says a different amount: only Stripe's session, read back, counts.
    const event = stripe.event('checkout.session.completed', { ...session, amount_total: 1 }, account);
    const [first, second] = await Promise.all([webhook(a, event), webhook(b, event)]);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(second.statusCode, 200, second.body);
    assert.deepEqual([first.json().duplicate, second.json().duplicate].sort(), [false, true]);
    // A later redelivery, after a restart, is still the same event.
    const later = await nodeOn(testDb, { clock, env: env() }, pools);
    assert.equal((await webhook(later, event)).json().duplicate, true);
    await later.close();

    assert.deepEqual((await send(a, 'GET', `/public/deposits/${id}`)).json(), {
      _id: id,
      status: 'paid',
      amount: 100000,
      currency: 'usd',
      unit,
      project: p.id,
      expiresAt: held.payment.expiresAt,
    });
    assert.equal((await as(owner)('GET', `/units/${unit}`)).json().availability, 'reserved');
    const leads = (await as(owner)('GET', `/leads?project=${p.id}`)).json();
    const paidAt = leads[0].deposit.paidAt as string;
    assert.deepEqual(leads[0].deposit, { _id: id, status: 'paid', amount: 100000, currency: 'usd', paidAt });
    assert.equal(paidAt, new Date(clock.now()).toISOString());
    // The console's unit sheet asks for one unit's deposits.
    const ofUnit = await as(owner)('GET', `/projects/${p.id}/deposits?filters[unit]=${unit}`);
    assert.equal(ofUnit.statusCode, 200, ofUnit.body);
    assert.deepEqual(
      (ofUnit.json() as { _id: string; paidAt: string }[]).map((d) => [d._id, d.paidAt]),
      [[id, paidAt]],
    );
    const otherUnit = (await depositProject(owner, { globalAmount: 10 })).units['A-1']!;
    assert.deepEqual((await as(owner)('GET', `/projects/${p.id}/deposits?filters[unit]=${otherUnit}`)).json(), []);
    assert.equal((await as(owner)('GET', `/projects/${p.id}/deposits?filters[unit]=nope`)).statusCode, 400);
    const sent = await mails();
    assert.deepEqual(sent.map((m) => m.to).sort(), [['sales@example.com'], [visitor.email]]);
    const receipt = sent.find((m) => m.to.includes(visitor.email))!;
    assert.equal(receipt.subject, 'Deposit received: A-1, Harbour');
    assert.ok(receipt.text.includes('$1,000.00'), receipt.text);
    assert.ok(receipt.text.includes('now reserved for you'), receipt.text);
    const notice = sent.find((m) => m.to.includes('sales@example.com'))!;
    assert.ok(notice.text.includes('Vera Buyer (vera@example.com) paid a deposit of $1,000.00 for A-1'), notice.text);
    assert.ok(notice.text.includes(`See it in the console: https://console.example.com/admin/projects/${p.id}/deposits?deposit=${id}`), notice.text);
    const log = (await as(owner)('GET', `/projects/${p.id}/events?limit=1000`)).json() as { type: string; data: { _id: string; changes?: unknown } }[];
    const mine = log.filter((e) => e.data._id === id).map((e) => e.type);
    assert.deepEqual(mine, ['deposit.pending', 'deposit.paid']);
    assert.ok(log.some((e) => e.type === 'unit.updated' && e.data._id === unit));
    // The hold's token no longer holds anything: the unit is reserved.
    assert.equal((await send(a, 'GET', `/public/holds/${held.holdToken}`)).statusCode, 410);
  });

  test('the window lapsing: the sweep expires the session at Stripe and the unit is released; Stripe’s own expired event later changes nothing', async () => {
    await onboard(owner);
    const p = await depositProject(owner, { globalAmount: 300 });
    const held = (await hold(a, p.units['A-1']!)).json();
    clock.advance(15 * 60_000 + 1);
    await Promise.all([a.app.sweepHolds(), b.app.sweepHolds()]);
    const session = stripe.sessions.get(sessionOf(held.payment.checkoutUrl))!;
    assert.equal(session.session.status, 'expired');
    assert.equal(stripe.requests.filter((r) => r.path === `/v1/checkout/sessions/${session.session.id}/expire`).length, 1, 'expired once');
    assert.equal((await send(a, 'GET', `/public/deposits/${held.payment._id}`)).json().status, 'expired');
    assert.equal((await as(owner)('GET', `/units/${p.units['A-1']}`)).json().availability, 'available');
    const expired = stripe.event('checkout.session.expired', session.session, session.account);
    assert.equal((await webhook(b, expired)).statusCode, 200);
    const log = (await as(owner)('GET', `/projects/${p.id}/events?limit=1000`)).json() as { type: string }[];
    assert.equal(log.filter((e) => e.type === 'deposit.expired').length, 1);
  });

  test('reconciliation: a payment whose event never came is found by the sweep', async () => {
    await onboard(owner);
    const p = await depositProject(owner, { globalAmount: 400 });
    const held = (await hold(a, p.units['A-1']!)).json();
    stripe.pay(sessionOf(held.payment.checkoutUrl));
    clock.advance(60_000);
    await a.app.sweepHolds();
    assert.equal((await send(a, 'GET', `/public/deposits/${held.payment._id}`)).json().status, 'paid');
    assert.equal((await as(owner)('GET', `/units/${p.units['A-1']}`)).json().availability, 'reserved');
  });

  test('refund (owner, administrators; editors 403, strangers 404), the list with X-Total-Count and as CSV', async () => {
    await onboard(owner);
    const editor = await userWithToken(a);
    const stranger = await userWithToken(a);
    const p = await depositProject(owner, { globalAmount: 250, editors: [editor.id] });
    const held = (await hold(a, p.units['A-1']!)).json();
    const id = held.payment._id as string;
    assert.equal((await as(owner)('POST', `/deposits/${id}/refund`)).statusCode, 409, 'pending: nothing to refund');
    const session = stripe.pay(sessionOf(held.payment.checkoutUrl));
    await webhook(a, stripe.event('checkout.session.completed', session, stripe.sessions.get(session.id)!.account));
    assert.equal((await as(stranger)('POST', `/deposits/${id}/refund`)).statusCode, 404);
    assert.equal((await as(editor)('POST', `/deposits/${id}/refund`)).statusCode, 403);
    assert.equal((await as(editor)('GET', `/projects/${p.id}/deposits`)).statusCode, 403);
    const refunded = await as(owner)('POST', `/deposits/${id}/refund`);
    assert.equal(refunded.statusCode, 200, refunded.body);
    assert.equal(refunded.json().status, 'refunded');
    const refund = stripe.requests.filter((r) => r.path === '/v1/refunds').at(-1)!;
    assert.equal(refund.params.payment_intent, session.payment_intent);
    assert.equal(refund.account, stripe.sessions.get(session.id)!.account);
    assert.equal((await as(owner)('POST', `/deposits/${id}/refund`)).statusCode, 409);

    const list = await as(owner)('GET', `/projects/${p.id}/deposits`);
    assert.equal(list.headers['x-total-count'], '1');
    const [d] = list.json();
    assert.equal(d._id, id);
    assert.equal(d.status, 'refunded');
    assert.equal(d.amount, 25000);
    assert.equal(d.buyerEmail, visitor.email);
    assert.equal(d.unitName, 'A-1');
    assert.ok(d.paidAt && d.refundedAt);
    const csv = await as(owner)('GET', `/projects/${p.id}/deposits`, undefined, { accept: 'text/csv' });
    assert.match(csv.headers['content-type'] as string, /^text\/csv/);
    const [header, row] = csv.body.split('\r\n');
    assert.ok(header!.startsWith('_id,project,unit,unitName,lead,status,amount,currency,buyerName,buyerEmail'), header);
    assert.ok(row!.includes(',refunded,25000,usd,Vera Buyer,vera@example.com,'), row);
    const log = (await as(owner)('GET', `/projects/${p.id}/events?limit=1000`)).json() as { type: string; actor: { kind: string; id?: string } }[];
    assert.deepEqual(log.find((e) => e.type === 'deposit.refunded')!.actor, { kind: 'user', id: owner.id });
    // The lead keeps when it was paid.
    const lead = (await as(owner)('GET', `/leads?project=${p.id}`)).json()[0];
    assert.deepEqual(lead.deposit, { _id: id, status: 'refunded', amount: 25000, currency: 'usd', paidAt: d.paidAt });
  });

  test('the receipt and the notice in the project’s language (French, Spanish), the amount written as that language writes it', async () => {
    await onboard(owner);
    const cases = [
      {
        lang: 'fr',
        subject: 'Acompte reçu : A-1, Harbour',
        receipt: /Nous avons bien reçu votre acompte de 1\s000,00\s\$US pour le lot A-1 de Harbour\. Le logement vous est désormais réservé/,
        team: /Vera Buyer \(vera@example\.com\) a payé un acompte de 1\s000,00\s\$US pour le lot A-1 de Harbour\. Le lot est désormais réservé\./,
        teamSubject: 'Acompte payé : A-1, Harbour',
        action: 'Le voir dans la console',
      },
      {
        lang: 'es',
        subject: 'Depósito recibido: A-1, Harbour',
        receipt: /Hemos recibido su depósito de 1000,00\sUS\$ por la unidad A-1 de Harbour\. La vivienda queda reservada para usted/,
        team: /Vera Buyer \(vera@example\.com\) pagó un depósito de 1000,00\sUS\$ por la unidad A-1 de Harbour\./,
        teamSubject: 'Depósito pagado: A-1, Harbour',
        action: 'Verlo en la consola',
      },
    ];
    for (const c of cases) {
      const p = await depositProject(owner, { globalAmount: 1000, chargeCurrency: 'usd', projectLang: c.lang });
      const held = (await hold(a, p.units['A-1']!)).json();
      await mails();
      const session = stripe.pay(sessionOf(held.payment.checkoutUrl));
      assert.equal((await webhook(a, stripe.event('checkout.session.completed', session, stripe.sessions.get(session.id)!.account))).statusCode, 200);
      const sent = await mails();
      const receipt = sent.find((m) => m.to.includes(visitor.email))!;
      assert.equal(receipt.subject, c.subject);
      assert.match(receipt.text, c.receipt);
      assert.match(receipt.text, new RegExp(`^${c.lang === 'fr' ? 'Bonjour Vera,' : 'Hola Vera:'}`));
      const notice = sent.find((m) => m.to.includes('sales@example.com'))!;
      assert.equal(notice.subject, c.teamSubject);
      assert.match(notice.text, c.team);
      assert.ok(notice.text.includes(`${c.action}: https://console.example.com/admin/projects/${p.id}/deposits?deposit=${held.payment._id}`), notice.text);
    }
  });

  test('GET /users/me/payments: an account still missing something read back from Stripe at each call, a complete one every ten minutes; kept, with what Stripe still needs', async () => {
    const me = await userWithToken(a);
    const state = async () => {
      const res = await as(me)('GET', '/users/me/payments');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      return res.json();
    };
    assert.deepEqual(await state(), { available: true, connected: false, detailsSubmitted: false, chargesEnabled: false, missing: [], disabledReason: null });
    assert.equal((await as(me)('POST', '/users/me/payments/onboarding')).statusCode, 200);
    const account = (await as(me)('GET', '/users/me')).json().paymentsAccountId as string;
    assert.deepEqual(await state(), {
      available: true,
      connected: true,
      detailsSubmitted: false,
      chargesEnabled: false,
      missing: ['business_type', 'external_account', 'tos_acceptance.date', 'tos_acceptance.ip'],
      disabledReason: 'requirements.past_due',
    });
    // Back from Stripe's form before its event arrives: the call reads it, and keeps it on the profile.
    stripe.submitDetails(account, ['external_account']);
    const submitted = await state();
    assert.deepEqual([submitted.detailsSubmitted, submitted.chargesEnabled, submitted.missing], [true, false, ['external_account']]);
    assert.equal((await as(me)('GET', '/users/me')).json().paymentsDetailsSubmitted, true);
    const p = await depositProject(me, { globalAmount: 100 });
    assert.equal((await send(a, 'GET', `/public/projects/${p.namespace}`)).json().project.deposits, false);
    stripe.enableCharges(account);
    const done = await state();
    assert.deepEqual([done.chargesEnabled, done.missing, done.disabledReason], [true, [], null]);
    assert.equal((await as(me)('GET', '/users/me')).json().paymentsOnboardingDone, true);
    // A complete account is not asked of Stripe at every Profile view: once per ten minutes per node.
    const reads = () => stripe.requests.filter((r) => r.method === 'GET' && r.path === `/v1/accounts/${account}`).length;
    const before = reads();
    assert.deepEqual(await state(), done);
    assert.deepEqual(await state(), done);
    assert.equal(reads(), before, 'a complete account read again within ten minutes');
    clock.advance(10 * 60_000);
    assert.deepEqual(await state(), done);
    assert.equal(reads(), before + 1, 'read back once ten minutes have passed');
    // The owner's pages offer deposits from now on, with no event from Stripe.
    assert.equal((await send(b, 'GET', `/public/projects/${p.namespace}`)).json().project.deposits, true);
    assert.equal((await send(a, 'GET', '/users/me/payments')).statusCode, 401);
  });

  test('a signature that does not verify → 400, nothing changes', async () => {
    await onboard(owner);
    const p = await depositProject(owner, { globalAmount: 100 });
    const held = (await hold(a, p.units['A-1']!)).json();
    const session = stripe.pay(sessionOf(held.payment.checkoutUrl));
    const event = stripe.event('checkout.session.completed', session, stripe.sessions.get(session.id)!.account);
    const wrongSecret = await webhook(a, event, { secret: 'whsec_not_ours' });
    assert.equal(wrongSecret.statusCode, 400);
    assert.equal(wrongSecret.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal((await webhook(a, event, { t: Math.floor(Date.now() / 1000) - 3600 })).statusCode, 400, 'too old');
    const { payload, headers } = stripe.signed(event);
    const tampered = await send(a, 'POST', '/payments/webhook', payload.replace('"paid"', '"paid" '), headers);
    assert.equal(tampered.statusCode, 400);
    const unsigned = await send(a, 'POST', '/payments/webhook', payload, { 'content-type': 'application/json' });
    assert.equal(unsigned.statusCode, 400);
    assert.equal((await send(a, 'GET', `/public/deposits/${held.payment._id}`)).json().status, 'pending');
  });

  test('payments off (no STRIPE_SECRET_KEY): onboarding 503 payments_off, the bundle says no deposits, holds are free', async () => {
    const off = await buildTestApp({ testDb, env: { SECRET_KEY: secretKey } });
    try {
      const me = await userWithToken(off);
      const res = await off.app.inject({ method: 'POST', url: '/users/me/payments/onboarding', headers: me.auth });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().code, 'payments_off');
      // The console knows before anyone presses a button.
      const state = await off.app.inject({ method: 'GET', url: '/users/me/payments', headers: me.auth });
      assert.equal(state.statusCode, 200, state.body);
      assert.deepEqual(state.json(), { available: false, connected: false, detailsSubmitted: false, chargesEnabled: false, missing: [], disabledReason: null });
      // Even an owner onboarded earlier: this server takes no deposit.
      const p = await publicProject(off.app, owner.auth, { settings: { onHoldExperienceEnabled: true, globalAmount: 100 }, units: { X: {} } });
      const bundle = await off.app.inject({ method: 'GET', url: `/public/projects/${p.namespace}` });
      assert.equal(bundle.json().project.deposits, false);
      const held = await off.app.inject({ method: 'POST', url: `/public/units/${p.units.X}/hold`, payload: visitor });
      assert.equal(held.statusCode, 200, held.body);
      assert.equal(held.json().payment, undefined);
      const hook = await off.app.inject({ method: 'POST', url: '/payments/webhook', ...stripe.signed(stripe.event('account.updated', { id: 'acct_x' })) });
      assert.equal(hook.statusCode, 503);
    } finally {
      await off.close();
    }
  });

  test('Stripe refusing (a wrong platform key) → 502 in words, with no key in it; no secret in any answer', async () => {
    const wrong = await buildTestApp({ testDb, env: { ...env(), STRIPE_SECRET_KEY: 'sk_test_wrongwrongwrong' } });
    try {
      const me = await userWithToken(wrong);
      const res = await wrong.app.inject({ method: 'POST', url: '/users/me/payments/onboarding', headers: me.auth });
      bodies.push(res.body);
      assert.equal(res.statusCode, 502, res.body);
      assert.equal(res.json().code, 'upstream_failed');
      assert.ok(!res.body.includes('sk_test_wrongwrongwrong'));
    } finally {
      await wrong.close();
    }
    const all = bodies.join('\n');
    for (const secret of [stripe.apiKey, stripe.webhookSecret, stripe.apiKey.slice(8)]) assert.ok(!all.includes(secret), 'a Stripe secret in an answer');
    assert.ok(bodies.length > 40);
  });
});
