import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { Ctx } from '../context.ts';
import type { Db } from '../db/db.ts';
import { Auth } from '../http/auth.ts';
import { connectRedis, MemoryCounters, RedisCounters, redisKeyDigest, type Counters } from '../http/counters.ts';
import type { Clock } from '../lib/clock.ts';
import { Passwords } from '../lib/passwords.ts';
import { SecretBox } from '../lib/secret-box.ts';
import { MailQueue } from '../mail/mail.ts';
import { Mailer } from '../mail/mailer.ts';
import { Outbox } from '../outbox/outbox.ts';
import { EventLog } from '../modules/events/event-log.ts';
import { FeedScheduler } from '../modules/inventory/feed.scheduler.ts';
import { InventoryService } from '../modules/inventory/inventory.service.ts';
import { openMediaStore } from '../modules/media/media.store.ts';
import { findApiTokenPrincipal, touchApiToken } from '../modules/tokens/tokens.repo.ts';
import { AuthService } from '../modules/users/auth.service.ts';
import { findSessionPrincipal } from '../modules/users/sessions.repo.ts';
import { CrmPusher } from '../modules/integrations/crm-push.ts';
import { StripeConnector } from '../modules/deposits/stripe.ts';
import { WebhookDispatcher } from '../modules/webhooks/webhooks.dispatcher.ts';

/** Everything one node builds once and hands to its routes and background jobs. */
export interface Services {
  ctx: Ctx;
  /** Redis when `REDIS_URL` is set: limits and counters shared by every node. */
  redis: Redis | undefined;
  mailer: Mailer;
  /** Imports and feeds, shared by the routes and the feed scheduler. */
  inventory: InventoryService;
  feedScheduler: FeedScheduler;
  /** Webhook deliveries through the outbox, started by the event log in each event's transaction. */
  webhookDispatcher: WebhookDispatcher;
}

/** The node's services, wired together: the context route plugins receive, and what its jobs run. */
export async function buildServices(config: Config, db: Db, clock: Clock, log: FastifyBaseLogger): Promise<Services> {
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, log) : undefined;
  const counters: Counters = redis
    ? new RedisCounters(redis, `${config.redisPrefix}rl:`, redisKeyDigest(config.secretKey))
    : new MemoryCounters(() => clock.now());
  // http/ knows no module: the session and API-token look-ups are handed in here.
  const auth = new Auth(
    config,
    {
      session: (sid) => findSessionPrincipal(db.kysely, sid, new Date(clock.now())),
      apiToken: (hash, now) => findApiTokenPrincipal(db.kysely, hash, now),
      touchApiToken: (id, now, staleBefore) => touchApiToken(db.kysely, id, now, staleBefore),
    },
    clock,
  );
  const passwords = new Passwords(config.argon2);
  const secrets = new SecretBox(config.secretKey, config.previousSecretKey);
  // Kinds are registered here and by route plugins; the worker starts when the app is ready (after migrations).
  const outbox = new Outbox(db, clock, { ...config.outbox, log });
  const mailer = new Mailer(config, log);
  const ctx: Ctx = {
    config,
    db,
    clock,
    auth,
    passwords,
    counters,
    secrets,
    outbox,
    mail: new MailQueue(outbox, mailer, secrets, log),
    events: new EventLog(),
    authService: new AuthService(config, db, auth, passwords, counters, clock),
    media: await openMediaStore(config),
    crm: new CrmPusher({ db: db.kysely, clock, secrets, config, outbox, log }),
    payments: new StripeConnector(config.payments),
  };
  ctx.crm.register();
  const inventory = new InventoryService(ctx);
  const webhookDispatcher = new WebhookDispatcher({ db: db.kysely, clock, secrets, config, outbox, log });
  webhookDispatcher.register();
  ctx.events.deliverWith((trx, projectId, events, at) => webhookDispatcher.deliver(trx, projectId, events, at));
  return { ctx, redis, mailer, inventory, feedScheduler: new FeedScheduler(ctx, inventory, log), webhookDispatcher };
}
