import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KEYED_LOCKS, LOCKS } from '../../src/db/locks.ts';

test('every advisory lock id is distinct', () => {
  const ids = Object.values(LOCKS);
  assert.equal(new Set(ids).size, ids.length, `duplicate lock id in ${JSON.stringify(LOCKS)}`);
  const spaces = Object.values(KEYED_LOCKS);
  assert.equal(new Set(spaces).size, spaces.length, `duplicate keyed-lock namespace in ${JSON.stringify(KEYED_LOCKS)}`);
});

test('lock ids fit the key types PostgreSQL takes', () => {
  for (const id of Object.values(LOCKS)) assert.ok(Number.isSafeInteger(id) && id > 0);
  for (const ns of Object.values(KEYED_LOCKS)) assert.ok(Number.isInteger(ns) && ns >= -(2 ** 31) && ns < 2 ** 31);
});
