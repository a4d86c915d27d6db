import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { StripeConnector } from '../src/modules/deposits/stripe.ts';
import { startStripe, type StripeServer } from './support/stripe-server.ts';

/**
 * The calls the deposits make, and the behaviour they rely on, checked against the local Stripe server the other
 * tests use and, when STRIPE_TEST_SECRET_KEY (a test-mode key) is set, against Stripe's test mode itself: the same
 * assertions, so the local server cannot drift from what Stripe does without this file saying so.
 */
interface Target {
  name: string;
  skip: string | false;
  setUp(): Promise<{ key: string; api: { protocol: 'http' | 'https'; host: string; port: number }; stop(): Promise<void> }>;
}

const testKey = process.env.STRIPE_TEST_SECRET_KEY;
let local: StripeServer | undefined;
const targets: Target[] = [
  {
    name: 'the local Stripe server (test/support/stripe-server.ts)',
    skip: false,
    async setUp() {
      local = await startStripe();
      const url = new URL(local.url);
      return { key: local.apiKey, api: { protocol: 'http', host: url.hostname, port: Number(url.port) }, stop: () => local!.stop() };
    },
  },
  {
    name: "Stripe's test mode",
    skip: testKey?.startsWith('sk_test_')
      ? false
      : 'STRIPE_TEST_SECRET_KEY is not set to a test-mode key (sk_test_…): the contract with Stripe itself is not checked',
    async setUp() {
      return { key: testKey!, api: { protocol: 'https', host: 'api.stripe.com', port: 443 }, stop: async () => {} };
    },
  },
];

for (const target of targets) {
  describe(`the Stripe contract: ${target.name}`, { skip: target.skip }, () => {
    let stripe: Stripe;
    let connector: StripeConnector;
    let stop: () => Promise<void> = async () => {};
    let api: { protocol: 'http' | 'https'; host: string; port: number };
    const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
    before(async () => {
      const t = await target.setUp();
      stop = t.stop;
      api = t.api;
      stripe = new Stripe(t.key, { ...t.api, maxNetworkRetries: 0 });
      connector = new StripeConnector({ secretKey: t.key, webhookSecret, api: t.api, depositWindowMinutes: 15 });
    });
    after(() => stop());

    test('a connected Express account: created, read back (not onboarded), an onboarding link', async () => {
      const id = await connector.createAccount(
        `contract-${randomBytes(4).toString('hex')}@example.com`,
        'contract-test',
        `contract-${randomBytes(8).toString('hex')}`,
      );
      assert.match(id, /^acct_/);
      const account = await connector.retrieveAccount(id);
      assert.deepEqual(
        { ...account, missing: undefined, disabledReason: undefined },
        { id, detailsSubmitted: false, chargesEnabled: false, missing: undefined, disabledReason: undefined },
      );
      // What Stripe still needs, in its own requirement names (a bank account for payouts among them).
      assert.ok(account.missing.includes('external_account'), account.missing.join(', '));
      assert.equal(typeof account.disabledReason, 'string');
      const url = await connector.accountLink(
        id,
        'https://console.example.com/admin/profile?payments=done',
        'https://console.example.com/admin/profile?payments=again',
      );
      assert.match(url, /^https?:\/\//);
    });

    test('Idempotency-Key: the same parameters replay the first answer; other parameters → idempotency_error', async () => {
      const key = `contract-${randomBytes(8).toString('hex')}`;
      const email = `idem-${randomBytes(4).toString('hex')}@example.com`;
      const first = await stripe.accounts.create({ type: 'express', email }, { idempotencyKey: key });
      const again = await stripe.accounts.create({ type: 'express', email }, { idempotencyKey: key });
      assert.equal(again.id, first.id);
      await assert.rejects(
        stripe.accounts.create({ type: 'express', email: `other-${email}` }, { idempotencyKey: key }),
        (err: unknown) => err instanceof Stripe.errors.StripeIdempotencyError && err.type === 'StripeIdempotencyError',
      );
    });

    test('a Checkout Session (mode payment, price_data): created open with its amount, read back, expired once', async () => {
      const session = await stripe.checkout.sessions.create({
        mode: 'payment',
        line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 50000, product_data: { name: 'Deposit: A-1, Harbour' } } }],
        success_url: 'https://homes.example.com/p/x/units/1?deposit=1&payment=done',
        cancel_url: 'https://homes.example.com/p/x/units/1?deposit=1&payment=cancelled',
      });
      assert.equal(session.status, 'open');
      assert.equal(session.payment_status, 'unpaid');
      assert.equal(session.amount_total, 50000);
      assert.match(session.url ?? '', /^https?:\/\//);
      const read = await stripe.checkout.sessions.retrieve(session.id);
      assert.equal(read.id, session.id);
      const expired = await stripe.checkout.sessions.expire(session.id);
      assert.equal(expired.status, 'expired');
      await assert.rejects(stripe.checkout.sessions.expire(session.id), (err: unknown) => err instanceof Stripe.errors.StripeInvalidRequestError);
    });

    test('errors in Stripe’s shape: an unknown currency names its parameter; a wrong key is 401', async () => {
      await assert.rejects(
        stripe.checkout.sessions.create({
          mode: 'payment',
          line_items: [{ quantity: 1, price_data: { currency: 'xyz', unit_amount: 50000, product_data: { name: 'x' } } }],
          success_url: 'https://homes.example.com/',
        }),
        (err: unknown) => err instanceof Stripe.errors.StripeInvalidRequestError && err.param === 'line_items[0][price_data][currency]',
      );
      const bad = new StripeConnector({ secretKey: 'sk_test_not_a_real_key_0000', webhookSecret, api, depositWindowMinutes: 15 });
      await assert.rejects(
        bad.retrieveAccount('acct_1'),
        (err: { status?: number; detail?: string }) => err.status === 502 && /authentication/i.test(err.detail ?? ''),
      );
    });

    test('an event signed as Stripe signs it verifies; a changed body or another secret does not', () => {
      const payload = JSON.stringify({ id: 'evt_contract', object: 'event', type: 'account.updated', data: { object: { id: 'acct_1', object: 'account' } } });
      const header = stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
      assert.deepEqual(connector.verifyEvent(Buffer.from(payload), header), {
        id: 'evt_contract',
        type: 'account.updated',
        account: undefined,
        objectId: 'acct_1',
      });
      assert.throws(() => connector.verifyEvent(Buffer.from(payload.replace('acct_1', 'acct_2')), header), /does not verify/);
      if (local) {
        // The local server's signature is the same construction.
        const { payload: p, headers } = local.signed(JSON.parse(payload), { secret: webhookSecret });
        assert.equal(connector.verifyEvent(Buffer.from(p), headers['stripe-signature']).id, 'evt_contract');
      }
    });
  });
}
