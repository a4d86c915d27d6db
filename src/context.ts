import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import type { Auth } from './http/auth.ts';
import type { Counters } from './http/counters.ts';
import type { Clock } from './lib/clock.ts';
import type { Passwords } from './lib/passwords.ts';
import type { MailQueue } from './mail/mail.ts';
import type { Outbox } from './outbox/outbox.ts';
import type { SecretBox } from './lib/secret-box.ts';
import type { AuthService } from './modules/users/auth.service.ts';
import type { EventLog } from './modules/events/event-log.ts';
import type { MediaStore } from './modules/media/media.store.ts';
import type { CrmPusher } from './modules/integrations/crm-push.ts';
import type { StripeConnector } from './modules/deposits/stripe.ts';

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
  /** The durable job queue: enqueue in the write's transaction; see docs/outbox.md. */
  outbox: Outbox;
  mail: MailQueue;
  /** The change log: every write appends through it, inside its transaction. */
  events: EventLog;
  /** Where uploads and their variants live: MEDIA_DIR or an S3-compatible bucket (docs/media.md). */
  media: MediaStore;
  /** Leads to the project's CRMs, through the outbox: queue in the lead's transaction (docs/integrations.md). */
  crm: CrmPusher;
  /** Stripe, for deposits through each owner's own account; `enabled` false without STRIPE_SECRET_KEY (docs/deposits.md). */
  payments: StripeConnector;
}
