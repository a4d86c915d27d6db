import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, skip, twoOrigins } from './support/browser.ts';
import { buildTestApp, createProject, createUser, ENGINE, login, slug, type TestApp, type TestUser } from './helpers.ts';

/**
 * A page's tag-manager code runs in the browser of whoever opens the page, the signed-in owner included. Here the
 * owner signs in to the console, then opens a project page whose tag-manager code tries, with the browser's
 * credentials, to make a stranger an administrator and to read the leads and the owner's own record, on the page's
 * origin and on the console's. Nothing changes, nothing private is read, and the code itself still runs.
 */
let t: TestApp;
let browser: Browser;
let origins: Awaited<ReturnType<typeof twoOrigins>>;
let owner: TestUser;
let auth: { authorization: string };
let projectId: string;
let namespace: string;
let version: number;
const intruder = '0123456789abcdef01234567';
const LEAD_EMAIL = 'private-buyer@example.com';

/** The tag-manager code: every attempt's outcome lands in `window.attempts`; `data-gtm` says it ran and finished. */
const attack = (console: string, id: string) => `<script>
document.documentElement.dataset.gtm = 'ran';
window.attempts = [];
const tryIt = async (label, url, init) => {
  try {
    const res = await fetch(url, { credentials: 'include', ...init });
    window.attempts.push({ label, status: res.status, body: await res.text() });
  } catch (err) {
    window.attempts.push({ label, status: 0, body: String(err) });
  }
};
const patch = { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ administrators: ['${intruder}'] }) };
(async () => {
  for (const base of ['', '${console}']) {
    await tryIt(base + ' patch', base + '/project/${id}', patch);
    await tryIt(base + ' leads', base + '/leads?project=${id}');
    await tryIt(base + ' me', base + '/users/me');
    await tryIt(base + ' csv', base + '/leads?project=${id}', { headers: { accept: 'text/csv' } });
  }
  await tryIt('form', '${console}/project/${id}', { method: 'POST', mode: 'no-cors', body: 'administrators=${intruder}' });
  document.documentElement.dataset.gtm = 'done';
})();
</script>`;

before(async () => {
  origins = await twoOrigins();
  t = await buildTestApp({ env: { ...origins.env, HOLD_SWEEP_SEC: '0' } });
  await t.app.listen({ port: origins.port, host: '127.0.0.1' });
  owner = await createUser(t.db, { username: `owner-${slug()}@example.com` });
  auth = { authorization: `Bearer ${(await login(t.app, owner)).token}` };
  namespace = slug('attack');
  const p = await createProject(t.app, auth, { query: { namespace }, body: { enableForms: true } });
  projectId = p._id;
  const patched = await t.app.inject({
    method: 'PATCH',
    url: `/project/${projectId}`,
    headers: auth,
    payload: { gtmEnabled: true, gtmHeadCode: attack(origins.consoleBase, projectId) },
  });
  assert.equal(patched.statusCode, 200, patched.body);
  version = patched.json().__v;
  const lead = await t.app.inject({
    method: 'POST',
    url: '/public/leads',
    payload: { namespace, firstName: 'Pat', lastName: 'Private', email: LEAD_EMAIL, phone: '+1 555 0100' },
  });
  assert.equal(lead.statusCode, 201, lead.body);
  if (skip) return;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await t?.close();
});

describe(`a page's scripts cannot use a signed-in user's session (${ENGINE})`, { skip }, () => {
  test('the owner, signed in to the console, opens the page: its tag-manager code runs and changes and reads nothing', async () => {
    const context = await browser.newContext();
    const consolePage = await context.newPage();
    consolePage.setDefaultTimeout(10_000);
    await consolePage.goto(`${origins.consoleBase}/admin`);
    await consolePage.getByLabel('E-mail').fill(owner.username);
    await consolePage.getByLabel('Password').fill(owner.password);
    await consolePage.getByRole('button', { name: 'Sign in' }).click();
    await consolePage.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    // The session works from the console's origin: the same calls from there would succeed.
    const control = await consolePage.evaluate(async () => (await fetch('/users/me', { credentials: 'include' })).status);
    assert.equal(control, 200);
    // The console links to the page on the pages origin.
    await consolePage.goto(`${origins.consoleBase}/admin/projects/${projectId}/settings`);
    const href = await consolePage.locator('#public-page').getAttribute('href');
    assert.equal(href, `${origins.pagesBase}/p/${namespace}`);

    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    // Asked for on the console's origin, the page is sent to the pages origin.
    await page.goto(`${origins.consoleBase}/p/${namespace}`);
    assert.equal(new URL(page.url()).origin, origins.pagesBase);
    await page.waitForSelector('html[data-gtm="done"]');
    const attempts = (await page.evaluate(() => (window as unknown as { attempts: { label: string; status: number; body: string }[] }).attempts)) ?? [];
    assert.equal(attempts.length, 9);
    for (const a of attempts) {
      assert.ok(a.status < 200 || a.status >= 300, `${a.label}: ${a.status} ${a.body.slice(0, 200)}`);
      assert.ok(!a.body.includes(LEAD_EMAIL) && !a.body.includes(owner.username), `${a.label} read something private`);
    }
    // On the pages origin the session routes are not there at all.
    assert.ok(
      attempts.filter((a) => !a.label.startsWith('http') && a.label !== 'form').every((a) => a.status === 404),
      JSON.stringify(attempts),
    );

    const project = (await t.app.inject({ method: 'GET', url: `/projects/${projectId}`, headers: auth })).json();
    assert.deepEqual(project.administrators, []);
    assert.equal(project.__v, version, 'the project is as the owner left it');
    // The page itself works: the bundle it reads comes from its own origin.
    await page.waitForSelector('#app[aria-busy="false"]');
    await context.close();
  });
});
