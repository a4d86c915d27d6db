import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { newObjectId } from '../src/lib/object-id.ts';
import { PROJECT_SECRETS } from '../src/modules/projects/projects.schemas.ts';
import { createFloor, createProject, createUnit, type LoggedIn, type TestApp, TestClock, useOwnerApp, userWithToken } from './helpers.ts';

let t: TestApp;
let owner: LoggedIn;
const clock = new TestClock();

useOwnerApp({ clock, env: { HOLD_SWEEP_SEC: '0' } }, (f) => ({ t, owner } = f));

const ns = () => `p-${newObjectId().slice(-10)}`;
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const patch = (url: string, payload: object) => t.app.inject({ method: 'PATCH', url, headers: owner.auth, payload });

describe('GET /public/projects/{namespace}', () => {
  test('the bundle: public fields, floors in order with their units; never secrets or private fields', async () => {
    const namespace = ns();
    const mark = (f: string) => `PRIVATE-${f}-${randomBytes(4).toString('hex')}`;
    const privateValues: Record<string, unknown> = {
      formsSendTo: `sales-${randomBytes(3).toString('hex')}@example.com`,
      reportSendTo: `reports-${randomBytes(3).toString('hex')}@example.com`,
      internalURL: mark('internalURL'),
      gtmHeadCode: mark('gtmHeadCode'),
      gtmBodyCode: mark('gtmBodyCode'),
      calUsername: mark('calUsername'),
      payProviderClientId: mark('payProviderClientId'),
      yiCompanyCode: mark('yiCompanyCode'),
      pvUsername: mark('pvUsername'),
      zhOrgId: mark('zhOrgId'),
      srBaseUrl: `https://${mark('srBaseUrl').toLowerCase()}.example.invalid/v2`,
      sfProjectId: mark('sfProjectId'),
      soDomain: mark('soDomain'),
      bsUsername: mark('bsUsername'),
      ftpUrl: mark('ftpUrl'),
      ftpMapping: [{ header: mark('ftpMapping'), property: 'name' }],
      yiStatusMapping: { sold: mark('yiStatusMapping') },
      invites: [{ email: `invitee-${randomBytes(3).toString('hex')}@example.com`, level: 'editor' }],
      allocations: [{ name: mark('allocation'), password: mark('allocationPassword'), allocation: '5' }],
    };
    const secrets = Object.fromEntries(PROJECT_SECRETS.map((f) => [f, mark(f)]));
    const admin = await userWithToken(t);
    const p = await createProject(t.app, owner.auth, {
      query: { namespace },
      body: { showPrices: true, payProviderCurrency: 'cad', payProviderDeposit: 500, colorBase: '#102030' },
    });
    assert.equal((await patch(`/project/${p._id}`, { ...privateValues, ...secrets, administrators: [admin.id] })).statusCode, 200);
    const upper = await createFloor(t.app, owner.auth, p._id, { name: 'Upper', position: 2 });
    const lower = await createFloor(t.app, owner.auth, p._id, { name: 'Lower', position: 1 });
    const u2 = await createUnit(t.app, owner.auth, p._id, { floor: lower._id, position: 2, body: { price: 500000 } });
    const u1 = await createUnit(t.app, owner.auth, p._id, { floor: lower._id, position: 1, body: { price: 400000 } });

    const res = await get(`/public/projects/${namespace}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'public, max-age=5');
    assert.match(String(res.headers.etag), new RegExp(`^"${p._id}-\\d+-\\d+"$`));
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const raw = res.body;
    const b = res.json();
    assert.equal(b.project._id, p._id);
    assert.equal(b.project.colorBase, '#102030');
    assert.equal(b.project.payProviderCurrency, 'cad');
    assert.equal(b.project.payProviderDeposit, 500);
    assert.deepEqual(
      b.floors.map((f: { _id: string }) => f._id),
      [lower._id, upper._id],
    );
    assert.deepEqual(
      b.floors[0].units.map((u: { _id: string }) => u._id),
      [u1._id, u2._id],
    );
    assert.equal(b.floors[0].units[0].price, 400000);

    // The one use of a private field's value: the Cal.com booking page "Book a visit" opens is at the username's address.
    assert.equal(b.project.bookingUrl, `https://cal.com/${String(privateValues.calUsername)}`);
    const shown = JSON.stringify({ ...b, project: { ...b.project, bookingUrl: undefined } });
    for (const [field, value] of Object.entries({ ...privateValues, ...secrets })) {
      assert.ok(!(field in b.project), `${field} is not in the bundle`);
      for (const s of JSON.stringify(value).match(/PRIVATE-[\w-]+|[\w-]+@example\.com/g) ?? []) assert.ok(!shown.includes(s), `${field}'s value leaked`);
    }
    for (const key of ['configuredSecrets', 'administrators', 'editors', 'user', 'leads', 'waitlistees', admin.id, owner.id]) {
      assert.ok(!raw.includes(`"${key}"`) && !raw.includes(key === admin.id || key === owner.id ? key : `"${key}":`), `${key} is not in the bundle`);
    }
  });

  test('prices hidden when showPrices is false (payableAmount stays); sold units hidden when hideSold; gtm only when gtmEnabled', async () => {
    const namespace = ns();
    const p = await createProject(t.app, owner.auth, {
      query: { namespace },
      body: { showPrices: false, hideSold: true, gtmHeadCode: '<script>gtm</script>' },
    });
    const f = await createFloor(t.app, owner.auth, p._id);
    const open = await createUnit(t.app, owner.auth, p._id, { floor: f._id, body: { price: 123456, payableAmount: 1000 } });
    const soldName = `Sold-${randomBytes(3).toString('hex')}`;
    const sold = await createUnit(t.app, owner.auth, p._id, {
      name: soldName,
      floor: f._id,
      position: 7,
      body: { price: 999999, availability: 'sold', path: 'M0 0h10v10z' },
    });
    const served = await get(`/public/projects/${namespace}`);
    const b = served.json();
    // The sold unit is named nowhere (no id, no name): its floor keeps only its room's shape, to draw as sold.
    assert.ok(!served.body.includes(sold._id) && !served.body.includes(soldName), 'no sold unit named in the bundle');
    assert.deepEqual(b.floors[0].soldShapes, ['M0 0h10v10z']);
    // And where it stands among the floor's units (a position, which names nothing), so a page draws it in place.
    assert.deepEqual(b.floors[0].soldPositions, [7]);
    assert.deepEqual(
      b.floors[0].units.map((u: { _id: string }) => u._id),
      [open._id],
    );
    assert.equal(b.floors[0].units[0].price, undefined);
    assert.equal(b.floors[0].units[0].payableAmount, 1000);
    assert.equal(b.project.gtmHeadCode, undefined);
    await patch(`/project/${p._id}`, { gtmEnabled: true, showPrices: true, hideSold: false });
    const b2 = (await get(`/public/projects/${namespace}`)).json();
    assert.equal(b2.project.gtmHeadCode, '<script>gtm</script>');
    assert.equal(b2.floors[0].units.length, 2);
    assert.equal(b2.floors[0].units[0].price, 123456);
  });

  test('If-None-Match → 304 with no body; the ETag changes at once on a unit PATCH and when a hold lapses', async () => {
    const namespace = ns();
    const p = await createProject(t.app, owner.auth, { query: { namespace } });
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id });
    const first = await get(`/public/projects/${namespace}`);
    const etag = String(first.headers.etag);
    const revalidated = await get(`/public/projects/${namespace}`, { 'if-none-match': etag });
    assert.equal(revalidated.statusCode, 304);
    assert.equal(revalidated.body, '');

    assert.equal((await patch(`/units/${u._id}`, { availability: 'on_hold', onHoldExpiresAt: new Date(clock.now() + 60_000).toISOString() })).statusCode, 200);
    const afterPatch = await get(`/public/projects/${namespace}`, { 'if-none-match': etag });
    assert.equal(afterPatch.statusCode, 200);
    assert.equal(afterPatch.json().floors[0].units[0].availability, 'on_hold');
    const heldEtag = String(afterPatch.headers.etag);
    assert.notEqual(heldEtag, etag);

    clock.advance(61_000);
    const lapsed = await get(`/public/projects/${namespace}`, { 'if-none-match': heldEtag });
    assert.equal(lapsed.statusCode, 200, 'a lapsed hold changes the ETag with no write');
    assert.equal(lapsed.json().floors[0].units[0].availability, 'available');
    assert.equal(lapsed.json().floors[0].units[0].onHoldExpiresAt, undefined);
  });

  test('compressed when the client takes it: brotli before gzip, made once per version, each coding its own ETag', async () => {
    const namespace = ns();
    const p = await createProject(t.app, owner.auth, { query: { namespace } });
    const f = await createFloor(t.app, owner.auth, p._id);
    await createUnit(t.app, owner.auth, p._id, { floor: f._id, body: { price: 400000 } });
    const url = `/public/projects/${namespace}`;
    const plain = await get(url);
    assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: the JSON as it is');
    assert.match(String(plain.headers.vary), /Accept-Encoding/);
    const etag = String(plain.headers.etag);

    const br = await get(url, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body);
    assert.equal(br.headers.etag, etag.replace(/"$/, '-br"'));
    assert.deepEqual((await get(url, { 'accept-encoding': 'br' })).rawPayload, br.rawPayload, 'the kept copy, byte for byte');

    const gz = await get(url, { 'accept-encoding': 'br;q=0, gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip', 'a coding refused with q=0 is not used');
    assert.equal(gunzipSync(gz.rawPayload).toString(), plain.body);
    assert.equal(gz.headers.etag, etag.replace(/"$/, '-gzip"'));

    // Any coding's validator of the current version revalidates, and the 304 names the coding asked for now.
    for (const held of [etag, String(br.headers.etag), String(gz.headers.etag)]) {
      const again = await get(url, { 'accept-encoding': 'br', 'if-none-match': held });
      assert.equal(again.statusCode, 304, held);
      assert.equal(again.headers.etag, br.headers.etag);
    }
    await patch(`/project/${p._id}`, { colorBase: '#203040' });
    const changed = await get(url, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
    assert.equal(changed.statusCode, 200, 'a new version is sent compressed again');
    assert.equal(JSON.parse(brotliDecompressSync(changed.rawPayload).toString()).project.colorBase, '#203040');
  });

  test('a project change (settings) changes the ETag too; unknown namespace → 404 problem', async () => {
    const namespace = ns();
    const p = await createProject(t.app, owner.auth, { query: { namespace } });
    const etag = String((await get(`/public/projects/${namespace}`)).headers.etag);
    await patch(`/project/${p._id}`, { colorAccent: '#abcdef' });
    const res = await get(`/public/projects/${namespace}`, { 'if-none-match': etag });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().project.colorAccent, '#abcdef');
    const missing = await get(`/public/projects/${ns()}`);
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['content-type'], 'application/problem+json; charset=utf-8');
  });

  test('the same bundle by host name (any case); previewMode is served privately and never cached', async () => {
    const namespace = ns();
    const host = `${namespace}.homes.example.com`;
    const p = await createProject(t.app, owner.auth, { query: { namespace, hostName: host } });
    const byHost = await get(`/public/hosts/${host.toUpperCase()}`);
    assert.equal(byHost.statusCode, 200);
    assert.equal(byHost.json().project._id, p._id);
    assert.equal(byHost.headers.etag, (await get(`/public/projects/${namespace}`)).headers.etag);
    await patch(`/project/${p._id}`, { previewMode: true });
    const preview = await get(`/public/projects/${namespace}`);
    assert.equal(preview.statusCode, 200);
    assert.equal(preview.headers['cache-control'], 'private, no-store');
    assert.equal(preview.headers['x-robots-tag'], 'noindex');
  });

  test('CORS preflight for the public API is open to any origin', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/public/leads',
      headers: {
        origin: 'https://homes.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,idempotency-key',
      },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
  });

  test("a namespace or host name passed to a new project never revalidates the old project's bundle", async () => {
    const namespace = ns();
    const host = `${namespace}.homes.example.com`;
    const first = await createProject(t.app, owner.auth, { name: 'First', query: { namespace, hostName: host } });
    const old = await get(`/public/projects/${namespace}`);
    const oldByHost = await get(`/public/hosts/${host}`);
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/project/${first._id}`, headers: owner.auth })).statusCode, 204);
    assert.equal((await get(`/public/projects/${namespace}`, { 'if-none-match': String(old.headers.etag) })).statusCode, 404);
    // The new project has had exactly as many writes as the old one: only the identity tells them apart.
    const second = await createProject(t.app, owner.auth, { name: 'Second', query: { namespace, hostName: host } });
    const res = await get(`/public/projects/${namespace}`, { 'if-none-match': String(old.headers.etag) });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().project._id, second._id);
    assert.equal(res.json().project.name, 'Second');
    assert.equal((await get(`/public/hosts/${host}`, { 'if-none-match': String(oldByHost.headers.etag) })).statusCode, 200);
  });

  test('a page on another origin can read the ETag (exposed by CORS), on 200 and 304 alike', async () => {
    const namespace = ns();
    await createProject(t.app, owner.auth, { query: { namespace } });
    const origin = { origin: 'https://homes.example.com' };
    const full = await get(`/public/projects/${namespace}`, origin);
    const again = await get(`/public/projects/${namespace}`, { ...origin, 'if-none-match': String(full.headers.etag) });
    for (const res of [full, again]) {
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(String(res.headers['access-control-expose-headers']), /\bETag\b/);
    }
    assert.equal(again.statusCode, 304);
    assert.equal(again.headers.etag, full.headers.etag);
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: `/public/projects/${namespace}`,
      headers: { ...origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.match(String(preflight.headers['access-control-allow-headers']), /if-none-match/i);
  });
});
