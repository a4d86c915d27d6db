// Hot-path queries (src/db/prepared.ts) are compiled once and, on PostgreSQL, go out as named statements that the
// server plans once per connection; other queries stay unnamed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { openDb, type Db } from '../src/db/db.ts';
import { namedStatement } from '../src/db/prepared.ts';
import { ENGINE, openTestDb, type TestDb } from './helpers.ts';

let t: TestDb;
let one: Db;
before(async () => {
  t = await openTestDb({ migrate: false });
  // One connection, so the statement list read afterwards is that of the connection that ran the query.
  one = t.url ? await openDb({ databaseUrl: t.url, poolSize: 1 }) : t.db;
});
after(async () => {
  if (one !== t.db) await one.close();
  await t.drop();
});

const double = namedStatement((db, v: { n: number }) => db.selectNoFrom(sql<number>`${v.n}::int * 2`.as('twice')));

test('a named statement answers with the parameters of each call', async () => {
  assert.deepEqual(await double(one.kysely, { n: 21 }), [{ twice: 42 }]);
  assert.deepEqual(await double(one.kysely, { n: 5 }), [{ twice: 10 }]);
});

test('on PostgreSQL it is one named statement on the connection; an ordinary query is not named', { skip: ENGINE !== 'postgres' }, async () => {
  await double(one.kysely, { n: 1 });
  await sql`select 1`.execute(one.kysely);
  const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(one.kysely);
  assert.equal(rows.length, 1, JSON.stringify(rows));
  assert.match(rows[0]!.name, /^showsuite_\d+$/);
  assert.match(rows[0]!.statement, /\* 2/);
});

test('inside a transaction through Kysely, a named statement is still the named statement of its connection', { skip: ENGINE !== 'postgres' }, async () => {
  const plus = namedStatement((db, v: { n: number }) => db.selectNoFrom(sql<number>`${v.n}::int + 3`.as('more')));
  const count = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where statement like '%+ 3%'`.execute(one.kysely)).rows[0]!.n;
  assert.equal(await count(), 0, 'not named before it runs');
  await one.kysely.transaction().execute(async (trx) => {
    assert.deepEqual(await plus(trx, { n: 2 }), [{ more: 5 }]);
    assert.deepEqual(await plus(trx, { n: 7 }), [{ more: 10 }]);
  });
  assert.deepEqual(await plus(one.kysely, { n: 1 }), [{ more: 4 }]);
  assert.equal(await count(), 1, 'one named statement for every call, in the transaction and on the pool');
});

// One builder, two shapes; values used twice and in another order than given; a shape built once and reused.
const pick = namedStatement((db, v: { a: number; b: number; c: string }, s: { withC: boolean }) =>
  db.selectNoFrom([
    sql<number>`${v.b}::int - ${v.a}::int`.as('diff'),
    sql<number>`${v.a}::int * ${v.a}::int`.as('square'),
    s.withC ? sql<string>`${v.c}::text`.as('c') : sql<null>`null`.as('c'),
  ]),
);

test("a shaped query puts each call's values in the places of their placeholders, per shape", async () => {
  assert.deepEqual(await pick(one.kysely, { a: 2, b: 10, c: 'x' }, { withC: true }), [{ diff: 8, square: 4, c: 'x' }]);
  assert.deepEqual(await pick(one.kysely, { a: 5, b: 1, c: 'y' }, { withC: true }), [{ diff: -4, square: 25, c: 'y' }]);
  assert.deepEqual(await pick(one.kysely, { a: 3, b: 4, c: 'unused' }, { withC: false }), [{ diff: 1, square: 9, c: null }]);
  if (ENGINE === 'postgres') {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where statement like '%* $%'`.execute(one.kysely);
    assert.equal(rows[0]!.n, 2, 'one named statement per shape');
  }
});

test('a builder that puts a value of its own in a shaped query is refused (the text must come from the shape alone)', async () => {
  const bad = namedStatement((db, v: { a: number }) => db.selectNoFrom([sql<number>`${v.a}::int + ${7}::int`.as('n')]));
  await assert.rejects(bad(one.kysely, { a: 1 }), /not one of the placeholders/);
});

test('inside a transaction a named statement runs on the transaction, not on the pool (it sees what the transaction wrote)', async () => {
  // Fresh table of this test; the prepared read counts its rows.
  await sql`create table prepared_probe (n int)`.execute(t.db.kysely);
  const count = namedStatement((db, v: { min: number }) =>
    db.selectNoFrom(sql<number>`(select count(*)::int from prepared_probe where n >= ${v.min})`.as('n')),
  );
  try {
    await t.db.kysely.transaction().execute(async (trx) => {
      await sql`insert into prepared_probe values (1), (2)`.execute(trx);
      assert.deepEqual(await count(trx, { min: 0 }), [{ n: 2 }], 'the transaction reads its own rows');
      if (ENGINE === 'postgres') assert.deepEqual(await count(t.db.kysely, { min: 0 }), [{ n: 0 }], 'the pool does not see them before commit');
    });
    assert.deepEqual(await count(t.db.kysely, { min: 0 }), [{ n: 2 }], 'after commit the pool does');
    assert.deepEqual(await count(t.db.kysely, { min: 2 }), [{ n: 1 }]);
  } finally {
    await sql`drop table prepared_probe`.execute(t.db.kysely);
  }
});

test('a statement that fails on the pool fails with its SQLSTATE, as through Kysely', async () => {
  const divide = namedStatement((db, v: { n: number }) => db.selectNoFrom(sql<number>`1 / ${v.n}::int`.as('q')));
  await assert.rejects(divide(t.db.kysely, { n: 0 }), (err: { code?: string }) => err.code === '22012');
  assert.deepEqual(await divide(t.db.kysely, { n: 1 }), [{ q: 1 }]);
});
