import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import { newObjectId } from './lib/object-id.ts';
import { Passwords } from './lib/passwords.ts';
import { findUserByUsername, insertUser } from './modules/users/users.repo.ts';

/** Creates the ADMIN_EMAIL administrator when it does not exist yet. Safe to run on every start, on every node. */
export async function ensureAdmin(config: Config, db: Db, log: FastifyBaseLogger) {
  if (!config.adminEmail || !config.adminPassword) return;
  if (await findUserByUsername(db.kysely, config.adminEmail)) return;
  const passwords = new Passwords(config.argon2);
  try {
    await insertUser(db.kysely, {
      id: newObjectId(),
      username: config.adminEmail,
      passwordHash: await passwords.hash(config.adminPassword),
      role: 'admin',
      profile: { name: 'Administrator' },
    });
    log.info({ username: config.adminEmail }, 'created administrator from ADMIN_EMAIL');
  } catch (err) {
    // Another node created it first.
    if ((err as { code?: string }).code !== '23505') throw err;
  }
}
