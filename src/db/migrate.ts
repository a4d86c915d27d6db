import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Db } from './db.ts';
import { LOCKS } from './locks.ts';

const DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const MIGRATION_LOCK = LOCKS.migrate;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dir = DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f.slice(5, -4), sql: readFileSync(join(dir, f), 'utf8') }));
}

/** Applies the numbered SQL migrations not yet applied, each in its own transaction. Returns the versions applied. */
export async function migrate(db: Db, migrations = listMigrations()): Promise<number[]> {
  const applied: number[] = [];
  await db.kysely.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      // Inside the lock: two nodes creating the table at once collide even with "if not exists".
      await sql`create table if not exists schema_migrations (
        version integer primary key, name text not null, applied_at timestamptz not null default now())`.execute(conn);
      const done = await sql<{ version: number }>`select version from schema_migrations`.execute(conn);
      const have = new Set(done.rows.map((r) => r.version));
      for (const m of migrations) {
        if (have.has(m.version)) continue;
        await conn.transaction().execute(async (trx) => {
          await sql.raw(m.sql).execute(trx);
          await sql`insert into schema_migrations (version, name) values (${m.version}, ${m.name})`.execute(trx);
        });
        applied.push(m.version);
      }
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
  return applied;
}
