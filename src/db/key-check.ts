import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from './db.ts';

/** Thrown at start when SECRET_KEY or JWT_SECRET is not the one this database's other nodes use. */
export class KeyMismatchError extends Error {}

const CHECK_TEXT = 'showsuite secret key check v1';

/** The stored check value of a key: an HMAC of a fixed text, so it reveals nothing about the key. */
export const keyCheckValue = (key: Buffer | string) => createHmac('sha256', key).update(CHECK_TEXT).digest('hex');

const WHY: Record<KeyName, string> = {
  SECRET_KEY:
    'its stored secrets (feed passwords, webhook secrets, allocation passwords…) could not be read. Start with the ' +
    'SECRET_KEY kept with this database (or its DATA_DIR/secrets.json)',
  JWT_SECRET:
    'sessions signed by one node would be refused by another, and people would be signed out at random behind a load ' +
    'balancer. Start every node with the same JWT_SECRET (or this DATA_DIR/secrets.json)',
};

type KeyName = 'SECRET_KEY' | 'JWT_SECRET';

/**
 * Compares a key with the check value stored at the database's first start (storing it when there is none yet;
 * nodes starting together agree on the first one written). During a key change the node also holds the retiring key
 * (`previous`): a stored value of that key is accepted and replaced by the new key's, so the next node to start with
 * only the new key passes. Any other key → KeyMismatchError naming the setting.
 */
export async function checkKey(db: Db, name: KeyName, key: Buffer | string, previous?: Buffer | string): Promise<void> {
  const value = keyCheckValue(key);
  await sql`insert into key_checks (name, check_value) values (${name}, ${value}) on conflict (name) do nothing`.execute(db.kysely);
  if (previous !== undefined) {
    await sql`update key_checks set check_value = ${value} where name = ${name} and check_value = ${keyCheckValue(previous)}`.execute(db.kysely);
  }
  const stored = await sql<{ check_value: string }>`select check_value from key_checks where name = ${name}`.execute(db.kysely);
  if (stored.rows[0]?.check_value !== value) {
    throw new KeyMismatchError(
      `${name} is not the key this database was first started with: ${WHY[name]}; refusing to start. ` +
        'See docs/deploy.md, "The key checks" and "Changing the keys".',
    );
  }
}

/** Both keys of a node, checked before it serves anything. */
export async function checkKeys(
  db: Db,
  config: { secretKey: Buffer; previousSecretKey?: Buffer | undefined; jwtSecret: string; previousJwtSecret?: string | undefined },
): Promise<void> {
  await checkKey(db, 'SECRET_KEY', config.secretKey, config.previousSecretKey);
  await checkKey(db, 'JWT_SECRET', config.jwtSecret, config.previousJwtSecret);
}
