import type { FastifyInstance } from 'fastify';
import { OrphanSweeper } from '../modules/media/orphan.sweeper.ts';
import { InsightsSchedule } from '../modules/insights/insights.schedule.ts';
import { registerReports } from '../modules/insights/report.ts';
import { DepositsService } from '../modules/deposits/deposits.service.ts';
import { sweepOnce } from '../modules/holds/index.ts';
import type { LiveFeed } from '../public/live-feed.ts';
import { SESSIONS_CHANNEL } from '../modules/users/sessions.repo.ts';
import { PrivacyService } from '../modules/privacy/privacy.service.ts';
import { AuditService } from '../modules/audit/audit.service.ts';
import { BillingSchedule } from '../modules/billing/billing.schedule.ts';
import type { Services } from './services.ts';

/**
 * The node's background work, started when the app is ready (after migrations) and stopped when it closes: the live
 * feed, the outbox worker, the hold sweeper, inventory feeds, the media sweeper and insights' schedule. Each is shared
 * across nodes through the database (docs/deploy.md); tests reach them through the app's decorations.
 */
export function registerJobs(app: FastifyInstance, services: Services, feed: LiveFeed): void {
  const { ctx, redis, mailer, feedScheduler } = services;
  const { config, db, clock, outbox } = ctx;

  app.addHook('onReady', () => feed.start());
  // Open streams would keep the server from closing.
  app.addHook('preClose', () => feed.stop());

  // A deactivated account: every node stops trusting the sessions it cached for it at once (not after SESSION_CACHE_SEC).
  // After a lost connection, notices sent meanwhile are gone: every cached session is checked again.
  let stopSessions: (() => Promise<void>) | undefined;
  app.addHook('onReady', async () => {
    stopSessions = await db
      .listen(
        SESSIONS_CHANNEL,
        (userId) => {
          ctx.auth.forgetUser(userId);
        },
        () => {
          ctx.auth.forgetAllSessions();
        },
      )
      .catch((err: unknown) => {
        app.log.warn({ err }, 'not listening for ended sessions (database unavailable?); cached sessions still expire within SESSION_CACHE_SEC');
        return undefined;
      });
  });
  app.addHook('preClose', async () => {
    await stopSessions?.();
  });

  // Lapsed holds already read as available; the sweeper makes the stored rows agree (one node per interval).
  const deposits = new DepositsService(ctx);
  const sweepHolds = async () => {
    // Deposits first: a lapsed payment window is expired at Stripe (or found paid) before its hold is written back.
    await deposits.reconcile(clock.now()).catch((err: unknown) => {
      app.log.warn({ err }, 'deposit reconciliation failed');
    });
    // Priority holds the sweep offers are mailed through the outbox once it commits.
    const result = await sweepOnce(db.kysely, clock.now(), ctx.events, ctx);
    ctx.mail.wake();
    return result;
  };
  let sweeper: NodeJS.Timeout | undefined;
  if (config.limits.holdSweepSec > 0) {
    app.addHook('onReady', async () => {
      sweeper = setInterval(() => {
        sweepHolds().catch((err: unknown) => {
          app.log.warn({ err }, 'hold sweep failed');
        });
      }, config.limits.holdSweepSec * 1000);
      sweeper.unref();
    });
  }
  app.decorate('sweepHolds', sweepHolds);

  // Operations and tests reach the queue here (drain, jobs); routes use ctx.outbox.
  app.decorate('outbox', outbox);
  // A database that is down when the app starts must not stop it (503 meanwhile, recovery by itself):
  // the queue is started again every few seconds until it answers.
  let outboxRetry: NodeJS.Timeout | undefined;
  const startOutbox = async (): Promise<void> => {
    try {
      await outbox.start();
    } catch (err) {
      app.log.warn({ err }, 'outbox not started (database unavailable?); retrying in 5 s');
      outboxRetry = setTimeout(() => {
        startOutbox().catch(() => undefined);
      }, 5000);
      outboxRetry.unref();
    }
  };
  app.addHook('onReady', startOutbox);
  // Shutting down: no attempt starts from now on; those in flight get until 80% of SHUTDOWN_TIMEOUT_SEC (while
  // requests drain), then go back to the queue (onClose below), leaving the rest for closing the pool.
  let closingAt = 0;
  app.addHook('preClose', async () => {
    closingAt = Date.now();
    outbox.quiesce();
  });

  // Inventory feeds: every node ticks; one pull per project per interval across nodes (docs/inventory.md).
  app.decorate('feedScheduler', feedScheduler);
  // Unreferenced uploads: every node ticks; one sweep per interval across nodes (docs/media.md).
  const mediaSweeper = new OrphanSweeper(ctx, ctx.media, app.log);
  app.decorate('mediaSweeper', mediaSweeper);
  // Insights: weekly reports (once per project and week across nodes) and retention; every node ticks (docs/insights.md).
  registerReports(ctx, app.log);
  const insightsSchedule = new InsightsSchedule(ctx, app.log);
  app.decorate('insightsSchedule', insightsSchedule);
  // Plans (BILLING=stripe): quantity and lapse jobs through the outbox; every node ticks, each lapse is claimed once (docs/billing.md).
  const billingSchedule = new BillingSchedule(ctx, app.log);
  app.decorate('billingSchedule', billingSchedule);
  app.addHook('onReady', async () => {
    feedScheduler.start();
    mediaSweeper.start();
    insightsSchedule.start();
    billingSchedule.start();
  });

  // The audit log keeps AUDIT_RETENTION_DAYS: every node prunes hourly (the same delete twice deletes nothing more).
  const audit = new AuditService(ctx);
  // Leads older than LEADS_RETENTION_MONTHS go the same way, hourly on every node (docs/privacy.md).
  const privacy = new PrivacyService(ctx);
  const auditPruner = setInterval(
    () => {
      audit.prune().catch((err: unknown) => {
        app.log.warn({ err }, 'audit log prune failed');
      });
      privacy.pruneLeads().catch((err: unknown) => {
        app.log.warn({ err }, 'leads retention pass failed');
      });
    },
    60 * 60 * 1000,
  );
  auditPruner.unref();

  app.addHook('onClose', async () => {
    clearInterval(auditPruner);
    billingSchedule.stop();
    insightsSchedule.stop();
    mediaSweeper.stop();
    feedScheduler.stop();
    clearTimeout(outboxRetry);
    await outbox.stop(Math.max(0, closingAt + config.shutdownTimeoutSec * 800 - Date.now()));
    mailer.close();
    clearInterval(sweeper);
    redis?.disconnect();
  });
}
