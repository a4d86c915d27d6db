import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import type { Auth } from './http/auth.ts';
import type { Counters } from './http/counters.ts';
import type { Clock } from './lib/clock.ts';
import type { Passwords } from './lib/passwords.ts';
import type { SecretBox } from './lib/secret-box.ts';
import type { AuthService } from './modules/users/auth.service.ts';

/** What route plugins are handed: built once in buildApp, no globals. */
export interface Ctx {
  config: Config;
  db: Db;
  clock: Clock;
  auth: Auth;
  authService: AuthService;
  passwords: Passwords;
  counters: Counters;
  secrets: SecretBox;
}
