import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider for the tests (oidc-provider, with its development login and consent pages) on this
 * machine: one client, `showsuite`, whose answers go to `redirectUri`. The login typed on its page is the account and
 * its e-mail; `unverified-<address>` has no verified address.
 */
export function startProvider(port: number, redirectUri: string): { issuer: string; clientId: string; clientSecret: string; server: Server } {
  const issuer = `http://127.0.0.1:${port}`;
  const clientSecret = 'a-client-secret-for-tests';
  const provider = new Provider(issuer, {
    clients: [
      { client_id: 'showsuite', client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({
        sub: id,
        email: id.replace(/^unverified-/, ''),
        email_verified: !id.startsWith('unverified-'),
        given_name: 'Ada',
        family_name: 'Byron',
      }),
    }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    features: { devInteractions: { enabled: true } },
  });
  return { issuer, clientId: 'showsuite', clientSecret, server: provider.listen(port) };
}

/**
 * A browser at the provider: from the authorization address the service sent it to, through the login page (as
 * `login`) and the consent page, until the provider sends it back to `back`; that address, with its code and state.
 */
export async function throughProvider(authorization: string, login: string, back: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const header = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const take = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const i = pair.indexOf('=');
      cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  };
  let next = new URL(authorization);
  for (let hop = 0; hop < 12 && !next.href.startsWith(back); hop++) {
    let res = await fetch(next, { redirect: 'manual', headers: { cookie: header() } });
    take(res);
    if (res.status === 200 && /\/interaction\//.test(next.pathname)) {
      const html = await res.text();
      const body: Record<string, string> = /name="prompt" value="login"/.test(html) ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' };
      res = await fetch(next, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body).toString(),
      });
      take(res);
    }
    assert.ok(res.status >= 300 && res.status < 400, `${next.href} → ${res.status}`);
    next = new URL(String(res.headers.get('location')), next);
  }
  assert.ok(next.href.startsWith(back), next.href);
  return next;
}
