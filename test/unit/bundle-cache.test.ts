import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BundleCache } from '../../src/public/bundle.ts';

test('the bundle cache keeps one version per project, evicts the least recently used past its byte bound', () => {
  const cache = new BundleCache(10);
  cache.set('a', '"1"', 'aaaa');
  cache.set('a', '"2"', 'AAAA');
  assert.equal(cache.get('a', '"1"'), undefined, 'an older version of the same project is dropped');
  assert.equal(cache.get('a', '"2"'), 'AAAA');
  cache.set('b', '"1"', 'bbbb');
  assert.equal(cache.get('a', '"2"'), 'AAAA', 'touching a moves it to the back');
  cache.set('c', '"1"', 'cccc');
  assert.equal(cache.get('b', '"1"'), undefined, 'b was least recently used');
  assert.equal(cache.get('a', '"2"'), 'AAAA');
  assert.equal(cache.get('c', '"1"'), 'cccc');
  cache.set('d', '"1"', 'x'.repeat(11));
  assert.equal(cache.get('d', '"1"'), undefined, 'a body larger than the bound is not kept');
});
