import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteTurns } from '../../src/lib/write-turns.ts';

/** The turn of the event loop a callback runs in: a counter that a setImmediate chain moves on once per turn. */
function turnCounter() {
  let turn = 0;
  let on = true;
  const tick = () => {
    turn += 1;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get now() {
      return turn;
    },
    stop: () => (on = false),
  };
}

test('writes run in arrival order, at most the budget in bytes per turn of the event loop; one larger than it runs alone', async () => {
  const turns = new WriteTurns(100);
  const clock = turnCounter();
  const ran: { name: string; turn: number }[] = [];
  const write = (name: string, bytes: number) => () => {
    ran.push({ name, turn: clock.now });
    return bytes;
  };
  await Promise.all([
    turns.run(write('a', 60)),
    turns.run(write('b', 60)), // the budget is spent after b
    turns.run(write('c', 250)), // alone in its turn
    turns.run(write('d', 10)),
    turns.run(write('e', 10)),
  ]);
  clock.stop();
  assert.deepEqual(
    ran.map((r) => r.name),
    ['a', 'b', 'c', 'd', 'e'],
  );
  const turnOf = Object.fromEntries(ran.map((r) => [r.name, r.turn]));
  assert.equal(turnOf.a, turnOf.b, 'a and b share a turn (60 + 60 reaches the budget)');
  assert.ok(turnOf.c! > turnOf.b!, 'c waits for the next turn');
  assert.ok(turnOf.d! > turnOf.c!, 'd waits for the turn after c');
  assert.equal(turnOf.d, turnOf.e);
  assert.equal(turns.waiting, 0);
});

test('what the loop has to do between turns comes before the next turn (a timer due meanwhile fires between writes)', async () => {
  const turns = new WriteTurns(1);
  const order: string[] = [];
  // Each write takes 0.2 ms of the loop, one per turn: 50 turns, 10 ms.
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  const all = Array.from({ length: 50 }, (_, i) =>
    turns.run(() => {
      if (i === 0) setTimeout(() => order.push('timer'), 1);
      busy(0.2);
      order.push(`w${i}`);
      return 1;
    }),
  );
  await Promise.all(all);
  const at = order.indexOf('timer');
  assert.ok(at >= 1 && at < order.length - 1, `the timer ran between writes, not after all of them: at ${at} of ${order.length}`);
});

test('a write that throws rejects its caller; the writes after it still run', async () => {
  const turns = new WriteTurns(1000);
  const ran: string[] = [];
  const failing = turns.run(() => {
    throw new Error('socket gone');
  });
  const after = turns.run(() => (ran.push('after'), 1));
  await assert.rejects(failing, /socket gone/);
  await after;
  assert.deepEqual(ran, ['after']);
});
