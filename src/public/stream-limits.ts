import { clientKey } from '../lib/client-key.ts';
import { ERRORS } from '../http/errors.catalogue.ts';

/** How long a refused client is asked to wait before opening another stream. */
const RETRY_AFTER_SEC = 30;

/**
 * Bounds on open live-feed streams: each one holds a socket (a file descriptor) for as long as the visitor stays, so
 * one client could otherwise use up the process's descriptors and leave nothing for `/health` or anyone else.
 * At most `perClient` per client address (an IPv6 client by its /64, which one client usually holds whole) and
 * `max` on this node.
 */
export class StreamLimits {
  readonly #byClient = new Map<string, number>();
  #open = 0;

  constructor(
    private readonly perClient: number,
    private readonly max: number,
  ) {}

  /** Streams open on this node now. */
  get open() {
    return this.#open;
  }

  /** Takes a place for one stream of `address`, or throws 429; the returned release may be called any number of times. */
  take(address: string): () => void {
    const key = clientKey(address);
    const mine = this.#byClient.get(key) ?? 0;
    if (mine >= this.perClient) {
      throw refused(`This address has ${this.perClient} live-feed streams open, the most one client may (SSE_STREAMS_PER_CLIENT)`, this.perClient);
    }
    if (this.#open >= this.max) throw refused(`This node serves ${this.max} live-feed streams, its most (SSE_MAX_STREAMS)`, this.max);
    this.#byClient.set(key, mine + 1);
    this.#open += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open -= 1;
      const left = (this.#byClient.get(key) ?? 1) - 1;
      if (left > 0) this.#byClient.set(key, left);
      else this.#byClient.delete(key);
    };
  }
}

const refused = (detail: string, limit: number) =>
  ERRORS.rateLimited(`${detail}; try again later`, { headers: { 'Retry-After': String(RETRY_AFTER_SEC) }, extra: { limit } });
