import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync } from 'node:zlib';
import { BundleCache } from '../../src/public/bundle.ts';

const b = (text: string) => Buffer.from(text);

test('the bundle cache keeps one version per project, evicts the least recently used past its byte bound', () => {
  const cache = new BundleCache(10);
  cache.set('a', '"1"', b('aaaa'));
  cache.set('a', '"2"', b('AAAA'));
  assert.equal(cache.get('a', '"1"'), undefined, 'an older version of the same project is dropped');
  assert.deepEqual(cache.get('a', '"2"'), b('AAAA'));
  cache.set('b', '"1"', b('bbbb'));
  assert.deepEqual(cache.get('a', '"2"'), b('AAAA'), 'touching a moves it to the back');
  cache.set('c', '"1"', b('cccc'));
  assert.equal(cache.get('b', '"1"'), undefined, 'b was least recently used');
  assert.deepEqual(cache.get('a', '"2"'), b('AAAA'));
  assert.deepEqual(cache.get('c', '"1"'), b('cccc'));
  cache.set('d', '"1"', b('x'.repeat(11)));
  assert.equal(cache.get('d', '"1"'), undefined, 'a body larger than the bound is not kept');
});

test('a compressed copy is made once per version (a crowd asking at once shares it), counted in the bound, and dropped with its version', async () => {
  const body = b(JSON.stringify({ units: Array.from({ length: 100 }, (_, i) => ({ name: `Unit ${i}` })) }));
  const cache = new BundleCache(body.length + 600);
  cache.set('a', '"1"', body);
  const [first, second] = await Promise.all([cache.encoded('a', '"1"', body, 'br'), cache.encoded('a', '"1"', body, 'br')]);
  assert.equal(first, second, 'one compression for concurrent requests');
  assert.equal(await cache.encoded('a', '"1"', body, 'br'), first, 'kept with the version');
  assert.deepEqual(cache.get('a', '"1"'), body, 'storing the copy keeps the version current');
  const gzip = await cache.encoded('a', '"1"', body, 'gzip');
  assert.ok(first.length + gzip.length < 600, `copies are small (${first.length} + ${gzip.length} bytes)`);
  cache.set('b', '"1"', b('x'.repeat(600 - first.length - gzip.length + 1)));
  assert.equal(cache.get('a', '"1"'), undefined, 'the copies count toward the bound: a went out to make room for b');
  const next = b(body.toString().replace('Unit 0', 'Unit zero'));
  cache.set('a', '"2"', next);
  assert.equal(brotliDecompressSync(await cache.encoded('a', '"2"', next, 'br')).toString(), next.toString(), 'a new version is compressed anew');
});
