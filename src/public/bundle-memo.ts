import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * How long a node answers a bundle from what it last checked without asking the database again. Within the
 * contract's 5 s freshness budget with room to spare; writes this node answers take effect at once (below).
 */
export const BUNDLE_RECHECK_MS = 1000;
/** Past this many remembered addresses the memo starts over (it holds no bodies, only what names them). */
const MAX_ENTRIES = 10_000;
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface CheckedBundle {
  projectId: string;
  etag: string;
  preview: boolean;
  /** false: a draft, answered only with its preview token. */
  published: boolean;
}

interface Entry extends CheckedBundle {
  checkedAt: number;
  generation: number;
}

/**
 * The public bundle's hot path (docs/performance.md): which project and ETag a namespace or host name answered with
 * when last checked, so a launch-day crowd on one bundle costs one database read per BUNDLE_RECHECK_MS per node
 * instead of one per request. The bytes stay in BundleCache, keyed by that ETag.
 *
 * Fresh on every node: an entry is trusted for BUNDLE_RECHECK_MS at most (a write on another node, a hold lapsing);
 * any write this node answers (every non-GET request, counted before its answer is sent, so after it committed)
 * makes every entry be checked again at its next use. On the embedded database every write goes through this
 * process, so only a hold lapsing waits for the interval.
 */
export class BundleMemo {
  readonly #entries = new Map<string, Entry>();
  #generation = 0;

  constructor(private readonly recheckMs = BUNDLE_RECHECK_MS) {}

  /** onSend hook of the whole app: a write is about to be answered. */
  afterWrite = async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
    if (!READS.has(request.method)) this.#generation++;
    return payload;
  };

  /** The generation to stamp on what a check is about to read (taken before the read, so a write during it counts). */
  get generation() {
    return this.#generation;
  }

  /** What `key` answered with, while that is still to be trusted at `now`. */
  fresh(key: string, now: number): CheckedBundle | undefined {
    const e = this.#entries.get(key);
    if (!e || e.generation !== this.#generation || now < e.checkedAt || now - e.checkedAt >= this.recheckMs) return undefined;
    return e;
  }

  remember(key: string, checked: CheckedBundle, now: number, generation: number) {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, { ...checked, checkedAt: now, generation });
  }
}
