import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Semaphore } from '../../src/lib/semaphore.ts';

test('at most `size` holders; a released place goes to the longest waiter, in arrival order', async () => {
  const s = new Semaphore(1);
  const first = await s.acquire(1000);
  assert.ok(first);
  const order: string[] = [];
  const a = s.acquire(10_000).then((r) => (order.push('a'), r));
  const b = s.acquire(10_000).then((r) => (order.push('b'), r));
  assert.equal(s.waiting, 2);
  first();
  first(); // a second release gives nothing back twice
  (await a)!();
  (await b)!();
  assert.deepEqual(order, ['a', 'b']);
  assert.equal(s.waiting, 0);
  // Both places were given back: one is free again at once.
  assert.ok(await s.acquire(0));
});

test('a waiter that gives up gets undefined and leaves the queue; with no wait allowed and no place, undefined at once', async () => {
  const s = new Semaphore(1);
  const held = await s.acquire(0);
  assert.ok(held);
  assert.equal(await s.acquire(0), undefined);
  assert.equal(await s.acquire(1), undefined);
  assert.equal(s.waiting, 0);
  held();
  assert.ok(await s.acquire(0));
});
