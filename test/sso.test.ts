import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { buildTestApp, createUser, ENGINE, freePort, userWithToken, type TestApp } from './helpers.ts';
import { startProvider, throughProvider } from './support/oidc.ts';

const PUBLIC_URL = 'http://localhost:3000';

/**
 * Single sign-on against a real OpenID Connect provider the test runs (oidc-provider, with its development login and
 * consent pages): the browser's round trip driven over HTTP, the account matched by verified e-mail, and the refusals.
 */
describe(`single sign-on with OpenID Connect (${ENGINE})`, () => {
  let issuer: string;
  let server: Server;
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof userWithToken>>;

  before(async () => {
    const provider = startProvider(await freePort(), `${PUBLIC_URL}/auth/oidc/callback`);
    issuer = provider.issuer;
    server = provider.server;
    t = await buildTestApp({
      env: {
        PUBLIC_URL,
        OIDC_ISSUER: issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_ALLOWED_DOMAINS: 'example.com',
        OUTBOX_POLL_MS: '0',
      },
    });
    admin = await userWithToken(t, { role: 'admin' });
  });
  after(async () => {
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** Starts at the service, signs in at the provider as `login`, consents; the service's answer to the callback. */
  async function signIn(login: string) {
    const start = await t.app.inject({ method: 'GET', url: '/auth/oidc/login' });
    assert.equal(start.statusCode, 302, start.body);
    const state = start.cookies.find((c) => c.name === 'serviceOidc');
    assert.ok(state?.httpOnly, 'the state cookie');
    const location = new URL(String(start.headers.location));
    assert.equal(location.origin, issuer);
    assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
    const back = await throughProvider(location.href, login, `${PUBLIC_URL}/auth/oidc/callback?`);
    return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, cookies: { serviceOidc: state.value } });
  }

  test('an account signs in by its verified e-mail: the session cookies, the console, the audit log', async () => {
    const user = await createUser(t.db, { username: `sso-${Date.now()}@example.com` });
    const res = await signIn(user.username.toUpperCase());
    assert.equal(res.statusCode, 302, res.body);
    assert.equal(res.headers.location, '/admin');
    // A client that follows the provider itself asks for the address as JSON.
    const asJson = await t.app.inject({ method: 'GET', url: '/auth/oidc/login', headers: { accept: 'application/json' } });
    assert.equal(asJson.statusCode, 200);
    assert.equal(new URL(asJson.json().url).origin, issuer);
    const session = res.cookies.find((c) => c.name === 'service');
    assert.ok(session?.value, 'the session cookie');
    const me = await t.app.inject({ method: 'GET', url: '/users/me', cookies: { service: session.value } });
    assert.equal(me.json()._id, user.id);
    const audit = await t.app.inject({ method: 'GET', url: `/audit?filters[action]=sign_in&filters[actor]=${user.id}`, headers: admin.auth });
    assert.deepEqual(
      audit.json().map((e: { detail: unknown }) => e.detail),
      [{ via: 'oidc' }],
    );
  });

  test('refused: no account and no invitation, an unverified address, another domain, a deactivated account, a forged or missing state', async () => {
    assert.equal((await signIn(`nobody-${Date.now()}@example.com`)).statusCode, 403);
    const user = await createUser(t.db, { username: `sso-u-${Date.now()}@example.com` });
    assert.equal((await signIn(`unverified-${user.username}`)).statusCode, 403);
    const outside = await createUser(t.db, { username: `sso-${Date.now()}@elsewhere.org` });
    const other = await signIn(outside.username);
    assert.equal(other.statusCode, 403);
    assert.match(other.json().detail, /elsewhere\.org/);
    const gone = await createUser(t.db, { username: `sso-d-${Date.now()}@example.com` });
    assert.equal((await t.app.inject({ method: 'PATCH', url: `/users/${gone.id}`, headers: admin.auth, payload: { active: false } })).statusCode, 200);
    const deactivated = await signIn(gone.username);
    assert.equal(deactivated.statusCode, 403);
    assert.match(deactivated.json().detail, /deactivated/);
    // The provider's answer without this browser's state, or with another's.
    assert.equal((await t.app.inject({ method: 'GET', url: '/auth/oidc/callback?code=x&state=y' })).statusCode, 400);
    assert.equal((await t.app.inject({ method: 'GET', url: '/auth/oidc/callback?code=x&state=y', cookies: { serviceOidc: 'v1.forged' } })).statusCode, 400);
  });

  test('an address with an open invitation gets its account on first sign-in', async () => {
    const owner = await userWithToken(t);
    const p = await t.app.inject({ method: 'POST', url: '/projects?name=Invited', headers: owner.auth });
    assert.equal(p.statusCode, 201, p.body);
    const email = `sso-i-${Date.now()}@example.com`;
    const invite = await t.app.inject({ method: 'POST', url: `/projects/${p.json()._id}/invites`, headers: owner.auth, payload: { email, level: 'editor' } });
    assert.equal(invite.statusCode, 201, invite.body);
    const res = await signIn(email);
    assert.equal(res.statusCode, 302, res.body);
    const me = await t.app.inject({ method: 'GET', url: '/users/me', cookies: { service: res.cookies.find((c) => c.name === 'service')!.value } });
    assert.equal(me.json().username, email);
    assert.equal(me.json().name, 'Ada');
  });
});
