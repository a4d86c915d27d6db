import { loadConfig } from '../config.ts';
import { openDb } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';

/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded database in DATA_DIR). */
const config = loadConfig();
const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
try {
  const applied = await migrate(db);
  console.log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.close();
}
