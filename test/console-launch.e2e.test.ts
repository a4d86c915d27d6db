import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createFloor, createProject, createUnit, ENGINE } from './helpers.ts';
import { json, owner, page, pageErrors, base, shots, skip, status, t, useSignedInConsole } from './fixtures-console.ts';

/**
 * Launch day in the console, in one Chromium against the real service: an allocation set with a
 * password and two units, opened by its realtor, a worksheet accepted (the unit turns reserved), and a waiting list
 * reordered with the keyboard.
 */

useSignedInConsole({ env: { PUBLIC_LEADS_PER_MINUTE: '1000' }, shots: 'console-launch', fullPage: true });

describe(`the console's Launch tab (${ENGINE})`, { skip }, () => {
  test('an allocation with a password and two units; its worksheet accepted; a waiting list reordered', async () => {
    const namespace = `launch-${Date.now().toString(36)}`;
    const settings = { namespace, onHoldExperienceEnabled: true, waitlistEnabled: true, priorityList: true, specialRankEnabled: true };
    const p = await createProject(t.app, owner.auth, { name: 'Launch Point', body: settings });
    const f = await createFloor(t.app, owner.auth, p._id, { name: 'One' });
    const ids: Record<string, string> = {};
    for (const name of ['L-1', 'L-2', 'L-3']) ids[name] = (await createUnit(t.app, owner.auth, p._id, { name, floor: f._id }))._id;
    ids['W-1'] = (await createUnit(t.app, owner.auth, p._id, { name: 'W-1', floor: f._id, body: { availability: 'sold' } }))._id;

    await page.goto(`${base}/admin/projects/${p._id}/launch`);
    await page.getByRole('heading', { level: 1, name: 'Launch' }).waitFor();
    await page.getByRole('button', { name: 'Add an allocation' }).click();
    await page.getByLabel('Name of Allocation 1').pressSequentially('North Realty');
    await page.getByLabel('Password of North Realty', { exact: true }).pressSequentially('north-secret-1');
    const picks = page.getByRole('group', { name: 'Units of North Realty' });
    await picks.getByLabel('L-1').check();
    await picks.getByLabel('L-2').check();
    await page.getByRole('button', { name: 'Save allocations' }).click();
    await status('Allocations saved.');
    const saved = await json<{ allocations: { name: string; allocation: string }[]; configuredSecrets: string[] }>('GET', `/projects/${p._id}`);
    assert.deepEqual(saved.allocations, [{ name: 'North Realty', allocation: `${ids['L-1']}, ${ids['L-2']}` }]);
    assert.ok(saved.configuredSecrets.includes('allocations[North Realty].password'));
    // Write-only: the field is empty and reads "set"; the password is nowhere on the page.
    assert.equal(await page.getByLabel('Password of North Realty', { exact: true }).inputValue(), '');
    await page.getByRole('button', { name: 'Clear the password of North Realty' }).waitFor();
    assert.doesNotMatch(await page.content(), /north-secret-1/);

    const opened = await t.app.inject({ method: 'POST', url: '/public/allocations/open', payload: { namespace, password: 'north-secret-1' } });
    assert.equal(opened.statusCode, 200, opened.body);
    assert.deepEqual([...opened.json().units].sort(), [ids['L-1'], ids['L-2']].sort());
    const sheet = await t.app.inject({
      method: 'POST',
      url: '/public/worksheets',
      headers: { 'x-allocation-token': opened.json().token },
      payload: { buyer: { firstName: 'Bea', lastName: 'Buyer', email: 'bea@example.com', phone: '+1 555 0102' }, choices: [ids['L-1'], ids['L-2']] },
    });
    assert.equal(sheet.statusCode, 201, sheet.body);

    for (const who of ['Wade', 'Wren', 'Wes']) {
      const res: { statusCode: number; body: string } = await t.app.inject({
        method: 'POST',
        url: '/public/waitlist',
        payload: { namespace, firstName: who, lastName: 'Waiting', email: `${who.toLowerCase()}@example.com`, unit: ids['W-1'] },
      });
      assert.equal(res.statusCode, 201, res.body);
    }

    await page.reload();
    await page.getByRole('cell', { name: /^Bea Buyer/ }).waitFor();
    await page.getByLabel('Unit for Bea Buyer').selectOption({ label: 'L-2' });
    await page.getByRole('button', { name: "Accept Bea Buyer's worksheet" }).click();
    await status('L-2 reserved for Bea Buyer.');
    assert.equal((await json<{ availability: string }>('GET', `/units/${ids['L-2']}`)).availability, 'reserved');
    await page.getByRole('cell', { name: 'Accepted: L-2' }).waitFor();

    await page.getByLabel('Unit', { exact: true }).selectOption({ label: 'W-1 (sold)' });
    const list = page.getByRole('list', { name: 'Waiting list of W-1' });
    await list.getByText('Wes Waiting').waitFor();
    await shots('tab');
    await list.getByRole('button', { name: 'Move Wes Waiting up' }).focus();
    await page.keyboard.press('Enter');
    await status('Wes Waiting is now number 2.');
    const order = await json<{ firstName: string; rank: number }[]>('GET', `/units/${ids['W-1']}/waitlist`);
    assert.deepEqual(
      order.map((e) => [e.firstName, e.rank]),
      [
        ['Wade', 1],
        ['Wes', 2],
        ['Wren', 3],
      ],
    );
    assert.match((await list.locator('li').nth(1).textContent()) ?? '', /Wes Waiting/);
    // Or dragged: the last entry dropped on the first takes its place.
    await list
      .locator('li')
      .filter({ hasText: 'Wren Waiting' })
      .dragTo(list.locator('li').filter({ hasText: 'Wade Waiting' }));
    await status('Wren Waiting is now number 1.');
    const dragged = await json<{ firstName: string }[]>('GET', `/units/${ids['W-1']}/waitlist`);
    assert.deepEqual(
      dragged.map((e) => e.firstName),
      ['Wren', 'Wade', 'Wes'],
    );

    // A second acceptance of the reserved unit is a 409, shown as a sentence.
    const again = await t.app.inject({
      method: 'POST',
      url: '/public/worksheets',
      headers: { 'x-allocation-token': opened.json().token },
      payload: { buyer: { firstName: 'Cy', lastName: 'Late', email: 'cy@example.com', phone: '+1 555 0103' }, choices: [ids['L-2']] },
    });
    assert.equal(again.statusCode, 201, again.body);
    await page.reload();
    await page.getByRole('button', { name: "Accept Cy Late's worksheet" }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /^That could not be done now: / })
      .waitFor();
    await shots('conflict');
  });

  test('no script errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
