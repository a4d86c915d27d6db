import { sql } from 'kysely';
import type { SecretBox } from '../lib/secret-box.ts';
import type { Db } from './db.ts';

/**
 * The second half of a SECRET_KEY change: every stored secret still sealed under the retiring key (SECRET_KEY_PREVIOUS)
 * is sealed again under the new one, each row in its own short statement, guarded by the value read so a write meanwhile
 * wins. Records keep their version: the secret's meaning did not change. Runs at start while SECRET_KEY_PREVIOUS is set;
 * answers how many values were sealed again. Values that live for hours only (queued mail, an idempotent answer's hold
 * token) are not rewritten; they open with the retiring key until they expire.
 */
export async function resealSecrets(db: Db, box: SecretBox): Promise<number> {
  let count = 0;
  for (const table of ['users', 'projects'] as const) {
    const rows = await sql<{ id: string; secrets: Record<string, string> }>`select id, secrets from ${sql.table(table)} where secrets <> '{}'::jsonb`.execute(
      db.kysely,
    );
    for (const row of rows.rows) {
      const next: Record<string, string> = {};
      for (const [name, sealed] of Object.entries(row.secrets)) {
        const again = box.reseal(sealed);
        if (again !== undefined) next[name] = again;
      }
      const names = Object.keys(next);
      if (!names.length) continue;
      await sql`update ${sql.table(table)} set secrets = secrets || ${JSON.stringify(next)}::jsonb where id = ${row.id} and secrets = ${JSON.stringify(row.secrets)}::jsonb`.execute(
        db.kysely,
      );
      count += names.length;
    }
  }
  const hooks = await sql<{ id: string; secret: string }>`select id, secret from webhooks`.execute(db.kysely);
  for (const hook of hooks.rows) {
    const again = box.reseal(hook.secret);
    if (again === undefined) continue;
    await sql`update webhooks set secret = ${again} where id = ${hook.id} and secret = ${hook.secret}`.execute(db.kysely);
    count += 1;
  }
  return count;
}
