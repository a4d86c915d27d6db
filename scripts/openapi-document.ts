// The OpenAPI document the service serves, built on an in-memory PGlite (no server, no data dir).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDb } from '../src/db/db.ts';

/** `publicUrl` is the servers entry; without one, a placeholder that is no real host. */
export async function openapiDocument(publicUrl = 'https://showsuite.invalid'): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'showsuite-openapi-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(32).toString('hex'),
    SECRET_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    PUBLIC_URL: publicUrl,
  });
  const db = await openDb({});
  try {
    const app = await buildApp({ config, db, logger: false });
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    await app.close();
    if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
    const document: Record<string, unknown> = res.json();
    return document;
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
