import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

/** The accounts of these users that exist: their e-mail (username) and profile, for naming them to colleagues. */
export function findTeamAccounts(db: Q, ids: readonly string[]) {
  return db.selectFrom('users').select(['id', 'username', 'profile']).where('id', 'in', ids).execute();
}
