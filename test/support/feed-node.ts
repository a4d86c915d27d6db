// One node of the feed schedule, for the two-process test: builds the app on DATABASE_URL with the injected
// time FEED_NOW, ticks the schedule FEED_TICKS times (its timer stopped) and prints what it pulled as JSON.
import { buildApp } from '../../src/app.ts';
import { openDb } from '../../src/db/db.ts';
import { testConfig } from '../helpers.ts';

const now = Number(process.env.FEED_NOW);
const db = await openDb({ databaseUrl: process.env.DATABASE_URL, poolSize: 4 });
const config = testConfig({
  INVENTORY_SYNC_MINUTES: '15',
  SECRET_KEY: process.env.FEED_SECRET_KEY!,
  INVENTORY_FTP_TIMEOUT_SEC: '5',
  ALLOW_PRIVATE_TARGETS: 'true',
});
const app = await buildApp({ config, db, logger: false, clock: { now: () => now } });
await app.ready();
app.feedScheduler.stop();
const pulled: string[] = [];
for (let i = 0; i < Number(process.env.FEED_TICKS ?? 5); i++) {
  for (const p of (await app.feedScheduler.tick()).pulled) pulled.push(`${p.project}:${p.status}`);
}
process.stdout.write(JSON.stringify(pulled));
await app.close();
await db.close();
