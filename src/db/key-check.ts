import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from './db.ts';

/** Thrown at start when SECRET_KEY is not the key this database's secrets were sealed with. */
export class KeyMismatchError extends Error {}

const CHECK_TEXT = 'showsuite secret key check v1';

/** The stored check value of a key: an HMAC of a fixed text, so it reveals nothing about the key. */
export const keyCheckValue = (key: Buffer) => createHmac('sha256', key).update(CHECK_TEXT).digest('hex');

/**
 * Compares SECRET_KEY with the check value stored at the database's first start (storing it when there is none yet;
 * nodes starting together agree on the first one written). A different key → KeyMismatchError naming the setting.
 */
export async function checkSecretKey(db: Db, key: Buffer): Promise<void> {
  const value = keyCheckValue(key);
  await sql`insert into key_checks (name, check_value) values ('SECRET_KEY', ${value}) on conflict (name) do nothing`.execute(db.kysely);
  const stored = await sql<{ check_value: string }>`select check_value from key_checks where name = 'SECRET_KEY'`.execute(db.kysely);
  if (stored.rows[0]?.check_value !== value) {
    throw new KeyMismatchError(
      'SECRET_KEY is not the key this database was first started with: its stored secrets (feed passwords, webhook ' +
        'secrets, allocation passwords…) could not be read. Start with the SECRET_KEY kept with this database (or its ' +
        'DATA_DIR/secrets.json); refusing to start. See docs/deploy.md#backup-and-restore.',
    );
  }
}
