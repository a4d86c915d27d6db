import { test } from 'node:test';
import assert from 'node:assert/strict';
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
