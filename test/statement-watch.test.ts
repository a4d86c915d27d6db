// The statement watch (src/db/statement-watch.ts) reads a private field of pg's client, `_activeQuery`, to see the
// statement in progress without a timer per statement. These tests fail the day pg stops keeping it there (or
// changes what it holds), so an upgrade of pg cannot silently turn the bound on a statement's time off.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { watchStatements } from '../src/db/statement-watch.ts';
import { ENGINE, PG_ADMIN_URL } from './helpers.ts';

const skip = ENGINE !== 'postgres' ? 'pg clients only exist on PostgreSQL' : false;

test("pg keeps the statement in progress in the client's `_activeQuery`, and clears it after", { skip }, async () => {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    const seen = client as unknown as { _activeQuery?: unknown };
    assert.ok(!seen._activeQuery, 'no statement before the first');
    const running = client.query('select pg_sleep(0.2)');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(typeof seen._activeQuery, 'object', 'the statement in progress');
    assert.notEqual(seen._activeQuery, null);
    await running;
    assert.ok(!seen._activeQuery, 'cleared when it ends');
  } finally {
    await client.end();
  }
});

test('the watch ends a statement that runs past its limit, and the pool goes on with a new connection', { skip }, async () => {
  const pool = new pg.Pool({ connectionString: PG_ADMIN_URL, max: 1 });
  pool.on('error', () => {}); // the destroyed connection reports here
  const stop = watchStatements(pool, 200, 50);
  try {
    await assert.rejects(pool.query('select pg_sleep(5)'), /terminated|ended|closed/i);
    assert.deepEqual((await pool.query('select 1 as one')).rows, [{ one: 1 }]);
  } finally {
    stop();
    await pool.end();
  }
});
