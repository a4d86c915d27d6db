import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createProject, ENGINE, userWithToken } from './helpers.ts';
import { api, base, heading, json, owner, page, pageErrors, shots, skip, status, t, useSignedInConsole } from './fixtures-console.ts';

/**
 * The owner's fields and the integrations in the console: the owner edits their profile (the company that signs their projects' mail), sees the
 * invitations waiting for them and turns experimental features on; the settings screen offers no control the page
 * ignores, and says of each integration whether it is connected.
 */
useSignedInConsole({ shots: 'console-owner', fullPage: true });

describe(`the owner's profile and truthful settings in the console (${ENGINE})`, { skip }, () => {
  test('Profile: names, company, phone and address saved; an invitation waiting is listed; the experimental switch shows outline suggestions', async () => {
    // Someone else's project invites the owner.
    const other = await userWithToken(t);
    const theirs = await createProject(t.app, other.auth, { name: 'Cedar Court' });
    const invited = await t.app.inject({
      method: 'POST',
      url: `/projects/${theirs._id}/invites`,
      headers: other.auth,
      payload: { email: owner.username, level: 'editor' },
    });
    assert.equal(invited.statusCode, 201, invited.body);

    await page.goto(`${base}/admin/profile`);
    await heading('Profile');
    const waiting = page.getByRole('list', { name: 'Invitations waiting for you' }).getByRole('listitem');
    await waiting.filter({ hasText: 'Cedar Court' }).getByText('as editor').waitFor();

    const form = page.getByRole('form', { name: 'Your profile' });
    await form.getByLabel('First name').fill('Mara');
    await form.getByLabel('Last name').fill('Osei');
    await form.getByLabel('Company').fill('Osei & Partners');
    await form.getByLabel('Phone').fill('+1 604 555 0142');
    await form.getByLabel('Address', { exact: true }).fill('88 Pier Road');
    await form.getByLabel('City').fill('Vancouver');
    await form.getByLabel('Region or state').fill('BC');
    await form.getByLabel('Postal code').fill('V6B 1A1');
    await form.getByLabel('Country').fill('Canada');
    await form.getByText('Signs the e-mails sent for the projects you own').waitFor();
    await form.getByLabel(/Show experimental features/).check();
    await shots('profile');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await status('Profile saved.');
    const me = await json('GET', '/users/me');
    assert.deepEqual(
      [me.name, me.lastName, me.companyName, me.phone, me.address1, me.city, me.region, me.zip, me.country, me.experimentalFeatures],
      ['Mara', 'Osei', 'Osei & Partners', '+1 604 555 0142', '88 Pier Road', 'Vancouver', 'BC', 'V6B 1A1', 'Canada', true],
    );
    // The proposed address of the next project follows the company.
    await page.getByText('/p/osei-partners').first().waitFor();

    // Outline suggestions are experimental: on for this user now, off again after the switch.
    const p = await createProject(t.app, owner.auth, { name: 'Pier Lofts' });
    const floor = await json<{ _id: string }>('POST', `/floors?project=${p._id}&name=Level%201`, { floorplanUrl: '/p/assets/demo-hero.webp' });
    const suggest = page.getByRole('button', { name: /Suggest outlines from the plan/ });
    await page.goto(`${base}/admin/projects/${p._id}/floors/${floor._id}`);
    await heading('Plan of Level 1');
    await suggest.waitFor();
    assert.match((await suggest.textContent()) ?? '', /experimental/);
    await page.goto(`${base}/admin/profile`);
    await page
      .getByRole('form', { name: 'Your profile' })
      .getByLabel(/Show experimental features/)
      .uncheck();
    await page.getByRole('button', { name: 'Save profile' }).click();
    await status('Profile saved.');
    await page.goto(`${base}/admin/projects/${p._id}/floors/${floor._id}`);
    await heading('Plan of Level 1');
    await page.getByText('Choose a unit to draw its outline.').waitFor();
    assert.equal(await suggest.count(), 0, 'no outline suggestions with experimental features off');
    assert.deepEqual(pageErrors, []);
  });

  test('Settings: no control the page ignores; each integration labelled connected, stored not connected, or custom', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Harbour Nine', query: { namespace: `harbour-nine-${ENGINE}` } });
    await page.goto(`${base}/admin/projects/${p._id}/settings`);
    await heading('Settings');
    for (const gone of ['Floor overview', 'Featured']) {
      assert.equal(await page.getByLabel(gone, { exact: true }).count(), 0, `no “${gone}” control`);
    }
    // What the page shows has its control, saying where it shows.
    for (const shown of ['Website', 'Property type', 'Prices']) assert.equal(await page.getByLabel(shown, { exact: true }).count(), 1, `a “${shown}” control`);
    assert.match((await page.getByLabel('Property type').locator('xpath=..').textContent()) ?? '', /hero/);
    assert.match((await page.getByLabel('Project type').locator('xpath=..').textContent()) ?? '', /not shown on the page/);
    // The preview is the page itself, in a frame, drawing unsaved changes as the page does: the prices' (accent)
    // colour and the filters' layout, before anything is saved.
    const frame = (await page.locator('.page-preview iframe').elementHandle())!;
    const preview = (await frame.contentFrame())!;
    await preview.waitForSelector('#app[aria-busy="false"]');
    assert.match(preview.url(), /\/p\/[^?]+\?preview=/);
    await page.getByLabel('Prices', { exact: true }).fill('#0b6e4f');
    await preview.waitForFunction(() => document.documentElement.style.getPropertyValue('--accent') === '#0b6e4f');
    await page.getByLabel('Filters', { exact: true }).selectOption('panel');
    await preview.waitForFunction(() => document.documentElement.dataset.filter === 'panel');
    await page.screenshot({ path: `test-results/console-settings-preview-${ENGINE}.png` });
    await page.getByRole('button', { name: 'Discard' }).click();
    await preview.waitForFunction(() => document.documentElement.dataset.filter === undefined);
    assert.notEqual(await preview.evaluate(() => document.documentElement.style.getPropertyValue('--accent')), '#0b6e4f');

    const states: Record<string, string> = {
      'Inventory feed (FTP, FTPS, SFTP)': 'connected',
      'Yardi RENTCafé': 'availability and prices',
      'Cal.com': 'bookings',
      Salesforce: 'CRM',
      'Zoho CRM': 'CRM',
      Spark: 'CRM',
      'Building Stack': 'kept for a custom integration, sent nowhere',
      PV: 'kept for a custom integration, sent nowhere',
      'Sales office': 'kept for a custom integration, sent nowhere',
    };
    for (const [name, state] of Object.entries(states)) {
      const section = page.getByRole('region', { name, exact: true });
      assert.equal(((await section.locator('h3 .badge').textContent()) ?? '').trim(), state, name);
    }
    // Each CRM says whether it is set up and connected, and offers a test once its credentials are complete.
    const salesforce = page.getByRole('region', { name: 'Salesforce', exact: true });
    await salesforce.getByText('not set up').waitFor();
    assert.equal(await salesforce.getByRole('button', { name: 'Test connection' }).isDisabled(), true);
    const rentcafe = page.getByRole('region', { name: 'Yardi RENTCafé', exact: true });
    await rentcafe.getByText('not set up').waitFor();
    assert.equal(await rentcafe.getByRole('button', { name: 'Test connection' }).isDisabled(), true);
    await page.getByRole('region', { name: 'Cal.com', exact: true }).getByText(`/public/projects/harbour-nine-${ENGINE}/bookings`).waitFor();
    // Spark set up through the API at a name that does not resolve (a loopback address is refused when saved): the
    // test fails, and the error is shown in words.
    const patched = await api('PATCH', `/projects/${p._id}`, { srBaseUrl: 'https://crm.example.invalid/v2', srToken: 'spark-key-for-the-console' });
    assert.equal(patched.statusCode, 200, patched.body);
    await page.reload();
    const spark = page.getByRole('region', { name: 'Spark', exact: true });
    await spark.getByText('not connected').waitFor();
    await spark.getByRole('button', { name: 'Test connection' }).click();
    await spark.getByRole('alert').filter({ hasText: 'does not resolve' }).waitFor();
    await spark.getByText(/Last error \(.+\): Spark: crm\.example\.invalid does not resolve/).waitFor();
    assert.equal(await page.getByText('spark-key-for-the-console').count(), 0, 'the key is never shown');
    await spark.scrollIntoViewIfNeeded();
    await shots('integrations');

    // A unit's details offer no finishes: the page shows none.
    const unit = await json<{ _id: string }>('POST', `/units?project=${p._id}&name=N-1`);
    assert.ok(unit._id);
    await page.goto(`${base}/admin/projects/${p._id}/units`);
    await page.getByRole('button', { name: 'Details of N-1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Details of N-1' });
    await dialog.getByLabel('Description').waitFor();
    assert.equal(await dialog.getByLabel(/Finishes/).count(), 0);
    assert.equal((await api('GET', `/projects/${p._id}`)).statusCode, 200);
    assert.deepEqual(pageErrors, []);
  });
});
