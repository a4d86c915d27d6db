// Hot-path queries (src/db/prepared.ts) are compiled once and, on PostgreSQL, go out as named statements that the
// server plans once per connection; other queries stay unnamed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { openDb, type Db } from '../src/db/db.ts';
import { prepared } from '../src/db/prepared.ts';
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

const double = prepared((db, n: number) => db.selectNoFrom(sql<number>`${n}::int * 2`.as('twice')), [0]);

test('a prepared query answers with the parameters of each call', async () => {
  assert.deepEqual(await double(one.kysely, 21), [{ twice: 42 }]);
  assert.deepEqual(await double(one.kysely, 5), [{ twice: 10 }]);
});

test('on PostgreSQL it is one named statement on the connection; an ordinary query is not named', { skip: ENGINE !== 'postgres' }, async () => {
  await double(one.kysely, 1);
  await sql`select 1`.execute(one.kysely);
  const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(one.kysely);
  assert.equal(rows.length, 1, JSON.stringify(rows));
  assert.match(rows[0]!.name, /^showsuite_\d+$/);
  assert.match(rows[0]!.statement, /\* 2/);
});
