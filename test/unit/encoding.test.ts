import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { chosenEncoding, compress } from '../../src/http/encoding.ts';

test('the coding chosen from Accept-Encoding: br before gzip, never one refused with q=0', () => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.1, gzip;q=1', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['BR ; Q=0 , GZIP', 'gzip'],
    ['gzip;q=0', undefined],
    ['*', 'br'],
    ['*, br;q=0', 'gzip'],
    ['*;q=0', undefined],
    ['brotli, xgzip', undefined],
  ];
  for (const [header, expected] of cases) assert.equal(chosenEncoding(header), expected, String(header));
});

test('compress gives bytes each coding decodes back to the input', async () => {
  const body = JSON.stringify({ units: Array.from({ length: 200 }, (_, i) => ({ name: `Unit ${i}`, price: 400000 + i })) });
  assert.equal(brotliDecompressSync(await compress(body, 'br')).toString(), body);
  assert.equal(gunzipSync(await compress(Buffer.from(body), 'gzip')).toString(), body);
});
