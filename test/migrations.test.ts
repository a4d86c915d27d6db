import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { ENGINE, openTestDb } from './helpers.ts';

test(`a fresh ${ENGINE} database migrates, and a second run is a no-op`, async () => {
  const t = await openTestDb({ migrate: false });
  try {
    const all = listMigrations().map((m) => m.version);
    assert.ok(all.length >= 2);
    assert.deepEqual(await migrate(t.db), all);
    const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public'`.execute(t.db.kysely);
    const names = new Set(tables.rows.map((r) => r.table_name));
    for (const name of ['users', 'sessions', 'refresh_tokens', 'projects', 'floors', 'units', 'leads', 'groups', 'schema_migrations']) {
      assert.ok(names.has(name), `table ${name} exists`);
    }
    assert.deepEqual(await migrate(t.db), []);
    const applied = await sql<{ n: number }>`select count(*)::int as n from schema_migrations`.execute(t.db.kysely);
    assert.equal(applied.rows[0]!.n, all.length);
  } finally {
    await t.drop();
  }
});

test('a failing migration leaves nothing half-applied', async () => {
  const t = await openTestDb();
  try {
    const broken = [{ version: 9999, name: 'broken', sql: 'create table half_done (id int); select * from no_such_table;' }];
    await assert.rejects(() => migrate(t.db, broken));
    const exists = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_name = 'half_done'`.execute(t.db.kysely);
    assert.equal(exists.rows[0]!.n, 0);
    const recorded = await sql<{ n: number }>`select count(*)::int as n from schema_migrations where version = 9999`.execute(t.db.kysely);
    assert.equal(recorded.rows[0]!.n, 0);
  } finally {
    await t.drop();
  }
});
