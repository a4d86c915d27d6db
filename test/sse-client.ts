import { request, type ClientRequest, type IncomingMessage } from 'node:http';

export interface SseMessage {
  id?: string;
  /** The `event:` field of a named event (`refetch`); absent for a plain message. */
  event?: string;
  data: string;
}

/** A minimal Server-Sent Events reader over a real HTTP connection, for tests and the bench. */
export class SseClient {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  status = 0;
  headers: IncomingMessage['headers'] = {};
  #req: ClientRequest | undefined;
  #res: IncomingMessage | undefined;
  #buffer = '';
  #waiters: (() => void)[] = [];

  /** `localAddress`: the client address to connect from (any of 127.0.0.0/8 works on loopback). */
  static open(url: string, headers: Record<string, string> = {}, opts: { localAddress?: string } = {}): Promise<SseClient> {
    const client = new SseClient();
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { accept: 'text/event-stream', ...headers }, ...opts }, (res) => {
        client.#res = res;
        client.status = res.statusCode ?? 0;
        client.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => client.#feed(chunk));
        res.on('error', () => {});
        // Resolve once the stream has said hello (or, for an error answer, once it is read).
        if (client.status !== 200) {
          res.on('end', () => resolve(client));
        } else {
          const check = () => (client.comments.length || client.messages.length ? resolve(client) : client.#waiters.push(check));
          check();
        }
      });
      client.#req = req;
      req.on('error', reject);
      req.end();
    });
  }

  get body() {
    return this.#buffer;
  }

  #feed(chunk: string) {
    this.#buffer += chunk;
    let i: number;
    while ((i = this.#buffer.indexOf('\n\n')) >= 0) {
      const block = this.#buffer.slice(0, i);
      this.#buffer = this.#buffer.slice(i + 2);
      const msg: SseMessage = { data: '' };
      let isMessage = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('id: ')) msg.id = line.slice(4);
        else if (line.startsWith('event: ')) msg.event = line.slice(7);
        else if (line.startsWith('data: ')) {
          msg.data += line.slice(6);
          isMessage = true;
        }
      }
      if (isMessage) this.messages.push(msg);
    }
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Waits until `done` holds (re-checked on every chunk); fails after `limitMs` instead of hanging. */
  until(done: (c: SseClient) => boolean, limitMs = 30_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`SSE: condition not met; got ${JSON.stringify(this.messages)} comments ${JSON.stringify(this.comments)}`)),
        limitMs,
      );
      const check = () => {
        if (done(this)) {
          clearTimeout(timer);
          resolve();
        } else this.#waiters.push(check);
      };
      check();
    });
  }

  json<T = any>(): T[] {
    return this.messages.map((m) => JSON.parse(m.data) as T);
  }

  /** Stops reading (the server's writes back up, as for a client that reads slowly), until `resume`. */
  pause() {
    this.#res?.pause();
  }

  resume() {
    this.#res?.resume();
  }

  close() {
    this.#req?.destroy();
  }
}
