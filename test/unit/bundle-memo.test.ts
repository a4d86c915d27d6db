import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BundleMemo, type CheckedProject } from '../../src/public/bundle-memo.ts';

/** A read that answers when told to, counting how often it was begun. */
function gatedRead(answer: CheckedProject | undefined) {
  let reads = 0;
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    read: async () => {
      reads += 1;
      await gate;
      return answer;
    },
    open: () => {
      open();
    },
    reads: () => reads,
  };
}

const write = (memo: BundleMemo) => memo.afterWrite({ method: 'PATCH' } as FastifyRequest, {} as FastifyReply, undefined);
const project: CheckedProject = { projectId: 'p1', published: true };

test('a crowd asking at once while nothing is remembered costs one read, and all of them get its answer', async () => {
  const memo = new BundleMemo(1000);
  const r = gatedRead(project);
  const asks = Array.from({ length: 50 }, () => memo.projects.check('ns', 0, r.read));
  r.open();
  const answers = await Promise.all(asks);
  assert.equal(r.reads(), 1);
  assert.ok(answers.every((a) => a === project));
  // Remembered afterwards, for the interval.
  const later = gatedRead({ projectId: 'p2', published: true });
  assert.equal(await memo.projects.check('ns', 999, later.read), project);
  assert.equal(later.reads(), 0);
});

test('a read begun before a write is not shared with those who ask after it', async () => {
  const memo = new BundleMemo(1000);
  const before = gatedRead(project);
  const first = memo.projects.check('ns', 0, before.read);
  await write(memo);
  const moved = { projectId: 'p1', published: false };
  const after = gatedRead(moved);
  const second = memo.projects.check('ns', 0, after.read);
  before.open();
  after.open();
  assert.equal(await first, project);
  assert.equal(await second, moved);
  assert.equal(before.reads() + after.reads(), 2);
  // What the later read found is what is remembered now.
  assert.equal(memo.projects.fresh('ns', 1), moved);
});

test('a read that began before a write and ends after the newer read does not replace what the newer one found', async () => {
  const memo = new BundleMemo(1000);
  const older = gatedRead(project);
  const first = memo.projects.check('ns', 0, older.read);
  await write(memo);
  const moved = { projectId: 'p1', published: false };
  const newer = gatedRead(moved);
  newer.open();
  assert.equal(await memo.projects.check('ns', 0, newer.read), moved);
  older.open();
  assert.equal(await first, project, 'its own caller still gets what it read');
  assert.equal(memo.projects.fresh('ns', 1), moved, 'the memo keeps the newer answer');
});

test('nothing found is not remembered, and a failed read is given to everyone who shared it, then tried again', async () => {
  const memo = new BundleMemo(1000);
  const none = gatedRead(undefined);
  none.open();
  assert.equal(await memo.projects.check('gone', 0, none.read), undefined);
  assert.equal(await memo.projects.check('gone', 0, none.read), undefined);
  assert.equal(none.reads(), 2);

  let fails = 0;
  const failing = async () => {
    fails += 1;
    await Promise.resolve();
    throw new Error('database away');
  };
  const results = await Promise.allSettled([memo.projects.check('ns', 0, failing), memo.projects.check('ns', 0, failing)]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.equal(fails, 1);
  const ok = gatedRead(project);
  ok.open();
  assert.equal(await memo.projects.check('ns', 0, ok.read), project);
  assert.equal(ok.reads(), 1);
});

test('past the interval the answer is read again', async () => {
  const memo = new BundleMemo(1000);
  const r = gatedRead(project);
  r.open();
  await memo.projects.check('ns', 0, r.read);
  await memo.projects.check('ns', 1000, r.read);
  assert.equal(r.reads(), 2);
});

test('evenIfFresh reads though the answer is fresh (its body was let go), and remembers what it read', async () => {
  const memo = new BundleMemo(1000);
  const first = gatedRead(project);
  first.open();
  await memo.projects.check('ns', 0, first.read);
  const moved = { projectId: 'p1', published: false };
  const again = gatedRead(moved);
  again.open();
  assert.equal(await memo.projects.check('ns', 10, again.read, { evenIfFresh: true }), moved);
  assert.equal(again.reads(), 1);
  assert.equal(memo.projects.fresh('ns', 11), moved);
});
