import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { startBuilt, sharedPostgres, type BuiltNode, type SharedPostgres } from './built.ts';
import { createUser, freePort } from './helpers.ts';
import { startProvider, throughProvider } from './support/oidc.ts';

/**
 * Single sign-on through the built server (`npm start`), where openid-client is loaded only once a sign-in starts: the
 * browser's whole round trip over real HTTP, cookies as a browser keeps them.
 */
describe('the built server: single sign-on with OpenID Connect', () => {
  let pg: SharedPostgres;
  let node: BuiltNode;
  let provider: Server;
  let issuer: string;

  before(async () => {
    pg = await sharedPostgres();
    const providerPort = await freePort();
    issuer = `http://127.0.0.1:${providerPort}`;
    const nodePort = await freePort();
    const publicUrl = `http://127.0.0.1:${nodePort}`;
    const started = startProvider(providerPort, `${publicUrl}/auth/oidc/callback`);
    provider = started.server;
    node = await startBuilt({
      port: nodePort,
      env: { DATABASE_URL: pg.url, OIDC_ISSUER: issuer, OIDC_CLIENT_ID: started.clientId, OIDC_CLIENT_SECRET: started.clientSecret },
    });
  });
  after(async () => {
    await node?.stop();
    await new Promise((resolve) => provider?.close(resolve));
    await pg?.drop();
  });

  test('start → provider → callback: signed in with the session cookie, then /users/me is that account', async () => {
    const user = await createUser(pg.db, { username: `built-sso-${Date.now()}@example.com` });
    const start = await fetch(`${node.url}/auth/oidc/login`, { redirect: 'manual' });
    assert.equal(start.status, 302, await start.text());
    const state = start.headers.getSetCookie().find((c) => c.startsWith('serviceOidc='));
    assert.ok(state, 'the state cookie');
    const back = await throughProvider(String(start.headers.get('location')), user.username, `${node.url}/auth/oidc/callback?`);
    const done = await fetch(back, { redirect: 'manual', headers: { cookie: state.split(';')[0]! } });
    assert.equal(done.status, 302, await done.text());
    assert.equal(done.headers.get('location'), '/admin');
    const session = done.headers.getSetCookie().find((c) => c.startsWith('service='));
    assert.ok(session, 'the session cookie');
    const me = await fetch(`${node.url}/users/me`, { headers: { cookie: session.split(';')[0]! } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { _id: string })._id, user.id);
  });
});
