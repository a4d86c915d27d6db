import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import {
  type Caller,
  caller,
  createFloor,
  createGroup,
  createProject,
  createUnit,
  HIGH_RATE_LIMITS,
  login,
  type LoggedIn,
  slug,
  TestClock,
  type TestApp,
  useOwnerApp,
  userWithToken,
} from './helpers.ts';

/** Drafts (`published: false`): nothing public answers for them, and a signed preview link opens the page for 24 hours. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;
const clock = new TestClock(Date.UTC(2031, 0, 10, 9, 0, 0));

useOwnerApp({ clock, env: HIGH_RATE_LIMITS }, (f) => ({ t, owner, call } = f));

const PAGES = 'pages.localhost';
const visitor = { firstName: 'Vi', lastName: 'Sitor', email: 'vi@example.com', phone: '+1 555 0100' };
const page = (url: string) => t.app.inject({ method: 'GET', url, headers: { host: PAGES } });
const anon = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: { host: PAGES }, ...(payload ? { payload } : {}) });

/** A project that takes enquiries, holds and the waitlist, with a floor and a unit, in a group with a public page. */
async function project(body: Record<string, unknown> = {}) {
  const namespace = slug('draft');
  const p = await createProject(t.app, owner.auth, {
    query: { namespace },
    body: { enableForms: true, onHoldExperienceEnabled: true, waitlistEnabled: true, ...body },
  });
  const floor = await createFloor(t.app, owner.auth, p._id);
  const unit = await createUnit(t.app, owner.auth, p._id, { floor: floor._id, name: 'A1' });
  const group = await createGroup(t.app, owner.auth, { query: { namespace: slug('grp') }, body: { projects: [p._id] } });
  return { p, namespace, unit, group };
}

/** Every public door of a project, each as [what, status]; the live feed only when closed (open, it streams on). */
async function publicDoors(namespace: string, projectId: string, unitId: string, closed = true) {
  return {
    bundle: (await anon('GET', `/public/projects/${namespace}`)).statusCode,
    page: (await page(`/p/${namespace}`)).statusCode,
    unitPage: (await page(`/p/${namespace}/units/${unitId}`)).statusCode,
    ...(closed ? { events: (await anon('GET', `/public/projects/${namespace}/events`)).statusCode } : {}),
    leadById: (await anon('POST', '/public/leads', { project: projectId, ...visitor })).statusCode,
    leadByNamespace: (await anon('POST', '/public/leads', { namespace, ...visitor })).statusCode,
    waitlist: (await anon('POST', '/public/waitlist', { namespace, ...visitor })).statusCode,
    hold: (await anon('POST', `/public/units/${unitId}/hold`, visitor)).statusCode,
  };
}

