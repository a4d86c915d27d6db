import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createGroup, createProject, type Caller, type LoggedIn, slug, type TestApp, useOwnerApp, userWithToken } from './helpers.ts';

/**
 * The service's marks on a project's page and a group's (docs/fields.md): `showBranding` and the owner's
 * `preferences.hideBrandingIcon` / `hideLoadingLogo`, as the server renders the page.
 */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({}, (f) => ({ t, owner, call } = f));

const LOADING_LOGO = '<img class="loading-logo" src="/p/assets/showsuite-mark.svg"';
const NO_ICON = 'data-branding-icon="off"';

async function page(namespace: string): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: `/p/${namespace}`, headers: { host: 'pages.localhost' } });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
}

async function preferences(p: Record<string, boolean>) {
  const res = await call('PATCH', '/users/me', { preferences: p });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().preferences, p);
}

test("by default: the loading logo and the branding line's icon; the icon itself is served", async () => {
  const p = await createProject(t.app, owner.auth, { query: { namespace: slug('brand') }, body: { published: true } });
  await preferences({ hideBrandingIcon: false, hideLoadingLogo: false });
  const html = await page(p.namespace);
  assert.ok(html.includes(LOADING_LOGO));
  assert.ok(!html.includes(NO_ICON));
  const icon = await t.app.inject({ method: 'GET', url: '/p/assets/showsuite-mark.svg', headers: { host: 'pages.localhost' } });
  assert.equal(icon.statusCode, 200);
  assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
});

test("the owner's hideLoadingLogo and hideBrandingIcon act on each of the owner's pages, not on another owner's", async () => {
  const p = await createProject(t.app, owner.auth, { query: { namespace: slug('brand') }, body: { published: true } });
  await preferences({ hideLoadingLogo: true, hideBrandingIcon: false });
  let html = await page(p.namespace);
  assert.ok(!html.includes(LOADING_LOGO), 'no loading logo');
  assert.ok(!html.includes(NO_ICON), 'the icon stays');
  await preferences({ hideLoadingLogo: false, hideBrandingIcon: true });
  html = await page(p.namespace);
  assert.ok(html.includes(LOADING_LOGO));
  assert.ok(html.includes(NO_ICON), 'the page is told to leave out the icon');
  // Another owner's page keeps both.
  const other = await userWithToken(t);
  const theirs = await createProject(t.app, other.auth, { query: { namespace: slug('brand') }, body: { published: true } });
  const html2 = await page(theirs.namespace);
  assert.ok(html2.includes(LOADING_LOGO) && !html2.includes(NO_ICON));
});

test('showBranding false: none of the service marks, whatever the preferences', async () => {
  await preferences({ hideLoadingLogo: false, hideBrandingIcon: false });
  const p = await createProject(t.app, owner.auth, { query: { namespace: slug('brand') }, body: { published: true, showBranding: false } });
  const html = await page(p.namespace);
  assert.ok(!html.includes(LOADING_LOGO));
  assert.ok(html.includes(NO_ICON));
});

test("a group's page: the branding line with its icon, without it when the group's owner hides it; none when showBranding is false", async () => {
  const ns = slug('brand-group');
  const g = await createGroup(t.app, owner.auth, { query: { namespace: ns } });
  const ICON = '<footer class="brand"><img src="/p/assets/showsuite-mark.svg"';
  const groupPage = async () => {
    const res = await t.app.inject({ method: 'GET', url: `/g/${ns}`, headers: { host: 'pages.localhost' } });
    assert.equal(res.statusCode, 200, res.body);
    return res.body;
  };
  await preferences({ hideLoadingLogo: false, hideBrandingIcon: false });
  assert.ok((await groupPage()).includes(ICON), 'the line with its icon');
  await preferences({ hideLoadingLogo: false, hideBrandingIcon: true });
  let html = await groupPage();
  assert.ok(html.includes('<footer class="brand">') && !html.includes(ICON), 'the line without its icon');
  assert.equal((await call('PATCH', `/groups/${g._id}`, { showBranding: false })).statusCode, 200);
  html = await groupPage();
  assert.ok(!html.includes('<footer class="brand">'), 'no line');
});
