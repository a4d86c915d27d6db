import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';

/** One rendered message, as queued in the outbox (sealed) and handed to the transport. */
export interface Mail {
  to: string[];
  /** Display name for MAIL_FROM's address (the project's formsFromName); default MAIL_FROM's own name. */
  fromName?: string | undefined;
  replyTo?: string | undefined;
  subject: string;
  text: string;
  html: string;
  /** When the message was made (ms since epoch): its Date header. */
  date: number;
  /** The project whose visitor or lead the message is about: what a buyer's data export or erasure finds it by. Not sent. */
  project?: string | undefined;
  /** Files sent with the message (text: a report's CSV). */
  attachments?: { filename: string; content: string; contentType: string }[] | undefined;
}

type Transport = ReturnType<typeof nodemailer.createTransport>;

/**
 * Sends a message over SMTP (nodemailer, pooled connections) when SMTP_URL is set; otherwise writes it as
 * DATA_DIR/mail/<id>.eml, byte for byte what would have been sent, and logs its subject and recipients.
 */
export class Mailer {
  #transport: Promise<Transport> | undefined;
  readonly #dir: string;
  readonly #domain: string;

  constructor(
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
  ) {
    this.#dir = join(config.dataDir, 'mail');
    this.#domain = config.mail.from.address.split('@')[1] ?? 'localhost';
  }

  /** nodemailer is loaded, and the pool made, with the first message rather than at start. */
  #getTransport(): Promise<Transport> {
    return (this.#transport ??= import('nodemailer').then(({ default: mailer }) =>
      this.config.mail.smtpUrl
        ? mailer.createTransport({
            url: this.config.mail.smtpUrl,
            pool: true,
            maxConnections: 3,
            // Bounded well inside the outbox attempt timeout, so a hung server fails the attempt, not the worker.
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 30_000,
          })
        : mailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
    ));
  }

  get toFiles() {
    return !this.config.mail.smtpUrl;
  }

  /** Sends one message; `id` is stable across retries (Message-ID, file name), so a resend is recognisable. */
  async send(id: string, mail: Mail): Promise<void> {
    const from = this.config.mail.from;
    const transport = await this.#getTransport();
    const info: unknown = await transport.sendMail({
      messageId: `<${id}@${this.#domain}>`,
      date: new Date(mail.date),
      from: { name: mail.fromName ?? from.name, address: from.address },
      to: mail.to,
      ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      ...(mail.attachments?.length ? { attachments: mail.attachments } : {}),
    });
    if (!this.toFiles) return;
    const message = (info as { message: Buffer }).message;
    await mkdir(this.#dir, { recursive: true });
    const file = join(this.#dir, `${id}.eml`);
    // Written whole, then renamed: a reader never sees half a message, and a retry overwrites the same file.
    await writeFile(`${file}.tmp`, message);
    await rename(`${file}.tmp`, file);
    this.log.info({ to: mail.to, subject: mail.subject, file }, 'mail written to a file (no SMTP_URL set)');
  }

  close() {
    void this.#transport?.then((t) => {
      t.close();
    });
  }
}
