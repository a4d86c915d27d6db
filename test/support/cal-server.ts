import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Cal.com as the tests meet it, on loopback. `CalSender` is its webhook: it builds a booking delivery as Cal.com's
 * webhooks describe it (payload version 2021-10-20: `triggerEvent`, `createdAt`, `payload` with `uid`, `startTime`,
 * `endTime`, `attendees`, `responses`, `additionalNotes`, `metadata`; `rescheduleUid` on a reschedule,
 * `cancellationReason` on a cancellation), signs the exact bytes it sends with the webhook's secret (hex HMAC-SHA256 in
 * `X-Cal-Signature-256`) and POSTs them over a real socket. `CalPages` is its booking pages: `GET /{username}` is a page
 * for the usernames it knows, 404 for any other, and a 429 with Retry-After on demand.
 */
export class CalSender {
  constructor(
    /** The bookings address: `<origin>/public/projects/<namespace>/bookings`. */
    readonly url: string,
    /** The webhook's secret as entered in Cal.com. */
    public secret: string,
  ) {}

  /** A booking's payload as Cal.com sends it; `over` replaces or adds fields. */
  static booking(over: Record<string, unknown> = {}): Record<string, unknown> {
    const start = Date.UTC(2031, 4, 25, 9, 30);
    return {
      type: 'visit',
      title: 'Visit between Sales and Ada Lovelace',
      description: '',
      additionalNotes: 'Visit of Harbour Lofts, unit A1',
      customInputs: {},
      startTime: new Date(start).toISOString().replace('.000', ''),
      endTime: new Date(start + 30 * 60_000).toISOString().replace('.000', ''),
      organizer: { id: 5, name: 'Sales', email: 'sales@example.com', username: 'harbour-sales', timeZone: 'Europe/London', language: { locale: 'en' } },
      responses: {
        name: { label: 'your_name', value: 'Ada Lovelace' },
        email: { label: 'email_address', value: 'ada@example.com' },
        attendeePhoneNumber: { label: 'phone_number', value: '+44 20 7946 0000' },
        notes: { label: 'additional_notes', value: 'Visit of Harbour Lofts, unit A1' },
      },
      userFieldsResponses: {},
      attendees: [
        { email: 'ada@example.com', name: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace', timeZone: 'Europe/London', language: { locale: 'en' } },
      ],
      location: 'Harbour Lofts sales suite',
      eventTypeId: 7,
      uid: randomBytes(16).toString('base64url'),
      bookingId: 91,
      metadata: {},
      status: 'ACCEPTED',
      ...over,
    };
  }

  /** The body Cal.com sends for `trigger` with `payload`, as bytes. */
  static body(trigger: string, payload: Record<string, unknown>): string {
    return JSON.stringify({ triggerEvent: trigger, createdAt: new Date().toISOString(), payload });
  }

  static sign(body: string, secret: string): string {
    return createHmac('sha256', secret).update(body).digest('hex');
  }

  /** Sends `body` (or the delivery of `trigger` with `payload`) signed with the secret, or with `signature` as given. */
  async send(body: string, opts: { signature?: string | null; contentType?: string } = {}) {
    const signature = opts.signature === undefined ? CalSender.sign(body, this.secret) : opts.signature;
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': opts.contentType ?? 'application/json', ...(signature === null ? {} : { 'x-cal-signature-256': signature }) },
      body,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: (text ? JSON.parse(text) : undefined) as Record<string, any> };
  }

  deliver(trigger: string, payload: Record<string, unknown>) {
    return this.send(CalSender.body(trigger, payload));
  }
}

export class CalPages {
  readonly asked: string[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #limitNext: number | undefined;

  constructor(readonly usernames: readonly string[]) {
    this.#server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://cal.test').pathname.slice(1));
      this.asked.push(path);
      if (this.#limitNext !== undefined) {
        res.writeHead(429, { 'retry-after': String(this.#limitNext), 'content-type': 'text/plain' }).end('Too Many Requests');
        this.#limitNext = undefined;
      } else if (req.method === 'GET' && this.usernames.includes(path)) {
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${path} | Cal.com</title>`);
      } else res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>404 | Cal.com</title>');
    });
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  /** The next page asked for answers 429 with `Retry-After`. */
  limitNext(retryAfterSec: number) {
    this.#limitNext = retryAfterSec;
  }

  async listen() {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    return this;
  }

  get url() {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close() {
    for (const s of this.#sockets) s.destroy();
    await new Promise((r) => this.#server.close(r));
  }
}
