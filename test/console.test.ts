import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, ENGINE, userWithToken, type TestApp } from './helpers.ts';

describe(`the console's own origin (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { CORS_ORIGINS: 'https://app.example' } });
  });
  after(() => t.close());

  const patch = (origin: string, host: string, token: string) =>
    t.app.inject({ method: 'PATCH', url: '/users/me', headers: { origin, host }, cookies: { service: token }, payload: { phone: '+1 555 0101' } });

  test('a cookie-authenticated change whose Origin is the host it was sent to is same-origin → 200 (http or https, any case)', async () => {
    const u = await userWithToken(t);
    for (const [origin, host] of [
      ['http://console.example:3000', 'console.example:3000'],
      ['https://Console.Example', 'console.example'],
    ] as const) {
      const res = await patch(origin, host, u.token);
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  test('another host, another port, or a look-alike → 403 csrf_rejected', async () => {
    const u = await userWithToken(t);
    for (const origin of ['http://evil.example', 'http://console.example:3001', 'http://console.example.evil.example', 'null']) {
      const res = await patch(origin, 'console.example:3000', u.token);
      assert.equal(res.statusCode, 403, `${origin}: ${res.body}`);
      assert.equal(res.json().code, 'csrf_rejected');
    }
  });
});
