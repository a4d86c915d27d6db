import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, userWithToken, type TestApp } from './helpers.ts';

/** Multipart bodies that are broken, miss their part or carry an empty file: a 400 naming what, never a 500. */
let t: TestApp;
let auth: Record<string, string>;
before(async () => {
  t = await buildTestApp();
  auth = (await userWithToken(t)).auth;
});
after(() => t.close());

const B = 'xYzBoundary42';
const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const post = (payload: string | Buffer, contentType = `multipart/form-data; boundary=${B}`) =>
  t.app.inject({ method: 'POST', url: '/media', payload, headers: { ...auth, 'content-type': contentType } });
const part = (body: string, headers = 'Content-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png') =>
  `--${B}\r\n${headers}\r\n\r\n${body}\r\n`;

describe('POST /media: malformed multipart', () => {
  test('no boundary, a body that never ends, a broken part header, garbage → 400 problem+json, never 500', async () => {
    const cases: [string, string | Buffer, string?][] = [
      ['no boundary parameter', part('x') + `--${B}--\r\n`, 'multipart/form-data'],
      ['another boundary than the header names', part('x').replaceAll(B, 'other') + '--other--\r\n'],
      ['no closing boundary', part('abc')],
      ['cut inside the part headers', `--${B}\r\nContent-Disposition: form-data; name="file"`],
      ['a part header without a colon', `--${B}\r\nthis is not a header\r\n\r\nx\r\n--${B}--\r\n`],
      ['not multipart at all inside', 'hello, world'],
      ['an empty body', ''],
    ];
    for (const [name, body, type] of cases) {
      const res = await post(body, type);
      assert.equal(res.statusCode, 400, `${name}: ${res.statusCode} ${res.body}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/, name);
      assert.equal(res.json().code, 'invalid_body', name);
      assert.ok(res.json().errors?.[0]?.path, `${name}: names the field`);
    }
  });

  test('a missing part → 400 naming file; an empty file → 400 naming file', async () => {
    const none = await post(`--${B}--\r\n`);
    assert.equal(none.statusCode, 400, none.body);
    assert.equal(none.json().errors[0].path, '/file');
    const empty = await post(part('') + `--${B}--\r\n`);
    assert.equal(empty.statusCode, 400, empty.body);
    assert.deepEqual(empty.json().errors, [{ path: '/file', message: 'is empty' }]);
  });

  test("too large → 413 naming the upload's own limit (20 MiB) in detail and maxBytes", async () => {
    const big = Buffer.concat([Buffer.from(part('').slice(0, -2)), PNG_HEAD, Buffer.alloc(20 * 1024 * 1024), Buffer.from(`\r\n--${B}--\r\n`)]);
    const res = await post(big);
    assert.equal(res.statusCode, 413, res.body);
    assert.equal(res.json().maxBytes, 20 * 1024 * 1024);
    assert.match(res.json().detail, /20 MiB/);
    assert.equal(res.json().errors[0].path, '/file');
  });
});