describe('drafts', () => {
  test('a project made through the API is public (published absent); published: false closes every public door with 404; true opens them again', async () => {
    const { p, namespace, unit, group } = await project();
    assert.equal(p.published, undefined);
    assert.equal((await anon('GET', `/public/projects/${namespace}`)).statusCode, 200);
    assert.match((await page(`/g/${group.namespace}`)).body, new RegExp(`/p/${namespace}`));

    const patched = await call('PATCH', `/project/${p._id}`, { published: false });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().published, false);
    const closed = await publicDoors(namespace, p._id, unit._id);
    for (const [door, status] of Object.entries(closed)) assert.equal(status, 404, door);
    const refused = await anon('GET', `/public/projects/${namespace}`);
    assert.equal(refused.json().code, 'not_found');
    assert.doesNotMatch(refused.body, new RegExp(p.name));
    // The group's page leaves the draft out.
    const groupPage = await page(`/g/${group.namespace}`);
    assert.equal(groupPage.statusCode, 200);
    assert.doesNotMatch(groupPage.body, new RegExp(`/p/${namespace}`));
    // Nothing was written by the refused forms and hold.
    assert.equal((await call('GET', `/leads?project=${p._id}`)).json().length, 0);
    assert.equal((await call('GET', `/units/${unit._id}`)).json().availability, 'available');

    await call('PATCH', `/project/${p._id}`, { published: true });
    const open = await publicDoors(namespace, p._id, unit._id, false);
    assert.equal(open.bundle, 200);
    assert.equal(open.page, 200);
    assert.equal(open.leadById, 201);
    assert.equal(open.waitlist, 201);
    assert.equal(open.hold, 200);
  });

  test('the host-name bundle and page of a draft answer 404 too', async () => {
    const hostName = `${slug('h')}.homes.example.com`;
    const p = await createProject(t.app, owner.auth, { query: { hostName }, body: { published: false } });
    assert.equal(p.published, false);
    assert.equal((await anon('GET', `/public/hosts/${hostName}`)).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/', headers: { host: hostName } })).statusCode, 404);
    const link = (await call('GET', `/projects/${p._id}/preview-link`)).json();
    // No namespace: the link is the project's own host name.
    assert.ok(link.url.startsWith(`http://${hostName}/?preview=`), link.url);
    const token = new URL(link.url).searchParams.get('preview');
    assert.equal((await anon('GET', `/public/hosts/${hostName}?preview=${token}`)).statusCode, 200);
    const home = await t.app.inject({ method: 'GET', url: `/?preview=${token}`, headers: { host: hostName } });
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /class="draft-banner"/);
  });

  test('GET /projects/{id}/preview-link: owner, administrator and editor get a 24-hour signed page address; stranger 404, no token 401; no namespace or host → 409', async () => {
    const [administrator, editor, stranger] = [await userWithToken(t), await userWithToken(t), await userWithToken(t)];
    const { p, namespace } = await project({ published: false, administrators: [administrator.id], editors: [editor.id] });
    for (const who of [owner, administrator, editor]) {
      const res = await caller(t.app, who.auth)('GET', `/projects/${p._id}/preview-link`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'private, no-store');
      const { url, expiresAt } = res.json();
      assert.match(url, new RegExp(`^http://pages\\.localhost/p/${namespace}\\?preview=\\d+\\.[A-Za-z0-9_-]{43}$`));
      assert.equal(expiresAt, new Date(clock.now() + 24 * 3_600_000).toISOString());
    }
    assert.equal((await caller(t.app, stranger.auth)('GET', `/projects/${p._id}/preview-link`)).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: `/projects/${p._id}/preview-link` })).statusCode, 401);
    assert.equal((await call('GET', `/projects/${newObjectId()}/preview-link`)).statusCode, 404);
    const bare = await createProject(t.app, owner.auth, { body: { published: false } });
    const conflict = await call('GET', `/projects/${bare._id}/preview-link`);
    assert.equal(conflict.statusCode, 409);
    assert.equal(conflict.json().errors[0].path, '/namespace');
  });

  test('a published project in previewMode: its page and its bundle ask robots not to index; without it neither does', async () => {
    const { p, namespace } = await project({ published: true });
    const before = await page(`/p/${namespace}`);
    assert.equal(before.statusCode, 200, before.body);
    assert.doesNotMatch(before.body, /<meta name="robots"/);
    assert.equal(before.headers['x-robots-tag'], undefined);
    assert.equal((await call('PATCH', `/project/${p._id}`, { previewMode: true })).statusCode, 200);
    const opened = await page(`/p/${namespace}`);
    assert.equal(opened.statusCode, 200, opened.body);
    assert.match(opened.body, /<meta name="robots" content="noindex">/);
    assert.equal(opened.headers['x-robots-tag'], 'noindex');
    assert.doesNotMatch(opened.body, /class="draft-banner"/, 'a published project is no draft');
    assert.equal((await anon('GET', `/public/projects/${namespace}`)).headers['x-robots-tag'], 'noindex');
  });

  test('the preview link opens the draft page with a banner, its bundle with the same token, not cached or indexed; forms and holds stay closed', async () => {
    const { p, namespace, unit } = await project({ published: false });
    const { url } = (await call('GET', `/projects/${p._id}/preview-link`)).json();
    const token = new URL(url).searchParams.get('preview') ?? '';
    const opened = await page(`/p/${namespace}?preview=${encodeURIComponent(token)}`);
    assert.equal(opened.statusCode, 200, opened.body);
    assert.match(opened.body, /class="draft-banner"[^>]*>.*Draft preview/);
    assert.match(opened.body, /<meta name="robots" content="noindex">/);
    assert.equal(opened.headers['cache-control'], 'private, no-store');
    assert.equal(opened.headers['x-robots-tag'], 'noindex');
    // The page reads its bundle with the token.
    assert.match(opened.body, new RegExp(`data-bundle="/public/projects/${namespace}\\?preview=${token}"`));
    const unitPage = await page(`/p/${namespace}/units/${unit._id}?preview=${token}`);
    assert.equal(unitPage.statusCode, 200);

    const bundle = await anon('GET', `/public/projects/${namespace}?preview=${token}`);
    assert.equal(bundle.statusCode, 200, bundle.body);
    assert.equal(bundle.headers['cache-control'], 'private, no-store');
    assert.equal(bundle.json().project.published, false);
    assert.equal(bundle.json().floors[0].units[0]._id, unit._id);
    // The published page carries no banner.
    await call('PATCH', `/project/${p._id}`, { published: true });
    const published = await page(`/p/${namespace}?preview=${token}`);
    assert.equal(published.statusCode, 200);
    assert.doesNotMatch(published.body, /class="draft-banner"/);
    assert.equal(published.headers['cache-control'], 'no-cache');
    await call('PATCH', `/project/${p._id}`, { published: false });

    // Forms and holds do not take the token: a draft takes no enquiries.
    assert.equal((await anon('POST', '/public/leads', { namespace, ...visitor })).statusCode, 404);
    assert.equal((await anon('POST', `/public/units/${unit._id}/hold`, visitor)).statusCode, 404);
  });

  test('a tampered, foreign or expired token opens nothing', async () => {
    const a = await project({ published: false });
    const b = await project({ published: false });
    const tokenOf = async (id: string) => {
      const res = await call('GET', `/projects/${id}/preview-link`);
      assert.equal(res.statusCode, 200, res.body);
      return new URL(res.json().url).searchParams.get('preview') ?? '';
    };
    const tokenA = await tokenOf(a.p._id);
    const tokenB = await tokenOf(b.p._id);
    const [exp = '', sig = ''] = tokenA.split('.');
    const flipped = `${sig.charAt(0) === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    const bad = [tokenB, `${exp}.${flipped}`, `${Number(exp) + 3600}.${sig}`, `${exp}.${sig}x`, '', 'not-a-token', `${exp}.${'A'.repeat(43)}`];
    for (const token of bad) {
      assert.equal((await anon('GET', `/public/projects/${a.namespace}?preview=${encodeURIComponent(token)}`)).statusCode, 404, token);
      assert.equal((await page(`/p/${a.namespace}?preview=${encodeURIComponent(token)}`)).statusCode, 404, token);
    }
    assert.equal((await anon('GET', `/public/projects/${a.namespace}?preview=${tokenA}`)).statusCode, 200);
    // The events feed refuses the draft without its token (with it, it streams: see the page test in Chromium).
    assert.equal((await anon('GET', `/public/projects/${a.namespace}/events?preview=${tokenB}`)).statusCode, 404);
    // 24 hours later the link has lapsed.
    clock.advance(24 * 3_600_000);
    assert.equal((await anon('GET', `/public/projects/${a.namespace}?preview=${tokenA}`)).statusCode, 404);
    assert.equal((await page(`/p/${a.namespace}?preview=${tokenA}`)).statusCode, 404);
    // A renamed namespace keeps a fresh link working (the project id is what is signed). The day also ended the
    // owner's access token: sign in again.
    call = caller(t.app, { authorization: `Bearer ${(await login(t.app, owner)).token}` });
    const fresh = await tokenOf(a.p._id);
    const renamed = slug('renamed');
    await call('PATCH', `/project/${a.p._id}`, { namespace: renamed });
    assert.equal((await anon('GET', `/public/projects/${renamed}?preview=${fresh}`)).statusCode, 200);
  });
});
