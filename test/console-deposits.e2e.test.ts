import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { base, browser, heading, json, owner, page, pageErrors, shots, skip, status, t, useSignedInConsole } from './fixtures-console.ts';
import { publicProject, userWithToken } from './helpers.ts';
import { shotsAtBothSizes } from './support/browser.ts';
import { startStripe, stripeEnv } from './support/stripe-server.ts';

/**
 * The owner's side of deposits in the console, against the local Stripe server: Profile's Payments section sends
 * them to Stripe's account link; the project's Deposits tab lists a paid deposit, refunds it after a confirmation
 * naming the amount and the buyer, and links the CSV.
 */
const stripe = await startStripe();
useSignedInConsole({ env: stripeEnv(stripe), shots: 'console-deposits' });
after(() => stripe.stop());

const webhook = async (type: string, object: Record<string, unknown>, account: string) => {
  const signed = stripe.signed(stripe.event(type, object, account));
  const res = await t.app.inject({ method: 'POST', url: '/payments/webhook', payload: signed.payload, headers: signed.headers });
  assert.equal(res.statusCode, 200, res.body);
};
/** Profile's screenshots, scrolled to the Payments section. */
const profileShots = (name: string) => shotsAtBothSizes(page, `console-deposits-${name}`, { at: '.payments' });
const visitor = { firstName: 'Vera', lastName: 'Buyer', email: 'vera@example.com', phone: '+1 555 0100' };

