// Prints the OpenAPI document the service serves, built on an in-memory PGlite (no server, no data dir).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDb } from '../src/db/db.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'showsuite-openapi-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  JWT_SECRET: randomBytes(32).toString('hex'),
  SECRET_KEY: randomBytes(32).toString('hex'),
  LOG_LEVEL: 'silent',
  SEED_DEMO: 'false',
  // The servers entry is PUBLIC_URL; without one, a placeholder that is no real host.
  PUBLIC_URL: process.env.PUBLIC_URL ?? 'https://showsuite.invalid',
});
const db = await openDb({});
const app = await buildApp({ config, db, logger: false });
await app.ready();
const res = await app.inject({ method: 'GET', url: '/openapi.json' });
await app.close();
await db.close();
rmSync(dataDir, { recursive: true, force: true });
if (res.statusCode !== 200) {
  console.error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(res.json(), null, 2)}\n`);
