import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { StripeConnector } from '../src/modules/deposits/stripe.ts';
import { StripeBilling } from '../src/modules/billing/stripe-billing.ts';
import { startStripe } from './support/stripe-server.ts';

/**
 * The calls the plans make, checked against the local Stripe server the other tests use and, when
 * STRIPE_TEST_SECRET_KEY (a test-mode key) is set, against Stripe's test mode itself, with the same assertions.
 */
interface Target {
  name: string;
  skip: string | false;
  setUp(): Promise<{ key: string; api: { protocol: 'http' | 'https'; host: string; port: number }; stop(): Promise<void> }>;
}

const testKey = process.env.STRIPE_TEST_SECRET_KEY;
const targets: Target[] = [
  {
    name: 'the local Stripe server (test/support/stripe-server.ts)',
    skip: false,
    async setUp() {
      const local = await startStripe();
      const url = new URL(local.url);
      return { key: local.apiKey, api: { protocol: 'http', host: url.hostname, port: Number(url.port) }, stop: () => local.stop() };
    },
  },
  {
    name: "Stripe's test mode",
    skip: testKey?.startsWith('sk_test_')
      ? false
      : 'STRIPE_TEST_SECRET_KEY is not set to a test-mode key (sk_test_…): the plans’ contract with Stripe itself is not checked',
    async setUp() {
      return { key: testKey!, api: { protocol: 'https', host: 'api.stripe.com', port: 443 }, stop: async () => {} };
    },
  },
];

for (const target of targets) {
  describe(`the Stripe contract of the plans: ${target.name}`, { skip: target.skip }, () => {
    let stripe: Stripe;
    let billing: StripeBilling;
    let stop: () => Promise<void> = async () => {};
    let price: string;
    let customer: string;
    const userId = randomBytes(12).toString('hex');
    before(async () => {
      const t = await target.setUp();
      stop = t.stop;
      stripe = new Stripe(t.key, { ...t.api, maxNetworkRetries: 0 });
      billing = new StripeBilling(new StripeConnector({ secretKey: t.key, webhookSecret: 'whsec_contract', api: t.api, depositWindowMinutes: 15 }));
      price = (await stripe.prices.create({ currency: 'usd', unit_amount: 2900, recurring: { interval: 'month' }, product_data: { name: 'Contract plan' } }))
        .id;
    });
    after(() => stop());

    test('a customer, made once under its Idempotency-Key', async () => {
      const key = `contract-customer-${randomBytes(8).toString('hex')}`;
      const email = `plans-${randomBytes(4).toString('hex')}@example.com`;
      customer = await billing.createCustomer(email, userId, key);
      assert.match(customer, /^cus_/);
      assert.equal(await billing.createCustomer(email, userId, key), customer);
    });

    test('Checkout in subscription mode for a recurring price, with a trial: an open session with its page', async () => {
      const url = await billing.checkout({
        customer,
        price,
        quantity: 1,
        trialDays: 14,
        userId,
        successUrl: 'https://console.example.com/admin/profile?plan=done',
        cancelUrl: 'https://console.example.com/admin/profile?plan=cancelled',
      });
      assert.match(url, /^https?:\/\//);
    });

    test('a subscription read back: trialing, its item, price, quantity and period; the quantity set; its invoice names it', async () => {
      const made = await stripe.subscriptions.create({ customer, items: [{ price, quantity: 1 }], trial_period_days: 14 });
      const read = await billing.retrieveSubscription(made.id);
      assert.equal(read.id, made.id);
      assert.equal(read.customer, customer);
      assert.equal(read.status, 'trialing');
      assert.equal(read.priceId, price);
      assert.match(read.itemId ?? '', /^si_/);
      assert.equal(read.quantity, 1);
      assert.ok(read.trialEnd && read.currentPeriodEnd && read.currentPeriodEnd >= read.trialEnd - 1000, JSON.stringify(read));
      assert.equal(read.cancelAtPeriodEnd, false);
      await billing.setQuantity(read.itemId!, 3);
      assert.equal((await billing.retrieveSubscription(made.id)).quantity, 3);
      const invoice = typeof made.latest_invoice === 'string' ? made.latest_invoice : made.latest_invoice?.id;
      assert.equal(await billing.subscriptionOfInvoice(invoice!), made.id);
      await stripe.subscriptions.cancel(made.id);
    });

    test('the customer portal: a session page for the customer', async (t) => {
      try {
        assert.match(await billing.portal(customer, 'https://console.example.com/admin/profile'), /^https?:\/\//);
      } catch (err) {
        // Stripe's test mode needs the portal saved once in the dashboard; the call is the same.
        if (/configuration/i.test((err as { detail?: string }).detail ?? '')) t.skip('the test account has no customer portal configuration saved');
        else throw err;
      }
    });

    test('errors in words: an unknown subscription is a 502 naming Stripe’s error, never the key', async () => {
      await assert.rejects(
        billing.retrieveSubscription('sub_does_not_exist'),
        (err: { status?: number; detail?: string }) => err.status === 502 && /resource_missing/.test(err.detail ?? '') && !(err.detail ?? '').includes('sk_'),
      );
    });
  });
}