describe('the console in Chromium: deposits', { skip }, () => {
  test('Profile › Payments: Connect Stripe goes to the account link; Stripe returns to Profile, which reads the account and says what is missing, until charges are enabled', async () => {
    await page.goto(`${base}/admin/profile`);
    await heading('Profile');
    const section = page.getByRole('region', { name: 'Payments' });
    await section.getByRole('button', { name: 'Connect Stripe' }).waitFor();
    await profileShots('profile-connect');
    await section.getByRole('button', { name: 'Connect Stripe' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stripe.url}/setup/e/acct_`));
    const account = (await json<{ paymentsAccountId: string }>('GET', '/users/me')).paymentsAccountId;
    assert.match(account, /^acct_/);
    assert.ok(page.url().startsWith(`${stripe.url}/setup/e/${account}/`), page.url());

    // Stripe sends the owner back to Profile (its return_url) before finishing: the section reads the account from
    // Stripe and says what is missing; the address loses `?payments=`.
    await page.goto(`${base}/admin/profile?payments=done`);
    await page.locator('#payments-back').filter({ hasText: 'Back from Stripe: the setup is not finished yet' }).waitFor();
    await page.locator('#payments-state').filter({ hasText: 'your details are not submitted yet' }).waitFor();
    const missing = (await page.locator('#payments-missing').textContent()) ?? '';
    for (const part of ['your business type', 'a bank account for payouts', 'your acceptance of Stripe’s terms']) assert.ok(missing.includes(part), missing);
    assert.ok(!page.url().includes('payments='), page.url());
    await section.getByRole('button', { name: 'Continue setup' }).waitFor();
    assert.equal(await section.getByRole('button', { name: 'Connect Stripe' }).count(), 0);
    await profileShots('profile-return-unfinished');

    // The form submitted, a bank account still due: read from Stripe on return, before any event of Stripe's.
    stripe.submitDetails(account, ['external_account']);
    await page.goto(`${base}/admin/profile?payments=done`);
    await page.locator('#payments-state').filter({ hasText: 'your details are submitted and Stripe is reviewing them or needs more' }).waitFor();
    assert.equal(((await page.locator('#payments-missing').textContent()) ?? '').trim(), 'Stripe still needs: a bank account for payouts.');

    // The link expired (Stripe's refresh_url): a fresh one is a click away.
    await page.goto(`${base}/admin/profile?payments=again`);
    await page.locator('#payments-back').filter({ hasText: 'had expired or was already used' }).waitFor();
    await section.getByRole('button', { name: 'Continue setup' }).waitFor();

    // Stripe enabled charges; no event has come yet: the return page reads it and says so.
    stripe.enableCharges(account);
    await page.goto(`${base}/admin/profile?payments=done`);
    await page.locator('#payments-back').filter({ hasText: 'Back from Stripe: your account is ready.' }).waitFor();
    await page.locator('#payments-state').filter({ hasText: 'Stripe connected, charges enabled' }).waitFor();
    assert.equal(await section.getByRole('button').count(), 0, 'nothing to set up');
    assert.equal((await json<{ paymentsOnboardingDone: boolean }>('GET', '/users/me')).paymentsOnboardingDone, true);
    await profileShots('profile-connected');
    // Reading the account changed the profile's version: the Profile form still saves (it has the new one).
    await page.getByLabel('City').fill('Halifax');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await status('Profile saved.');
    // A webhook after that changes nothing more.
    await webhook('account.updated', stripe.accounts.get(account)!, account);
  });

  test('Deposits tab: a paid deposit listed, refunded after a confirmation naming amount and buyer, the CSV link', async () => {
    const account = (await json<{ paymentsAccountId: string }>('GET', '/users/me')).paymentsAccountId;
    const editor = await userWithToken(t);
    const p = await publicProject(t.app, owner.auth, {
      name: 'Harbour',
      settings: { onHoldExperienceEnabled: true, globalAmount: 500, chargeCurrency: 'usd', editors: [editor.id] },
      units: { 'A-1': {}, 'A-2': {} },
    });
    const paid = await t.app.inject({ method: 'POST', url: `/public/units/${p.units['A-1']}/hold`, payload: visitor });
    assert.equal(paid.statusCode, 200, paid.body);
    const offer = paid.json().payment as { _id: string; checkoutUrl: string };
    await webhook('checkout.session.completed', stripe.pay(offer.checkoutUrl.split('/').pop()!), account);
    const pending = await t.app.inject({
      method: 'POST',
      url: `/public/units/${p.units['A-2']}/hold`,
      payload: { ...visitor, email: 'pat@example.com', firstName: 'Pat' },
    });
    assert.equal(pending.statusCode, 200, pending.body);

    await page.goto(`${base}/admin/projects/${p.id}/settings`);
    await page.getByRole('link', { name: 'Deposits' }).click();
    await page.getByRole('heading', { name: 'Deposits', level: 2 }).waitFor();
    const row = page.locator(`tr[data-deposit="${offer._id}"]`);
    await page.locator(`tr[data-deposit="${offer._id}"][data-status="paid"]`).waitFor();
    const text = (await row.textContent()) ?? '';
    for (const part of ['Paid', '$500.00', 'Vera Buyer', 'vera@example.com', 'A-1', 'Created', 'Paid ']) assert.ok(text.includes(part), `${part} in ${text}`);
    assert.equal(await page.locator('tbody tr').count(), 2);
    assert.equal(await page.locator('tr[data-status="pending"]').getByRole('button', { name: 'Refund' }).count(), 0, 'only a paid deposit is refunded');

    // The status filter, here in the browser.
    await page.getByLabel('Status').selectOption('paid');
    assert.equal(await page.locator('tbody tr').count(), 1);
    await shots('list');

    await row.getByRole('button', { name: 'Refund' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund $500.00?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /\$500\.00 to Vera Buyer \(vera@example\.com\) for A-1/);
    await shots('refund-confirm');
    // Cancel first: nothing refunded.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(stripe.requests.filter((r) => r.path === '/v1/refunds').length, 0);

    await row.getByRole('button', { name: 'Refund' }).click();
    await dialog.getByRole('button', { name: 'Refund $500.00' }).click();
    await status('Refunded $500.00 to Vera Buyer.');
    // The filter still says Paid: the refunded one leaves the list; All shows it refunded.
    await page.getByLabel('Status').selectOption('');
    await page.locator(`tr[data-deposit="${offer._id}"][data-status="refunded"]`).waitFor();
    const refundedText = (await row.textContent()) ?? '';
    for (const part of ['Refunded', '$500.00', 'Vera Buyer', 'A-1']) assert.ok(refundedText.includes(part), `${part} in ${refundedText}`);
    assert.equal(stripe.requests.filter((r) => r.path === '/v1/refunds').length, 1);
    const listed = (await json<{ _id: string; status: string }[]>('GET', `/projects/${p.id}/deposits`)).find((d) => d._id === offer._id);
    assert.equal(listed?.status, 'refunded');
    await shots('refunded');

    const href = await page.locator('#deposits-csv').getAttribute('href');
    assert.equal(href, `/projects/${p.id}/deposits?format=csv`);
    const csv = await page.context().request.get(`${base}${href}`);
    assert.equal(csv.status(), 200);
    assert.match(csv.headers()['content-type'] ?? '', /^text\/csv/);
    const body = await csv.text();
    assert.ok(body.includes('vera@example.com') && body.includes('refunded'), body);

    // An editor (403 from the list) has no Deposits tab.
    const theirs = await browser.newContext();
    try {
      assert.equal((await theirs.request.post(`${base}/users/login`, { data: { username: editor.username, password: editor.password } })).status(), 200);
      const editorPage = await theirs.newPage();
      await editorPage.goto(`${base}/admin/projects/${p.id}/settings`);
      await editorPage.getByRole('link', { name: 'Publish' }).waitFor();
      assert.equal(await editorPage.getByRole('navigation', { name: 'Harbour sections' }).getByRole('link', { name: 'Deposits' }).count(), 0);
      assert.equal((await theirs.request.get(`${base}/projects/${p.id}/deposits`)).status(), 403);
    } finally {
      await theirs.close();
    }
    assert.deepEqual(pageErrors, []);
  });

  test("a unit's sheet and the leads inbox show the deposit (status, amount, paid time) with a link to it in the Deposits tab", async () => {
    const account = (await json<{ paymentsAccountId: string }>('GET', '/users/me')).paymentsAccountId;
    const p = await publicProject(t.app, owner.auth, {
      name: 'Bayside',
      settings: { onHoldExperienceEnabled: true, globalAmount: 750, chargeCurrency: 'usd' },
      units: { 'B-1': {}, 'B-2': {} },
    });
    const held = await t.app.inject({ method: 'POST', url: `/public/units/${p.units['B-1']}/hold`, payload: visitor });
    assert.equal(held.statusCode, 200, held.body);
    const offer = held.json().payment as { _id: string; checkoutUrl: string };
    await webhook('checkout.session.completed', stripe.pay(offer.checkoutUrl.split('/').pop()!), account);
    const paidAt = (await json<{ _id: string; paidAt: string }[]>('GET', `/projects/${p.id}/deposits`))[0]!.paidAt;
    const paidText = new Date(paidAt).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

    await page.goto(`${base}/admin/projects/${p.id}/units`);
    await page.getByRole('button', { name: 'Details of B-1' }).click();
    const sheet = page.getByRole('dialog', { name: 'Details of B-1' });
    const line = sheet.locator(`.deposit-line[data-deposit="${offer._id}"]`);
    await line.waitFor();
    const said = (await line.textContent()) ?? '';
    for (const part of ['Deposit paid', '$750.00', `paid ${paidText}`, 'Vera Buyer', 'See in Deposits']) assert.ok(said.includes(part), `${part} in ${said}`);
    await shotsAtBothSizes(page, 'console-deposits-unit-sheet', { at: '.unit-deposits' });
    // A unit without a deposit says nothing of one.
    await sheet.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Details of B-2' }).click();
    await page.getByRole('dialog', { name: 'Details of B-2' }).getByRole('heading', { name: 'Details of B-2' }).waitFor();
    assert.equal(await page.locator('.unit-deposits').count(), 0);
    await page.getByRole('dialog', { name: 'Details of B-2' }).getByRole('button', { name: 'Close' }).click();

    // The leads inbox: the hold's lead with its deposit.
    await page.goto(`${base}/admin/leads`);
    const leadLine = page.locator(`.leads-table .deposit-line[data-deposit="${offer._id}"]`);
    await leadLine.waitFor();
    const leadSaid = (await leadLine.textContent()) ?? '';
    for (const part of ['Deposit paid', '$750.00', `paid ${paidText}`]) assert.ok(leadSaid.includes(part), `${part} in ${leadSaid}`);
    await shotsAtBothSizes(page, 'console-deposits-leads', { at: `.deposit-line[data-deposit="${offer._id}"]` });
    // Its link opens the Deposits tab with that deposit marked.
    await leadLine.getByRole('link', { name: /See the \$750\.00 deposit in Deposits/ }).click();
    await page.getByRole('heading', { name: 'Deposits', level: 2 }).waitFor();
    await page.locator(`tr.marked[data-deposit="${offer._id}"][aria-current="true"]`).waitFor();
    assert.equal(new URL(page.url()).pathname, `/admin/projects/${p.id}/deposits`);
    await shots('marked');
    assert.deepEqual(pageErrors, []);
  });
});
