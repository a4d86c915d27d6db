import type { Kysely, Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { findProjectSignature } from './lead-mail.repo.ts';
import type { Mail, Mailer } from './mailer.ts';
import { signMail } from './templates.ts';

export const MAIL_KIND = 'mail';
/** After a failed attempt: 30 s, 1, 2, 5, 10, 30 min, then hourly until 24 h after queueing. */
export const MAIL_RETRY_DELAYS_SEC = [30, 60, 120, 300, 600, 1800, 3600] as const;

/** What a mail job carries: the rendered message, sealed (it holds links with tokens and visitors' details). */
interface MailJob {
  sealed: string;
}

/** Mail through the outbox: queued in the caller's transaction, sent by the worker with retries. */
export class MailQueue {
  constructor(
    private readonly outbox: Outbox,
    private readonly mailer: Mailer,
    private readonly secrets: SecretBox,
    private readonly log: FastifyBaseLogger,
  ) {
    outbox.register<MailJob>({
      name: MAIL_KIND,
      retryDelaysSec: MAIL_RETRY_DELAYS_SEC,
      giveUpAfterSec: 24 * 60 * 60,
      timeoutSec: 60,
      handle: async (job, info) => {
        const mail = JSON.parse(this.secrets.open(job.sealed)) as Mail | null;
        // A placeholder queued so that a request does the same work whether or not it mails (password reset).
        if (mail === null) return;
        await this.mailer.send(info.key, mail);
      },
      onGiveUp: (_job, info, error) => {
        this.log.error({ key: info.key, attempts: info.attempt, error }, 'mail not delivered within 24 hours; dropped');
      },
    });
  }

  /**
   * Queues one message in `trx` (the transaction of the change that causes it). Returns its id. A project's message
   * (one that names its `project`) is signed here with its owner's companyName, so every kind of project mail is.
   */
  async queue(trx: Transaction<Database> | Kysely<Database>, mail: Mail | null): Promise<string> {
    const signed = mail?.project ? signMail(mail, await findProjectSignature(trx, mail.project)) : mail;
    return this.outbox.enqueue(trx, MAIL_KIND, { sealed: this.secrets.seal(JSON.stringify(signed)) } satisfies MailJob);
  }

  /** After the transaction that queued mail commits: send without waiting for the next poll. */
  wake() {
    this.outbox.wake();
  }
}
