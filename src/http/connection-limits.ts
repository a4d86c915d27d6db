import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from '../lib/client-key.ts';
import { problem, type ErrorCode } from './errors.ts';

/** How long a refused client is asked to wait before connecting again. */
const RETRY_AFTER_SEC = 10;

export interface ConnectionBounds {
  /** Open connections per client address (an IPv6 client by its /64); undefined: no per-address bound. */
  perClient: number | undefined;
  /** Open connections on this node. */
  max: number;
}

/**
 * Bounds on open TCP connections, counted before Node's HTTP parser sees a byte: each connection holds a file
 * descriptor from the moment it is accepted, so one address opening thousands of idle or half-sent connections would
 * otherwise use up the node's descriptors and leave nothing for `/health` or anyone else. A connection over a bound
 * gets a problem+json answer written on the socket (429 over the address's bound, 503 over the node's, both with
 * Retry-After) and is closed; no request on it reaches the application.
 *
 * The address is the socket's peer: the bound works before any header is read, so `X-Forwarded-For` cannot be
 * consulted. Behind a proxy (TRUST_PROXY) every connection comes from the proxy, so only the node's bound applies and
 * the proxy bounds each visitor (docs/deploy.md).
 */
export class ConnectionLimits {
  readonly #byClient = new Map<string, number>();
  #open = 0;
  readonly #refused = { client: 0, node: 0 };

  constructor(private readonly bounds: ConnectionBounds) {}

  /** Connections open on this node now (refused ones not counted). */
  get open(): number {
    return this.#open;
  }

  /** Connections refused since the start, by the bound that refused them. */
  get refused(): Readonly<{ client: number; node: number }> {
    return this.#refused;
  }

  /** Puts the bounds in front of the server's own connection handling (its HTTP parser). */
  install(server: Server): void {
    const handlers = server.listeners('connection') as ((socket: Socket) => void)[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      if (!this.#admit(socket)) return;
      for (const handler of handlers) handler.call(server, socket);
    });
  }

  #admit(socket: Socket): boolean {
    const key = clientKey(socket.remoteAddress ?? 'unknown');
    const mine = this.#byClient.get(key) ?? 0;
    const { perClient, max } = this.bounds;
    if (perClient !== undefined && mine >= perClient) {
      this.#refused.client += 1;
      refuse(socket, 'rate_limited', `This address has ${perClient} connections open, the most one client may (CONNECTIONS_PER_CLIENT)`);
      return false;
    }
    if (this.#open >= max) {
      this.#refused.node += 1;
      refuse(socket, 'too_many_connections', `This node has ${max} connections open, its most (MAX_CONNECTIONS)`);
      return false;
    }
    this.#byClient.set(key, mine + 1);
    this.#open += 1;
    socket.once('close', () => {
      this.#open -= 1;
      const left = (this.#byClient.get(key) ?? 1) - 1;
      if (left > 0) this.#byClient.set(key, left);
      else this.#byClient.delete(key);
    });
    return true;
  }
}

/**
 * The answer written straight on the socket, which is then closed as soon as it is handed to the kernel: a refused
 * connection must not keep its descriptor while the client takes its time. What the client sent is read and dropped.
 */
function refuse(socket: Socket, code: ErrorCode, detail: string): void {
  socket.on('error', () => socket.destroy());
  socket.resume();
  const answer = problem(code, `${detail}; try again in ${RETRY_AFTER_SEC} s`);
  const body = JSON.stringify(answer);
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nContent-Type: application/problem+json\r\nRetry-After: ${RETRY_AFTER_SEC}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
