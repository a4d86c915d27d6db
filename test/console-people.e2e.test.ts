import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, shotsAtBothSizes, skip, twoOrigins } from './support/browser.ts';
import { buildTestApp, createProject, createUser, ENGINE, userWithToken, type TestApp, type TestUser } from './helpers.ts';
import { addMember } from '../src/db/member-lists.repo.ts';

/**
 * The console's People screen, for the service's administrators: an administrator signs in (typing key by key), finds
 * a colleague by name, sees their projects and roles, deactivates them (their session stops at once), reactivates them.
 */
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let admin: TestUser;
const pageErrors: string[] = [];

before(async () => {
  const origins = await twoOrigins();
  t = await buildTestApp({ env: origins.env });
  await t.app.listen({ port: origins.port, host: '127.0.0.1' });
  base = origins.consoleBase;
  admin = await createUser(t.db, { role: 'admin', username: `people-admin-${Date.now()}@example.com` });
  if (skip) return;
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('dialog', (d) => void d.accept());
});

after(async () => {
  await browser?.close();
  await t?.close();
});

test(`People: find an account, see its projects and roles, deactivate and reactivate it (${ENGINE})`, { skip }, async () => {
  const owner = await userWithToken(t);
  const colleague = await userWithToken(t);
  await t.db.kysely
    .updateTable('users')
    .set({ profile: JSON.stringify({ name: 'Priya', lastName: 'Lindqvist' }) })
    .where('id', '=', colleague.id)
    .execute();
  const p = await createProject(t.app, owner.auth, { name: 'Harbour Lofts' });
  await addMember(t.db.kysely, 'projects', p._id, colleague.id, 'editor', Date.now());

  await page.goto(`${base}/admin/login`);
  await page.getByLabel('E-mail', { exact: true }).pressSequentially(admin.username);
  await page.getByLabel('Password', { exact: true }).pressSequentially(admin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
  await page.getByRole('link', { name: 'People' }).click();
  await page.getByRole('heading', { level: 1, name: 'People' }).waitFor();

  await page.getByLabel('Search by e-mail or name').pressSequentially('lindq');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByText('1 account matching “lindq”.').waitFor();
  const card = page.locator('.cards .card').filter({ hasText: 'Priya Lindqvist' });
  await card.getByText('Harbour Lofts').waitFor();
  assert.match((await card.textContent()) ?? '', /Harbour Lofts \(editor\)/);
  await card.getByText('Active', { exact: true }).waitFor();
  await shotsAtBothSizes(page, 'console-people', { fullPage: true });

  await card.getByRole('button', { name: `Deactivate ${colleague.username}` }).click();
  await page.getByRole('status').filter({ hasText: 'is deactivated: signed out everywhere' }).waitFor();
  await card.getByText('Deactivated', { exact: true }).waitFor();
  assert.equal((await t.app.inject({ method: 'GET', url: '/users/me', headers: colleague.auth })).statusCode, 401, 'their session stopped');
  await shotsAtBothSizes(page, 'console-people-deactivated', { fullPage: true });

  await card.getByRole('button', { name: `Reactivate ${colleague.username}` }).click();
  await page.getByRole('status').filter({ hasText: 'can sign in again' }).waitFor();
  await card.getByText('Active', { exact: true }).waitFor();
  assert.deepEqual(pageErrors, []);

  // Someone who is not a service administrator has no People screen.
  const other = await t.app.inject({ method: 'GET', url: '/users', headers: owner.auth });
  assert.equal(other.statusCode, 403);
});
