import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { newObjectId } from '../lib/object-id.ts';
import { Passwords } from '../lib/passwords.ts';
import { findUserByUsername, insertUser } from '../modules/users/users.repo.ts';

export const DEMO_USERNAME = 'demo@showsuite.local';
export const DEMO_PASSWORD = 'demo-password';

/** The demo account (and, once resources exist, its presentation), created once. */
export async function seedDemo(db: Db, log: FastifyBaseLogger, config: Config) {
  let user = await findUserByUsername(db.kysely, DEMO_USERNAME);
  if (!user) {
    user = await insertUser(db.kysely, {
      id: newObjectId(),
      username: DEMO_USERNAME,
      passwordHash: await new Passwords(config.argon2).hash(DEMO_PASSWORD),
      role: 'user',
      profile: { name: 'Demo', lastName: 'Developer', companyName: 'Harbourview Developments' },
    });
  }
  log.info(`demo login: ${DEMO_USERNAME} / ${DEMO_PASSWORD}`);
}
