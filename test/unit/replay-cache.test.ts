import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PublicEventRow } from '../../src/public/public.repo.ts';
import { ReplayCache, type ReplaySource } from '../../src/public/replay-cache.ts';

/** A log of price changes of one unit, as the log read returns them, and a source that counts its reads. */
function fakeLog(events: number, page = 100) {
  const log: PublicEventRow[] = [];
  const add = (type = 'unit.updated', changes: Record<string, unknown> = { price: [log.length, log.length + 1] }) =>
    log.push({ seq: log.length + 1, type, data: { _id: 'u1', changes }, show_prices: true, hide_sold: false, subject_availability: 'available' });
  for (let i = 0; i < events; i++) add();
  const reads = { rows: 0, allocated: 0 };
  const source: ReplaySource = {
    rows: async (_projectId, after, upTo) => {
      reads.rows += 1;
      await new Promise((resolve) => setImmediate(resolve));
      return log.filter((r) => Number(r.seq) > after && Number(r.seq) <= upTo).slice(0, page);
    },
    allocated: async () => {
      reads.allocated += 1;
      return new Set();
    },
  };
  return { log, add, reads, source };
}

const seqs = (frames: string[] | undefined) => (frames ?? []).map((f) => Number(/^id: (\d+)$/m.exec(f)?.[1]));

test('many replays of one project at once share one read of the log; later ones read nothing', async () => {
  const { reads, source } = fakeLog(1000);
  const cache = new ReplayCache(source, 1000, 1 << 20);
  const all = await Promise.all(Array.from({ length: 200 }, (_, i) => cache.frames('p', i, 1000)));
  assert.equal(reads.allocated, 1);
  assert.equal(reads.rows, 10, 'one load: ten pages of 100');
  all.forEach((frames, i) =>
    assert.deepEqual(
      seqs(frames),
      Array.from({ length: 1000 - i }, (_, k) => i + 1 + k),
    ),
  );
  await cache.frames('p', 500, 1000);
  assert.equal(reads.rows, 10);
  assert.ok(cache.bytes > 0);
});

test('live rows extend the frames without a read; a gap or a change of settings drops them', async () => {
  const { log, add, reads, source } = fakeLog(10);
  const cache = new ReplayCache(source, 1000, 1 << 20);
  await cache.frames('p', 0, 10);
  const loaded = reads.rows;
  add();
  add();
  cache.apply('p', 10, log.slice(10));
  assert.deepEqual(seqs(await cache.frames('p', 9, 12)), [10, 11, 12]);
  assert.equal(reads.rows, loaded, 'no read for frames the live feed brought');

  // A project change may alter how every earlier event reads: dropped, built again at the next replay.
  add('project.updated', { showPrices: [true, false] });
  cache.apply('p', 12, log.slice(12));
  assert.equal(cache.bytes, 0);
  await cache.frames('p', 0, 13);
  assert.ok(reads.rows > loaded);

  // Rows that do not follow what the frames hold (a missed notification) drop them too.
  add();
  add();
  cache.apply('p', 14, log.slice(14));
  assert.equal(cache.bytes, 0);
});

test('past its byte cap the cache lets go of the project replayed longest ago', async () => {
  const { reads, source } = fakeLog(100);
  const one = new ReplayCache(source, 1000, 1 << 20);
  await one.frames('a', 0, 100);
  const perProject = one.bytes;
  const cache = new ReplayCache(source, 1000, Math.floor(perProject * 2.5));
  for (const p of ['a', 'b', 'a', 'c']) await cache.frames(p, 0, 100);
  assert.equal(cache.bytes, perProject * 2, 'two projects fit');
  // 'b' was replayed longest ago: it went; 'a' and 'c' are still there.
  const before = reads.rows;
  await cache.frames('a', 0, 100);
  await cache.frames('c', 0, 100);
  assert.equal(reads.rows, before);
  await cache.frames('b', 0, 100);
  assert.equal(reads.rows, before + 1);
});
