import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { base, heading, page, pageErrors, skip, t, useSignedInConsole } from './fixtures-console.ts';
import { shotsAtBothSizes } from './support/browser.ts';
import { billingEnv, startStripe } from './support/stripe-server.ts';

/**
 * Profile › Plan in the console on a server that bills (BILLING=stripe), against the local Stripe server: no plan and
 * what that blocks, Choose Starter going to Checkout, the trial's end once Stripe's events came, Manage going to the
 * customer portal.
 */
const stripe = await startStripe();
const prices = { starter: stripe.billing.price(2900).id, pro: stripe.billing.price(9900).id };
useSignedInConsole({ env: billingEnv(stripe, prices), shots: 'console-billing' });
after(() => stripe.stop());

const webhook = async (type: string, object: Record<string, unknown>) => {
  const signed = stripe.signed(stripe.event(type, object));
  const res = await t.app.inject({ method: 'POST', url: '/payments/webhook', payload: signed.payload, headers: signed.headers });
  assert.equal(res.statusCode, 200, res.body);
};
const planShots = (name: string) => shotsAtBothSizes(page, `console-billing-${name}`, { at: '.plan-billing' });

describe('the console in Chromium: plans', { skip }, () => {
  test('Profile › Plan: no plan and what it blocks; Choose Starter goes to Checkout; back, the trial’s end; Manage goes to the portal', async () => {
    await page.goto(`${base}/admin/profile`);
    await heading('Profile');
    const section = page.getByRole('region', { name: 'Plan' });
    await section.locator('#plan-name').filter({ hasText: 'No plan' }).waitFor();
    assert.match(await section.locator('#plan-limits').innerText(), /Without a plan your projects stay drafts: publishing one needs Starter \(up to 1 project/);
    await section.getByRole('button', { name: 'Upgrade to Pro (14-day free trial)' }).waitFor();
    assert.equal(await section.getByRole('button', { name: 'Manage' }).count(), 0);
    await planShots('none');

    await section.getByRole('button', { name: 'Choose Starter (14-day free trial)' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stripe.url}/c/pay/cs_`));
    const { session, subscription } = stripe.billing.completeCheckout(page.url().split('/').pop()!);
    await webhook('checkout.session.completed', session);

    await page.goto(`${base}/admin/profile?plan=done`);
    await section.locator('#plan-name').filter({ hasText: 'Starter, in its trial' }).waitFor();
    const trialEnd = new Date(stripe.billing.periodEnd(subscription) * 1000);
    assert.match(await section.locator('#plan-trial').innerText(), new RegExp(String(trialEnd.getUTCFullYear())));
    assert.match(
      await section.locator('#plan-limits').innerText(),
      /Starter publishes up to 1 project at a time and keeps the Showsuite branding on your pages: publishing another project, or hiding the branding, needs Pro\./,
    );
    assert.equal(await section.getByText('Stripe is confirming your plan').count(), 0, 'confirmed already');
    assert.equal(await section.getByRole('button', { name: 'Choose Starter' }).count(), 0);
    await section.getByRole('button', { name: 'Upgrade to Pro' }).waitFor();
    await planShots('starter');

    await section.getByRole('button', { name: 'Manage' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stripe.url}/p/session/bps_`));
    assert.deepEqual(pageErrors, []);
  });
});
