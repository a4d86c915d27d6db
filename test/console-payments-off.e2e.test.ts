import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { base, heading, page, pageErrors, skip, useSignedInConsole } from './fixtures-console.ts';
import { shotsAtBothSizes } from './support/browser.ts';

/** A server without STRIPE_SECRET_KEY: the console knows before anyone presses a button, and offers none. */
useSignedInConsole({ shots: 'console-payments-off' });

describe('the console in Chromium: payments off on this server', { skip }, () => {
  test('Profile › Payments says payments are off, with no button, and never asks for an onboarding link', async () => {
    const onboarding: string[] = [];
    page.on('request', (r) => r.url().includes('/payments/onboarding') && onboarding.push(r.url()));
    await page.goto(`${base}/admin/profile`);
    await heading('Profile');
    const section = page.getByRole('region', { name: 'Payments' });
    await section.locator('#payments-state').filter({ hasText: 'Payments are off on this server' }).waitFor();
    assert.equal(await section.getByRole('button').count(), 0);
    // Even when Stripe's onboarding would send someone back here.
    await page.goto(`${base}/admin/profile?payments=done`);
    await section.locator('#payments-state').filter({ hasText: 'Payments are off on this server' }).waitFor();
    assert.equal(await section.getByRole('button').count(), 0);
    await shotsAtBothSizes(page, 'console-payments-off-profile', { at: '.payments' });
    assert.deepEqual(onboarding, []);
    assert.deepEqual(pageErrors, []);
  });
});
