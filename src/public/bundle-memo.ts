import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * How long a node answers a bundle from what it last checked without asking the database again. Within the
 * contract's 5 s freshness budget with room to spare; writes this node answers take effect at once (below).
 */
export const BUNDLE_RECHECK_MS = 1000;
/** Past this many remembered addresses the memo starts over (it holds no bodies, only what names them). */
const MAX_ENTRIES = 10_000;
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a check of a namespace found that the live feed's open needs: which project, and whether it is out. */
export interface CheckedProject {
  projectId: string;
  /** false: a draft, answered only with its preview token. */
  published: boolean;
}

/** What a check of a bundle's address found. */
export interface CheckedBundle extends CheckedProject {
  etag: string;
  preview: boolean;
}

/**
 * The public bundle's hot path (docs/performance.md): which project and ETag a namespace or host name answered with
 * when last checked, so a launch-day crowd on one bundle costs one database read per BUNDLE_RECHECK_MS per node
 * instead of one per request (requests that come while that read runs wait for it and share it, the body it builds
 * with it). The bytes stay in BundleCache, keyed by that ETag. The live feed's opens remember
 * which project a namespace names the same way (`projects`): a crowd of streams opening costs no more reads than a
 * crowd fetching the bundle.
 *
 * Fresh on every node: an entry is trusted for BUNDLE_RECHECK_MS at most (a write on another node, a hold lapsing);
 * any write this node answers (every non-GET request, counted before its answer is sent, so after it committed)
 * makes every entry be checked again at its next use. On the embedded database every write goes through this
 * process, so only a hold lapsing waits for the interval.
 */
export class BundleMemo {
  #generation = 0;
  /** By bundle address: what the bundle answered with. */
  readonly bundles: Checks<CheckedBundle>;
  /** By namespace: the project the live feed opened. */
  readonly projects: Checks<CheckedProject>;

  constructor(recheckMs = BUNDLE_RECHECK_MS) {
    const generation = () => this.#generation;
    this.bundles = new Checks(generation, recheckMs);
    this.projects = new Checks(generation, recheckMs);
  }

  /** onSend hook of the whole app: a write is about to be answered. */
  afterWrite = async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
    if (!READS.has(request.method)) this.#generation++;
    return payload;
  };

  /** The generation to stamp on what a check is about to read (taken before the read, so a write during it counts). */
  get generation() {
    return this.#generation;
  }
}

/** Checks of one kind, each trusted while no write came after it and for at most `recheckMs`. */
class Checks<T extends CheckedProject> {
  readonly #entries = new Map<string, { checked: T; checkedAt: number; generation: number }>();
  /** Reads under way, by key: callers that find none fresh while one runs (and no write came since it began) share it. */
  readonly #reading = new Map<string, { generation: number; read: Promise<T | undefined> }>();

  constructor(
    private readonly generation: () => number,
    private readonly recheckMs: number,
  ) {}

  /** What `key` answered with, while that is still to be trusted at `now`. */
  fresh(key: string, now: number): T | undefined {
    const e = this.#entries.get(key);
    if (!e || e.generation !== this.generation() || now < e.checkedAt || now - e.checkedAt >= this.recheckMs) return undefined;
    return e.checked;
  }

  /**
   * What `key` answers with: remembered, or read by `read` once however many ask at the same moment (a crowd of
   * streams opening right after a write costs one read, not one each). A read begun before the last write is not
   * shared with those who ask after it. Undefined (nothing there) is not remembered. `evenIfFresh`: read (or join a
   * read under way) though what is remembered is still fresh.
   */
  check(key: string, now: number, read: () => Promise<T | undefined>, opts: { evenIfFresh?: boolean } = {}): Promise<T | undefined> {
    const fresh = opts.evenIfFresh ? undefined : this.fresh(key, now);
    if (fresh) return Promise.resolve(fresh);
    const generation = this.generation();
    const running = this.#reading.get(key);
    if (running?.generation === generation) return running.read;
    const job = {
      generation,
      read: read()
        .then((checked) => {
          if (checked) this.remember(key, checked, now, generation);
          return checked;
        })
        .finally(() => {
          if (this.#reading.get(key) === job) this.#reading.delete(key);
        }),
    };
    this.#reading.set(key, job);
    return job.read;
  }

  /** Remembers what a check begun at `generation` read. */
  remember(key: string, checked: T, now: number, generation: number) {
    // A read that began before a later write and ended after a newer read does not replace what that one found.
    const kept = this.#entries.get(key);
    if (kept && kept.generation > generation) return;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, { checked, checkedAt: now, generation });
  }
}
