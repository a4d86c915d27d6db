import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/http/errors.ts';
import { changedFields, deepEqual, parseIfMatch, SERVER_KEPT } from '../../src/modules/shared/records.ts';
import { canonicalJson } from '../../src/modules/shared/idempotency.ts';

const is412 = (e: unknown) => e instanceof AppError && e.status === 412 && e.code === 'precondition_failed';

const is400 = (e: unknown) => e instanceof AppError && e.status === 400 && e.errors?.[0]?.path === '/if-match';

test('parseIfMatch: no header → undefined; * or the current ETag listed (strong comparison) → the current version; a weak or other tag → 412; no tag at all → 400', () => {
  assert.equal(parseIfMatch(undefined, 3), undefined);
  assert.equal(parseIfMatch('*', 3), 3);
  assert.equal(parseIfMatch(' * ', 3), 3);
  assert.equal(parseIfMatch('"3"', 3), 3);
  assert.equal(parseIfMatch('"1", "3"', 3), 3);
  assert.equal(parseIfMatch('"1",W/"3",  "3"', 3), 3);
  assert.throws(
    () => parseIfMatch('W/"3"', 3),
    (e) => is412(e) && /weak tag/.test((e as AppError).detail),
    'a weak tag never matches a write',
  );
  assert.throws(() => parseIfMatch('"2"', 3), is412);
  assert.throws(() => parseIfMatch('"1", "2"', 3), is412);
  assert.throws(() => parseIfMatch('3', 3), is400, 'an unquoted version is not an ETag');
  assert.throws(() => parseIfMatch('"3', 3), is400);
  assert.throws(() => parseIfMatch('', 3), is400);
});

test('changedFields: only sent fields that differ; server-kept and undefined ignored; nested values compared by value', () => {
  const current = { _id: 'x', name: 'A', position: 1, tags: ['a', 'b'], options: { kitchen: { tabs: [{ label: 'L' }] } }, createdAt: 't' };
  assert.deepEqual(changedFields({ ...current }, current), {}, 'the record sent back whole is no change');
  assert.deepEqual(changedFields({ name: 'A', position: 2 }, current), { position: 2 });
  assert.deepEqual(changedFields({ tags: ['b', 'a'] }, current), { tags: ['b', 'a'] }, 'order of an array counts');
  assert.deepEqual(changedFields({ options: { kitchen: { tabs: [{ label: 'L' }] } } }, current), {});
  assert.deepEqual(changedFields({ options: { kitchen: { tabs: [{ label: 'M' }] } } }, current), { options: { kitchen: { tabs: [{ label: 'M' }] } } });
  assert.deepEqual(changedFields({ _id: 'y', createdAt: 'u', updatedAt: 'v', configuredSecrets: [], __v: 9 }, current), {}, 'server-kept fields');
  assert.deepEqual(changedFields({ name: undefined }, current), {});
  assert.deepEqual(changedFields({ extra: null }, current), { extra: null }, 'null for an absent field is a change here (callers decide)');
  assert.deepEqual(changedFields({ project: 'p' }, current, new Set([...SERVER_KEPT, 'project'])), {}, 'a caller-given ignore list');
});

test('deepEqual: JSON values by structure', () => {
  assert.equal(deepEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] }), true);
  assert.equal(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 }), true, 'key order does not matter');
  assert.equal(deepEqual([1, 2], [2, 1]), false);
  assert.equal(deepEqual({ a: 1 }, { a: '1' }), false);
  assert.equal(deepEqual([], {}), false);
  assert.equal(deepEqual(null, {}), false);
});

test('canonicalJson: the same body with fields in another order is the same text', () => {
  const a = canonicalJson({ lastName: 'Lee', firstName: 'Ann', questions: [{ question: 'q', answer: 'a' }] });
  const b = canonicalJson({ questions: [{ answer: 'a', question: 'q' }], firstName: 'Ann', lastName: 'Lee' });
  assert.equal(a, b);
  assert.equal(a, '{"firstName":"Ann","lastName":"Lee","questions":[{"answer":"a","question":"q"}]}');
  assert.notEqual(canonicalJson({ questions: [1, 2] }), canonicalJson({ questions: [2, 1] }), 'array order counts');
  assert.equal(canonicalJson(null), 'null');
});
