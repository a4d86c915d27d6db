import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface Received {
  /** Envelope recipients (RCPT TO). */
  rcptTo: string[];
  mailFrom: string;
  raw: Buffer;
  parsed: ParsedMail;
}

/**
 * A real SMTP server on a loopback port (the `smtp-server` package) that keeps what it receives, parsed with
 * `mailparser`. `down()` closes the port (connections refused) and `up()` opens the same port again. With `hold`,
 * a message it picks gets no answer to its DATA (the sender's attempt stays in flight) until `release` says so.
 */
export async function startSmtp(opts: { user?: string; pass?: string; hold?: (rcptTo: string[]) => boolean } = {}) {
  const received: Received[] = [];
  const held: { rcptTo: string[]; accept: () => void }[] = [];
  const heldWaiters: { n: number; resolve: () => void }[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  /** Parses and keeps one message, then tells the client it was accepted. */
  async function keep(raw: Buffer, session: SMTPServerSession, cb: (err?: Error | null) => void) {
    const parsed = await simpleParser(raw);
    received.push({
      raw,
      parsed,
      mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
      rcptTo: session.envelope.rcptTo.map((r) => r.address),
    });
    for (const w of [...waiters]) {
      if (received.length >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
    cb();
  }
  const make = () =>
    new SMTPServer({
      disabledCommands: opts.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      allowInsecureAuth: true,
      authOptional: !opts.user,
      logger: false,
      // Idle pooled client connections are cut at close instead of holding it for 30 s.
      closeTimeout: 100,
      onAuth(auth, _session, cb) {
        if (auth.username === opts.user && auth.password === opts.pass) return cb(null, { user: auth.username });
        return cb(new Error('bad credentials'));
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const accept = () => {
            keep(Buffer.concat(chunks), session, cb).catch((err: unknown) => {
              cb(err instanceof Error ? err : new Error(String(err)));
            });
          };
          const rcptTo = session.envelope.rcptTo.map((r) => r.address);
          if (!opts.hold?.(rcptTo)) return accept();
          held.push({ rcptTo, accept });
          for (const w of heldWaiters.filter((x) => held.length >= x.n)) {
            heldWaiters.splice(heldWaiters.indexOf(w), 1);
            w.resolve();
          }
        });
      },
    });
  let server = make();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  const auth = opts.user ? `${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.pass ?? '')}@` : '';
  return {
    port,
    url: `smtp://${auth}127.0.0.1:${port}`,
    received,
    /** Resolves once `n` messages in all have arrived (fails after `timeoutMs`: a bound, not a timing). */
    waitFor(n: number, timeoutMs = 30_000): Promise<void> {
      if (received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${n} messages, got ${received.length}`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    /** Resolves once `n` messages are being held. */
    waitForHeld(n: number): Promise<void> {
      if (held.length >= n) return Promise.resolve();
      return new Promise((resolve) => heldWaiters.push({ n, resolve }));
    },
    /** Answers (accepts) the held messages to these recipients. */
    release(rcpt: string) {
      for (const h of held.filter((x) => x.rcptTo.includes(rcpt))) {
        held.splice(held.indexOf(h), 1);
        h.accept();
      }
    },
    async down() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async up() {
      server = make();
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    stop() {
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Smtp = Awaited<ReturnType<typeof startSmtp>>;
