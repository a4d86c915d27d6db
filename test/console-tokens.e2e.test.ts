import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, shotsAtBothSizes, skip, twoOrigins } from './support/browser.ts';
import { buildTestApp, createUser, ENGINE, type TestApp, type TestUser } from './helpers.ts';

/**
 * The console's profile screen manages API tokens: made in Chromium, used by this test against the API over HTTP,
 * revoked in Chromium, and refused at once after.
 */
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let user: TestUser;
const pageErrors: string[] = [];

before(async () => {
  const origins = await twoOrigins();
  t = await buildTestApp({ env: origins.env });
  await t.app.listen({ port: origins.port, host: '127.0.0.1' });
  base = origins.consoleBase;
  user = await createUser(t.db, { username: `integrator-${Date.now()}@example.com`, profile: { name: 'Ines', lastName: 'Integrator' } });
  if (skip) return;
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
});

after(async () => {
  await browser?.close();
  await t?.close();
});

const shots = (name: string) => shotsAtBothSizes(page, `console-${name}`, { fullPage: true });

test(`the profile screen creates, shows once, copies, lists and revokes an API token (${ENGINE})`, { skip }, async () => {
  await page.goto(`${base}/admin/login`);
  await page.getByLabel('E-mail', { exact: true }).pressSequentially(user.username);
  await page.getByLabel('Password', { exact: true }).pressSequentially(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();

  await page.getByRole('link', { name: 'Profile' }).click();
  await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
  await page.getByText('No API tokens yet.').waitFor();

  await page.getByLabel('Token name').pressSequentially('Sales dashboard');
  await page.getByLabel('Access').selectOption('read');
  await page.getByLabel('Expires after').selectOption('30');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = (await page.locator('.token-once code').textContent()) ?? '';
  assert.match(secret, /^sst_[A-Za-z0-9_-]{43}$/);
  await page.getByRole('button', { name: 'Copy token' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
  const listed = page.getByRole('list', { name: 'Your API tokens' }).getByRole('listitem');
  await listed.filter({ hasText: 'Sales dashboard' }).getByText('Never used').waitFor();
  await shots('tokens-created');

  // The program's side: the token reads as the user, and cannot write.
  const me = await fetch(`${base}/users/me`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(me.status, 200);
  assert.equal(((await me.json()) as { username: string }).username, user.username);
  const write = await fetch(`${base}/projects?name=Nope`, { method: 'POST', headers: { authorization: `Bearer ${secret}` } });
  assert.equal(write.status, 403);

  // Once dismissed, the secret is gone from the screen and the list shows the use.
  await page.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await listed
    .filter({ hasText: 'Sales dashboard' })
    .getByText(/Last used/)
    .waitFor();
  assert.equal(await page.getByText(secret).count(), 0, 'the secret is shown only once');
  assert.ok(!(await page.content()).includes(secret));
  await shots('tokens-list');

  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Revoke Sales dashboard' }).click();
  await page.getByText('No API tokens yet.').waitFor();
  const after = await fetch(`${base}/users/me`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(after.status, 401);
  assert.deepEqual(pageErrors, []);
});
