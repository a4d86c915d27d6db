import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { buildTestApp, ENGINE, login, nodeOn, openTestDb, TestClock, userWithToken, type LoggedIn, type TestApp, type TestDb } from './helpers.ts';
import { startSmtp } from './smtp.ts';
import { billingEnv, startStripe, stripeEnv, type StripeServer } from './support/stripe-server.ts';
import type { Subscription } from './support/stripe-billing.ts';

/**
 * Plans (BILLING=stripe) against the local server speaking Stripe's API, with events signed as Stripe signs them, on
 * two nodes of one database; and the same service with billing off, where nothing changes.
 */
describe(`plans: what a hosted Showsuite bills (${ENGINE})`, () => {
  const clock = new TestClock();
  let stripe: StripeServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let testDb: TestDb;
  const pools: { close(): Promise<void> }[] = [];
  const secretKey = randomBytes(32).toString('hex');
  let prices: { starter: string; pro: string };
  let a: TestApp;
  let b: TestApp;
  const bodies: string[] = [];

  const env = () => ({
    ...billingEnv(stripe, prices),
    SECRET_KEY: secretKey,
    SMTP_URL: smtp.url,
    OUTBOX_POLL_MS: '0',
    HOLD_SWEEP_SEC: '0',
    PUBLIC_URL: 'https://console.example.com',
    PAGES_URL: 'https://homes.example.com',
  });

  before(async () => {
    stripe = await startStripe();
    prices = { starter: stripe.billing.price(2900).id, pro: stripe.billing.price(9900).id };
    smtp = await startSmtp();
    testDb = await openTestDb();
    a = await nodeOn(testDb, { clock, env: env() }, pools);
    b = await nodeOn(testDb, { clock, env: env() }, pools);
  });
  after(async () => {
    await a.close();
    await b.close().catch(() => {});
    for (const p of pools) await p.close();
    await testDb.drop();
    await smtp.stop();
    await stripe.stop();
  });

  type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
  const send = async (app: TestApp, method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
    bodies.push(res.body);
    return res;
  };
  const as =
    (who: LoggedIn, app = a) =>
    (method: Method, url: string, payload?: unknown) =>
      send(app, method, url, payload, who.auth);
  const webhook = (app: TestApp, event: Record<string, unknown>) => {
    const { payload, headers } = stripe.signed(event);
    return send(app, 'POST', '/payments/webhook', payload, headers);
  };
  const project = (who: LoggedIn, body: Record<string, unknown> = {}) => as(who)('POST', `/projects?name=P-${randomBytes(3).toString('hex')}`, body);
  const expect402 = (
    res: { statusCode: number; headers: Record<string, unknown>; body: string; json(): any },
    plan: string,
    limit: string,
    allowed: unknown,
  ) => {
    assert.equal(res.statusCode, 402, res.body);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    const p = res.json();
    assert.equal(p.code, 'plan_limit');
    assert.deepEqual({ plan: p.plan, limit: p.limit, allowed: p.allowed }, { plan, limit, allowed });
  };
  /** Runs what both nodes' outboxes have due (mail, the quantity jobs, lapses). */
  async function drain() {
    await a.app.outbox.drain();
    await b.app.outbox.drain();
  }
  async function mails(to: string) {
    await drain();
    return smtp.received.filter((m) => m.rcptTo.includes(to)).map((m) => ({ subject: m.parsed.subject ?? '', text: m.parsed.text ?? '' }));
  }

  /** `who` takes `plan` through Checkout (finished on Stripe's page) and the events reach the nodes. */
  async function subscribe(who: LoggedIn, plan: 'starter' | 'pro'): Promise<Subscription> {
    const res = await as(who)('POST', '/users/me/subscription/checkout', { plan });
    assert.equal(res.statusCode, 200, res.body);
    const { session, subscription } = stripe.billing.completeCheckout(res.json().url.split('/').pop());
    assert.equal((await webhook(a, stripe.event('checkout.session.completed', session))).statusCode, 200);
    assert.equal((await webhook(b, stripe.event('customer.subscription.created', subscription))).statusCode, 200);
    return subscription;
  }
  const me = async (who: LoggedIn) => (await as(who)('GET', '/users/me')).json();

  test('billing off (no BILLING): nothing limits, nothing answers 402, the subscription endpoints say billing is off', async () => {
    const off = await buildTestApp({ testDb, env: { ...stripeEnv(stripe), SECRET_KEY: secretKey } });
    try {
      const who = await userWithToken(off);
      const call = (method: Method, url: string, payload?: unknown) =>
        off.app.inject({ method, url, headers: who.auth, ...(payload !== undefined ? { payload: payload as object } : {}) });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await call('POST', `/projects?name=Free-${i}`, { showBranding: false, plan: { name: 'x' } })).statusCode);
      assert.deepEqual(statuses, [201, 201, 201, 201]);
      const p = (await call('POST', '/projects?name=Kept', { published: false })).json();
      const patched = await call('PATCH', `/project/${p._id}`, {
        published: true,
        showBranding: false,
        subscriptionItem: 'si_by_hand',
        plan: { name: 'mine' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().subscriptionItem, 'si_by_hand', 'stored as before');
      assert.deepEqual(patched.json().plan, { name: 'mine' });
      assert.equal((await call('PATCH', '/users/me', { preferences: { hideBrandingIcon: true, hideLoadingLogo: true } })).statusCode, 200);
      assert.equal((await call('POST', '/groups?name=G', { showBranding: false })).statusCode, 201);
      for (const [method, url, body] of [
        ['GET', '/users/me/subscription', undefined],
        ['POST', '/users/me/subscription/checkout', { plan: 'pro' }],
        ['POST', '/users/me/subscription/portal', undefined],
      ] as const) {
        const res = await call(method, url, body);
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        assert.equal(res.json().code, 'billing_off');
      }
      const user = (await call('GET', '/users/me')).json();
      assert.equal(user.subscription, undefined);
      assert.equal(user.paymentsCustomer, undefined);
      // A subscription event to a server without plans is acknowledged like any other and changes nothing.
      const hook = await off.app.inject({
        method: 'POST',
        url: '/payments/webhook',
        ...stripe.signed(stripe.event('customer.subscription.updated', { id: 'sub_x' })),
      });
      assert.equal(hook.statusCode, 200, hook.body);
      assert.equal(await off.app.billingSchedule.tick().then((x) => x.length), 0);
      assert.equal(stripe.requests.filter((r) => r.path.startsWith('/v1/subscriptions')).length, 0, 'Stripe was not asked');
      const shell = await off.app.inject({ method: 'GET', url: '/admin' });
      assert.doesNotMatch(shell.body, /data-features="[^"]*billing/);
    } finally {
      await off.close();
    }
  });

  test('no plan: a published project → 402 naming plan none; drafts are free; the console offers the Plan section', async () => {
    const who = await userWithToken(a);
    expect402(await project(who), 'none', 'publishedProjects', 0);
    const draft = await project(who, { published: false });
    assert.equal(draft.statusCode, 201, draft.body);
    expect402(await as(who)('PATCH', `/project/${draft.json()._id}`, { published: true }), 'none', 'publishedProjects', 0);
    expect402(await as(who)('PATCH', '/users/me', { preferences: { hideBrandingIcon: true } }), 'none', 'hideBranding', false);
    const summary = await as(who)('GET', '/users/me/subscription');
    assert.equal(summary.statusCode, 200, summary.body);
    assert.deepEqual(summary.json(), {
      plans: [
        { name: 'starter', publishedProjects: 1, hideBranding: false },
        { name: 'pro', publishedProjects: null, hideBranding: true },
      ],
      trialDays: 14,
      planInEffect: null,
      subscription: null,
      publishedProjects: 0,
    });
    assert.match((await send(a, 'GET', '/admin')).body, /data-features="[^"]*billing/);
  });

  test('checkout: the customer made once, subscription mode on the platform account with the trial; events read back, handled once across two nodes', async () => {
    const who = await userWithToken(a);
    const [first, second] = await Promise.all([
      as(who, a)('POST', '/users/me/subscription/checkout', { plan: 'starter' }),
      as(who, b)('POST', '/users/me/subscription/checkout', { plan: 'starter' }),
    ]);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(second.statusCode, 200, second.body);
    const customer = (await me(who)).paymentsCustomer.id as string;
    assert.match(customer, /^cus_/);
    assert.equal([...stripe.billing.customers.values()].filter((c) => (c.metadata as { showsuite_user?: string }).showsuite_user === who.id).length, 1);
    const made = stripe.requests.filter((r) => r.path === '/v1/customers' && (r.params.metadata as Record<string, string>).showsuite_user === who.id);
    assert.equal(made[0]!.idempotencyKey, `showsuite-customer-${who.id}`);
    const created = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions' && r.params.customer === customer).at(-1)!;
    assert.equal(created.account, undefined, 'on the platform account');
    assert.equal(created.params.mode, 'subscription');
    assert.deepEqual(created.params.line_items, [{ price: prices.starter, quantity: '1' }]);
    assert.deepEqual(created.params.subscription_data, { metadata: { showsuite_user: who.id }, trial_period_days: '14' });
    assert.equal(created.params.success_url, 'https://console.example.com/admin/profile?plan=done');

    const { session, subscription } = stripe.billing.completeCheckout(first.json().url.split('/').pop());
    // The event's body says Pro and active: only the subscription read back from Stripe counts.
    const lying = stripe.event('customer.subscription.created', { ...subscription, status: 'active', items: { data: [{ price: { id: prices.pro } }] } });
    const [x, y] = await Promise.all([webhook(a, lying), webhook(b, lying)]);
    assert.deepEqual([x.statusCode, y.statusCode], [200, 200]);
    assert.deepEqual([x.json().duplicate, y.json().duplicate].sort(), [false, true]);
    const completed = stripe.event('checkout.session.completed', session);
    assert.equal((await webhook(b, completed)).json().duplicate, false);
    const later = await nodeOn(testDb, { clock, env: env() }, pools);
    assert.equal((await webhook(later, completed)).json().duplicate, true, 'after a restart, still once');
    await later.close();

    const user = await me(who);
    const periodEnd = new Date(stripe.billing.periodEnd(subscription) * 1000).toISOString();
    assert.deepEqual(user.subscription, { status: 'trialing', plan: 'starter', trialEnd: periodEnd, currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false });
    assert.equal(user.appliedTrial, true);
    assert.equal(user.paymentsCustomer.id, customer);
    const again = await as(who)('POST', '/users/me/subscription/checkout', { plan: 'pro' });
    assert.equal(again.statusCode, 409, 'a running subscription changes in the portal');
    assert.equal((await as(who)('GET', '/users/me/subscription')).json().trialDays, 0, 'the trial is taken once');

    // The user's own billing fields are the platform's: sending another value is refused, the same value is no change.
    for (const [field, value] of [
      ['subscription', { ...user.subscription, plan: 'pro' }],
      ['paymentsCustomer', { id: 'cus_mine' }],
      ['appliedTrial', false],
    ] as const) {
      const res = await as(who)('PATCH', '/users/me', { [field]: value });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().errors[0].path, `/${field}`);
    }
    const whole = await as(who)('PATCH', '/users/me', { ...user, name: 'Same' });
    assert.equal(whole.statusCode, 200, whole.body);
  });

  test('Starter: one published project, the next → 402 naming starter and 1; hidden branding → 402; projects carry plan and item; the quantity follows', async () => {
    const who = await userWithToken(a);
    const sub = await subscribe(who, 'starter');
    const item = sub.items.data[0]!.id;
    const one = await project(who);
    assert.equal(one.statusCode, 201, one.body);
    assert.deepEqual([one.json().plan, one.json().subscriptionItem], [{ name: 'starter' }, item]);
    expect402(await project(who), 'starter', 'publishedProjects', 1);
    const two = (await project(who, { published: false, plan: { name: 'pro' }, subscriptionItem: 'si_mine' })).json();
    assert.equal(two.plan, undefined, 'the service keeps them: a body’s values are ignored');
    const refused = await as(who)('PATCH', `/project/${two._id}`, { published: true });
    expect402(refused, 'starter', 'publishedProjects', 1);
    assert.match(refused.json().detail, /Starter plan publishes up to 1 project/);
    expect402(await as(who)('PATCH', `/project/${one.json()._id}`, { showBranding: false }), 'starter', 'hideBranding', false);
    expect402(await as(who)('PATCH', '/users/me', { preferences: { hideLoadingLogo: true } }), 'starter', 'hideBranding', false);
    expect402(await as(who)('POST', '/groups?name=G', { showBranding: false }), 'starter', 'hideBranding', false);
    await drain();
    const quantity = () => stripe.requests.filter((r) => r.path === `/v1/subscription_items/${item}`).map((r) => r.params.quantity);
    assert.deepEqual(quantity().at(-1), '1');

    // A draft frees the place; the project going to draft loses its billing fields.
    const drafted = await as(who)('PATCH', `/project/${one.json()._id}`, { published: false });
    assert.equal(drafted.json().subscriptionItem, undefined);
    assert.equal(drafted.json().plan, undefined);
    // Two publishes at once for the one place, on two nodes: one wins.
    const third = (await project(who, { published: false })).json();
    const race = await Promise.all([
      as(who, a)('PATCH', `/project/${two._id}`, { published: true }),
      as(who, b)('PATCH', `/project/${third._id}`, { published: true }),
    ]);
    assert.deepEqual(race.map((r) => r.statusCode).sort(), [200, 402]);
    assert.equal((await as(who)('GET', '/users/me/subscription')).json().publishedProjects, 1);
  });

  test('two Checkouts finished in parallel: the newest subscription is kept, the other cancelled at Stripe with its time credited; its late events change nothing', async () => {
    const who = await userWithToken(a);
    const [one, two] = await Promise.all([
      as(who, a)('POST', '/users/me/subscription/checkout', { plan: 'starter' }),
      as(who, b)('POST', '/users/me/subscription/checkout', { plan: 'pro' }),
    ]);
    assert.deepEqual([one.statusCode, two.statusCode], [200, 200]);
    const first = stripe.billing.completeCheckout(one.json().url.split('/').pop());
    const second = stripe.billing.completeCheckout(two.json().url.split('/').pop());
    // The Pro one was made a minute later.
    first.subscription.created -= 60;
    // The events come in any order: the newer first here, then the older.
    for (const done of [second, first]) assert.equal((await webhook(a, stripe.event('customer.subscription.created', done.subscription))).statusCode, 200);
    await drain();
    const cancels = stripe.requests.filter((r) => r.method === 'DELETE' && r.path.startsWith('/v1/subscriptions/'));
    assert.deepEqual(
      cancels.map((r) => [r.path, r.params.prorate]),
      [[`/v1/subscriptions/${first.subscription.id}`, 'true']],
      'the older one cancelled once, what it had left credited',
    );
    assert.equal(stripe.billing.subscriptions.get(first.subscription.id)!.status, 'canceled');
    assert.equal(stripe.billing.subscriptions.get(second.subscription.id)!.status, 'trialing');
    assert.equal((await me(who)).subscription.plan, 'pro', 'the plan is the one kept');
    // Stripe then tells of the cancelled one: the plan stays, nothing else is cancelled.
    assert.equal((await webhook(b, stripe.event('customer.subscription.deleted', first.subscription))).statusCode, 200);
    await drain();
    assert.equal((await me(who)).subscription.plan, 'pro');
    assert.equal(stripe.requests.filter((r) => r.method === 'DELETE' && r.path.startsWith('/v1/subscriptions/')).length, 1);
  });

  test('a published project handed to a new owner takes a place in their plan: no room → 402 and the invitation waits; with room it moves, billed on theirs, both quantities follow', async () => {
    const from = await userWithToken(a);
    const fromSub = await subscribe(from, 'pro');
    const to = await userWithToken(a);
    const toSub = await subscribe(to, 'starter');
    const theirs = await project(to);
    assert.equal(theirs.statusCode, 201, theirs.body);
    const p = (await project(from)).json();
    assert.equal((await project(from)).statusCode, 201, 'the giver keeps a second one');
    const invite = async () => {
      assert.equal((await as(from)('POST', `/projects/${p._id}/invites`, { email: to.username, level: 'owner' })).statusCode, 201);
      const text = (await mails(to.username)).at(-1)?.text ?? '';
      const token = /\/admin\/invites\/([A-Za-z0-9_-]+)/.exec(text)?.[1];
      assert.ok(token, text);
      return token;
    };
    const token = await invite();
    // Starter's one place is taken: the hand-over waits, nothing moved.
    expect402(await as(to)('POST', `/invites/${token}/accept`, {}), 'starter', 'publishedProjects', 1);
    assert.equal((await as(from)('GET', `/projects/${p._id}`)).json().user, from.id);
    // A draft frees the place: the same invitation now goes through.
    assert.equal((await as(to)('PATCH', `/project/${theirs.json()._id}`, { published: false })).statusCode, 200);
    const ok = await as(to)('POST', `/invites/${token}/accept`, {});
    assert.equal(ok.statusCode, 200, ok.body);
    const moved = (await as(to)('GET', `/projects/${p._id}`)).json();
    assert.equal(moved.user, to.id);
    assert.deepEqual([moved.plan, moved.subscriptionItem], [{ name: 'starter' }, toSub.items.data[0]!.id]);
    await drain();
    const quantity = (sub: Subscription) => stripe.requests.filter((r) => r.path === `/v1/subscription_items/${sub.items.data[0]!.id}`).at(-1)?.params.quantity;
    assert.equal(quantity(toSub), '1');
    assert.equal(quantity(fromSub), '1', 'the giver is billed for the one they kept');
  });

  test('Pro through the customer portal: the plan read back, any number published, branding may be hidden, quantity = published', async () => {
    const who = await userWithToken(a);
    const sub = await subscribe(who, 'starter');
    const portal = await as(who)('POST', '/users/me/subscription/portal');
    assert.equal(portal.statusCode, 200, portal.body);
    assert.match(portal.json().url, new RegExp(`^${stripe.url}/p/session/bps_`));
    const asked = stripe.requests.filter((r) => r.path === '/v1/billing_portal/sessions').at(-1)!;
    assert.deepEqual(asked.params, { customer: (await me(who)).paymentsCustomer.id, return_url: 'https://console.example.com/admin/profile' });
    const first = (await project(who)).json();
    assert.deepEqual(first.plan, { name: 'starter' });
    // The customer switches to Pro in the portal; Stripe says so.
    stripe.billing.switchPrice(sub.id, stripe.billing.prices.get(prices.pro)!);
    assert.equal((await webhook(b, stripe.event('customer.subscription.updated', { id: sub.id, object: 'subscription' }))).statusCode, 200);
    assert.equal((await me(who)).subscription.plan, 'pro');
    assert.deepEqual((await as(who)('GET', `/projects/${first._id}`)).json().plan, { name: 'pro' });
    for (let i = 0; i < 3; i++) assert.equal((await project(who, { showBranding: false })).statusCode, 201);
    assert.equal((await as(who)('PATCH', '/users/me', { preferences: { hideBrandingIcon: true } })).statusCode, 200);
    await drain();
    const set = stripe.requests.filter((r) => r.path === `/v1/subscription_items/${sub.items.data[0]!.id}`).at(-1)!;
    assert.equal(set.params.quantity, '4');
    assert.equal(sub.items.data[0]!.quantity, 4);
  });

  test('a failed payment: nothing unpublished before the period ends, the owner warned once; after it ends unpaid, mail first, then drafts (claimed once)', async () => {
    const who = await userWithToken(a);
    const sub = await subscribe(who, 'starter');
    const live = (await project(who)).json();
    const invoice = stripe.billing.failRenewal(sub.id);
    assert.equal((await webhook(a, stripe.event('invoice.payment_failed', { ...invoice, parent: null }))).statusCode, 200);
    // Stripe retries and fails again: a second event, no second warning.
    assert.equal((await webhook(b, stripe.event('invoice.payment_failed', invoice))).statusCode, 200);
    const warned = (await mails(who.username)).filter((m) => m.subject.startsWith('Payment failed'));
    assert.equal(warned.length, 1);
    assert.match(warned[0]!.text, /stays published until/);
    const user = await me(who);
    assert.equal(user.subscription.status, 'past_due');
    assert.equal((await as(who)('GET', `/projects/${live._id}`)).json().published, undefined, 'still published');
    assert.deepEqual(await Promise.all([a.app.billingSchedule.tick(), b.app.billingSchedule.tick()]), [[], []], 'the period has not ended');

    // Stripe gives up: unpaid. Still nothing taken down while the period runs.
    stripe.billing.markUnpaid(sub.id);
    await webhook(a, stripe.event('customer.subscription.updated', sub));
    assert.equal((await me(who)).subscription.status, 'unpaid');
    assert.deepEqual(await Promise.all([a.app.billingSchedule.tick(), b.app.billingSchedule.tick()]), [[], []]);
    assert.equal((await as(who)('GET', `/projects/${live._id}`)).json().published, undefined);

    // The period ends unpaid: both nodes tick, one claims it; the job mails the owner first, then drafts.
    clock.advance(stripe.billing.periodEnd(sub) * 1000 - clock.now() + 60_000);
    // Access tokens do not outlive that: the owner signs in again.
    const owner = { ...who, auth: { authorization: `Bearer ${(await login(a.app, who)).token}` } };
    const claims = await Promise.all([a.app.billingSchedule.tick(), b.app.billingSchedule.tick()]);
    assert.deepEqual(claims.flat(), [who.id]);
    const lapsed = (await mails(who.username)).filter((m) => m.subject.includes('projects moved to draft'));
    assert.equal(lapsed.length, 1);
    assert.ok(lapsed[0]!.text.includes(live.name), lapsed[0]!.text);
    const after = (await as(owner)('GET', `/projects/${live._id}`)).json();
    assert.equal(after.published, false);
    assert.equal(after.subscriptionItem, undefined);
    const log = (await as(owner)('GET', `/projects/${live._id}/events?limit=100`)).json() as {
      type: string;
      actor: { kind: string };
      data: { changes?: unknown };
    }[];
    assert.ok(log.some((e) => e.type === 'project.updated' && e.actor.kind === 'system'));
    assert.deepEqual(await Promise.all([a.app.billingSchedule.tick(), b.app.billingSchedule.tick()]), [[], []], 'once');

    // Paid at last: the plan holds again; the drafts stay drafts until published again.
    stripe.billing.payInvoice(invoice.id);
    await webhook(b, stripe.event('invoice.paid', invoice));
    assert.equal((await me(owner)).subscription.status, 'active');
    assert.equal((await as(owner)('PATCH', `/project/${live._id}`, { published: true })).statusCode, 200);
  });

  test('a subscription event that does not verify → 400; one for a customer not ours is acknowledged; no secret in any answer', async () => {
    const event = stripe.event('customer.subscription.updated', { id: 'sub_nobody', object: 'subscription' });
    const { payload } = stripe.signed(event);
    const unsigned = await send(a, 'POST', '/payments/webhook', payload, { 'content-type': 'application/json' });
    assert.equal(unsigned.statusCode, 400);
    const stranger = stripe.billing.route('POST', '/v1/subscriptions', undefined, {
      customer: (stripe.billing.route('POST', '/v1/customers', undefined, {}) as { id: string }).id,
      items: [{ price: prices.pro }],
    }) as Subscription;
    const res = await webhook(a, stripe.event('customer.subscription.created', stranger));
    assert.equal(res.statusCode, 200, res.body);
    const all = bodies.join('\n');
    for (const secret of [stripe.apiKey, stripe.webhookSecret]) assert.ok(!all.includes(secret), 'a Stripe secret in an answer');
  });
});
