import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createUser, publicProject } from './helpers.ts';
import { SHOTS } from './support/browser.ts';
import type { Page } from 'playwright-core';
import { parse } from 'csv-parse/sync';
import { api, base, browser, json, owner, skip, t, useSignedInConsole } from './fixtures-console.ts';

/**
 * The leads screen (and the Team tab) by name and state, in Chromium against the real service: colleagues by name or
 * e-mail, a hold lead's state, one row per person with their earlier contacts, an export with names and local times,
 * and at 390 px one card per lead with no sideways scrolling.
 */
useSignedInConsole({ shots: 'console-leads', env: { HOLDS_PER_CLIENT: '50', HOLD_REQUESTS_PER_MINUTE: '1000' } });

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
let ip = 0;
const hold = async (unit: string, visitor: Record<string, string>) => {
  const res = await t.app.inject({ method: 'POST', url: `/public/units/${unit}/hold`, payload: visitor, remoteAddress: `198.51.100.${++ip}` });
  assert.equal(res.statusCode, 200, res.body);
};
const enquire = async (project: string, visitor: Record<string, string>, message: string) => {
  const res = await t.app.inject({ method: 'POST', url: '/public/leads', payload: { project, ...visitor, message }, remoteAddress: `198.51.100.${++ip}` });
  assert.equal(res.statusCode, 201, res.body);
};
let page: Page;
const pageErrors: string[] = [];
const row = (name: string) => page.locator('table.leads-table tbody tr').filter({ hasText: name });

describe('the console’s leads by name and state', { skip }, () => {
  test('names, hold states, one row per person, readable export, cards on a phone', async () => {
    const admin = await createUser(t.db, { profile: { fullName: 'Ada Admin' } });
    const editor = await createUser(t.db, { profile: {} });
    const { id, units } = await publicProject(t.app, owner.auth, {
      name: 'Leads Lane',
      settings: { onHoldExperienceEnabled: true, onHoldMinsDuration: 30, enableForms: true, administrators: [admin.id], editors: [editor.id] },
      units: { 'A-1': { price: 450000 }, 'B-1': { price: 520000 }, 'C-1': {} },
    });
    const rita = { firstName: 'Rita', lastName: 'Repeat', email: 'rita@example.com', phone: '+1 555 0101' };
    const sol = { firstName: 'Sol', lastName: 'Sold', email: 'sol@example.com', phone: '+1 555 0102' };
    await enquire(id, rita, 'Is A-1 south-facing?');
    await hold(units['A-1']!, { ...rita, email: 'RITA@example.com' });
    await hold(units['B-1']!, sol);
    assert.equal((await api('PATCH', `/units/${units['B-1']}`, { availability: 'sold' })).statusCode, 200);
    await enquire(id, { firstName: 'Eve', lastName: 'Enquirer', email: 'eve@example.com', phone: '+1 555 0103' }, 'Parking?');
    const leads = await json<{ _id: string; email: string; createdAt: string }[]>('GET', `/leads?project=${id}`);
    const solLead = leads.find((l) => l.email === 'sol@example.com')!;
    assert.equal((await api('PATCH', `/leads/${solLead._id}`, { assignee: admin.id })).statusCode, 200);

    // A browser in Toronto: the export's times are on its wall clock.
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'America/Toronto' });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    assert.equal((await context.request.post(`${base}/users/login`, { data: { username: owner.username, password: owner.password } })).status(), 200);
    await page.goto(`${base}/admin/leads`);
    await page.getByRole('heading', { level: 1, name: 'Leads' }).waitFor();
    await row('Eve Enquirer').waitFor();
    // Colleagues by name, else by e-mail; never an id.
    const solAssignee = page.getByLabel('Assignee of Sol Sold');
    await page.waitForFunction(() => document.querySelector('[aria-label="Assignee of Sol Sold"] option:checked')?.textContent === 'Ada Admin');
    assert.deepEqual(await solAssignee.locator('option').allTextContents(), ['Nobody', 'Test User (you)', 'Ada Admin', editor.username]);
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /User …/);

    // A hold lead's state; the repeat contact as one person with their earlier contact.
    assert.match((await row('Sol Sold').textContent()) ?? '', /Hold converted/);
    const ritaRow = row('Rita Repeat');
    assert.equal(await ritaRow.count(), 1, 'one row for Rita');
    assert.match((await ritaRow.textContent()) ?? '', /Hold active until/);
    assert.match((await ritaRow.textContent()) ?? '', /2 contacts/);
    await ritaRow.getByText('Earlier contacts (1)').click();
    await ritaRow.getByText('Is A-1 south-facing?').waitFor();
    assert.equal(await page.getByText('4 leads', { exact: true }).count(), 1);
    await page.getByText('from 3 people').waitFor();
    await page.screenshot({ path: `${SHOTS}/console-leads-desktop.png` });

    // The export: names and the browser's local times, the zone named.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const text = Buffer.concat(await (await csv.createReadStream()).toArray()).toString('utf8');
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const solRow = rows.find((r) => r.email === 'sol@example.com')!;
    const created = new Date(leads.find((l) => l.email === 'sol@example.com')!.createdAt);
    const toronto = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Toronto', dateStyle: 'short', timeStyle: 'short', hourCycle: 'h23' });
    assert.deepEqual(
      [solRow.project, solRow.unit, solRow.assignee, solRow.holdState, solRow.createdAt, solRow.timeZone],
      ['Leads Lane', 'B-1', 'Ada Admin', 'converted', toronto.format(created).replace(',', ''), 'America/Toronto'],
    );
    assert.doesNotMatch(text, new RegExp(id), 'no project id');

    // Every lead on its own row again.
    await page.getByLabel('One row per person').uncheck();
    await page.waitForFunction(() => document.querySelectorAll('table.leads-table tbody tr').length === 4);

    // On a phone: cards, nothing wider than the screen.
    await page.getByLabel('One row per person').check();
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(50);
    const width = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: innerWidth }));
    assert.ok(width.page <= width.view, `the leads screen is ${width.page} px wide on a ${width.view} px phone`);
    const card = await ritaRow.boundingBox();
    assert.ok(card && card.x >= 0 && card.x + card.width <= PHONE.width, 'a lead’s card fits the screen');
    await page.screenshot({ path: `${SHOTS}/console-leads-phone.png` });
    await ritaRow.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/console-leads-phone-card.png` });
    await page.screenshot({ path: `${SHOTS}/console-leads-phone-full.png`, fullPage: true });

    // The project's Team tab names the same people.
    await page.setViewportSize(DESKTOP);
    await page.goto(`${base}/admin/projects/${id}/team`);
    await page.getByText('Owner: Test User (you)').waitFor();
    await page.locator('.people li').filter({ hasText: 'Ada Admin' }).waitFor();
    await page.locator('.people li').filter({ hasText: editor.username }).waitFor();
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /User …/);
    await page.screenshot({ path: `${SHOTS}/console-leads-team-desktop.png` });
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
