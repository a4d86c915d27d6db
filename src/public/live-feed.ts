import type { ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.ts';
import type { Database } from '../db/schema.ts';
import { EVENTS_CHANNEL } from '../modules/events/event-model.ts';
import { findLastEventSeq, listEventsAfter, type PublicEventRow } from './public.repo.ts';
import { listAllocatedUnits } from '../modules/allocations/allocations.repo.ts';
import { Semaphore } from '../lib/semaphore.ts';
import { WriteTurns } from '../lib/write-turns.ts';
import { maskAllocated, publicChange, refetchMessage, sseMessage, type PublicChange } from './public-change.ts';
import { ReplayCache } from './replay-cache.ts';

const PAGE = 500;
/** A replay reads this many events per turn, then lets the next replay in line have one. */
const REPLAY_PAGE = 100;
/** A replay reads its next page only once the client has taken the last ones down to this. */
const REPLAY_BUFFERED = 64 * 1024;
/** A client this far behind (slow reader) is dropped; its EventSource reconnects and resumes with Last-Event-ID. */
const MAX_BUFFERED = 1024 * 1024;
/**
 * Replayed bytes the node writes in one turn of its event loop, over all streams; the rest wait for the next turns.
 * Small, because the loop takes one new connection per turn: while replays are being written, connections waiting to
 * be accepted wait a turn each (docs/events.md).
 */
const REPLAY_BYTES_PER_TURN = 16 * 1024;

interface Stream {
  res: ServerResponse;
  /** Last seq this stream has been sent (or was told it has). */
  cursor: number;
  /** While the stream catches up on what it missed: the live messages that came meanwhile, sent once it has. */
  replay?: { held: string[] } | undefined;
}

interface Channel {
  streams: Set<Stream>;
  /** Last seq read from the log for this project. */
  cursor: number;
  /** Work on one project's streams runs one step at a time: registering a stream and fanning out live changes. */
  queue: Promise<void>;
}

/** How far back a resumed stream is replayed, and how much replaying one node does at once (docs/events.md). */
export interface ReplayBounds {
  /** A stream further behind than this many events gets `refetch` instead (0: always). */
  maxEvents: number;
  /** A replay not done this long after the stream opened ends with `refetch` (waiting for a turn counts). */
  budgetMs: number;
  /** Replays reading the log at once on this node; the others wait their turn, one page at a time. */
  concurrent: number;
  /** Bytes of ready frames the node keeps for replays (0: none; every replay reads the log). */
  cacheBytes: number;
}

/** Whether `res` has at most REPLAY_BUFFERED bytes waiting for its client by `deadline` (false: past it, or closed). */
function drained(res: ServerResponse, deadline: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.writableLength <= REPLAY_BUFFERED) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => {
      done(true);
    };
    const onClose = () => {
      done(false);
    };
    const timer = setTimeout(
      () => {
        done(false);
      },
      Math.max(0, deadline - performance.now()),
    );
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/**
 * The node's side of the public live feed: one LISTEN connection for the whole process; each committed event
 * (from any node) wakes the project's channel, which reads the new events once and writes them to every open
 * stream of that project. Streams resume from Last-Event-ID by reading the log, off that path (see `#replay`).
 */
export class LiveFeed {
  readonly #channels = new Map<string, Channel>();
  /** Streams open on this node (see `streamCount`). */
  #open = 0;
  #replaying = 0;
  #refetches = 0;
  #stopListening: (() => Promise<void>) | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  readonly #db: Kysely<Database>;
  readonly #replays: Semaphore;
  readonly #cache: ReplayCache | undefined;
  /** Replays' writes, spread over the event loop's turns so that many at once never hold it (see WriteTurns). */
  readonly #turns = new WriteTurns(REPLAY_BYTES_PER_TURN);

  constructor(
    private readonly store: Db,
    private readonly log: FastifyBaseLogger,
    private readonly keepAliveMs: number,
    private readonly bounds: ReplayBounds,
  ) {
    this.#db = store.kysely;
    this.#replays = new Semaphore(bounds.concurrent);
    if (bounds.cacheBytes > 0 && bounds.maxEvents > 0)
      this.#cache = new ReplayCache(
        {
          rows: async (projectId, after, upTo) => {
            const release = await this.#replays.acquire(bounds.budgetMs);
            if (!release) throw new Error('no replay turn within the budget');
            try {
              return await listEventsAfter(this.#db, projectId, after, upTo, REPLAY_PAGE);
            } finally {
              release();
              await yieldToLoop();
            }
          },
          allocated: (projectId) => this.#allocated(projectId),
        },
        bounds.maxEvents,
        bounds.cacheBytes,
      );
  }

  /** Streams open on this node, from `open` until their connection closes (also while they catch up). */
  get streamCount() {
    return this.#open;
  }

  /** Streams replaying what they missed now, `refetch` events sent since the start, bytes of ready frames (GET /metrics). */
  get replays() {
    return { running: this.#replaying, refetches: this.#refetches, cacheBytes: this.#cache?.bytes ?? 0 };
  }

  async start() {
    this.#stopListening = await this.store.listen(
      EVENTS_CHANNEL,
      (payload) => {
        const [projectId, seq] = payload.split(':');
        const channel = projectId && this.#channels.get(projectId);
        if (channel && Number(seq) > channel.cursor) this.#run(projectId, channel, () => this.#catchUp(projectId, channel));
      },
      () => {
        this.#catchUpAll();
      },
    );
    // Comments keep proxies from closing idle streams; the same tick reads anything a lost NOTIFY left behind.
    this.#keepAlive = setInterval(() => {
      for (const channel of this.#channels.values()) for (const s of channel.streams) this.#write(s, ': keep-alive\n\n');
      this.#catchUpAll();
    }, this.keepAliveMs);
    this.#keepAlive.unref();
  }

  async stop() {
    clearInterval(this.#keepAlive);
    // The node is going away: the stream ends with a hint to reconnect soon (to another node, behind a balancer),
    // spread over a few seconds so every client of this node does not come back at the same instant.
    for (const channel of this.#channels.values())
      for (const s of channel.streams) {
        // The stream is over and so is its connection: it is not kept alive for another request of a closing node.
        s.res.end(`: closing\nretry: ${1000 + Math.floor(Math.random() * 2000)}\n\n`, () => s.res.socket?.destroy());
      }
    this.#channels.clear();
    await this.#stopListening?.();
  }

  /** The seq of the project's last committed change (0 when none): where a new stream starts. */
  lastSeq(projectId: string): Promise<number> {
    return findLastEventSeq(this.#db, projectId);
  }

  /**
   * Adds an open response to a project's streams; with `lastEventId`, first sends what it missed: replayed from the
   * log when that is at most `maxEvents` events, else one `refetch`. The stream joins the live fan-out at once (a
   * cheap step); its replay runs beside it, so one client's catching up never delays another's live changes.
   */
  open(projectId: string, res: ServerResponse, lastEventId: number | undefined) {
    let channel = this.#channels.get(projectId);
    if (!channel) {
      channel = { streams: new Set(), cursor: -1, queue: Promise.resolve() };
      this.#channels.set(projectId, channel);
    }
    const stream: Stream = { res, cursor: -1 };
    const ch = channel;
    const deadline = performance.now() + this.bounds.budgetMs;
    this.#open += 1;
    this.#run(projectId, ch, async () => {
      if (ch.cursor < 0) ch.cursor = await findLastEventSeq(this.#db, projectId);
      if (res.destroyed) return;
      const head = ch.cursor;
      // Live changes after `head` come through the fan-out; what the stream missed up to `head` is replayed.
      stream.cursor = head;
      const from = lastEventId === undefined || lastEventId > head ? head : lastEventId;
      if (head - from > this.bounds.maxEvents) this.#refetch(stream);
      else if (from < head) {
        const replay = { held: [] };
        stream.replay = replay;
        void this.#replay(projectId, stream, replay, from, head, deadline);
      }
      ch.streams.add(stream);
    });
    res.on('close', () => {
      this.#open -= 1;
      ch.streams.delete(stream);
      if (!ch.streams.size)
        this.#run(projectId, ch, async () => {
          if (!ch.streams.size && this.#channels.get(projectId) === ch) this.#channels.delete(projectId);
        });
    });
  }

  #run(projectId: string, channel: Channel, step: () => Promise<void>) {
    channel.queue = channel.queue.then(step).catch((err: unknown) => {
      this.log.warn({ err, projectId }, 'live feed step failed');
    });
  }

  #catchUpAll() {
    for (const [projectId, channel] of this.#channels) this.#run(projectId, channel, () => this.#catchUp(projectId, channel));
  }

  async #catchUp(projectId: string, channel: Channel) {
    for (;;) {
      const after = channel.cursor;
      const page = await this.#read(projectId, after);
      this.#cache?.apply(projectId, after, page.rows);
      if (page.last === undefined) return;
      channel.cursor = page.last;
      for (const s of channel.streams) {
        for (const c of page.changes) if (c.seq > s.cursor) this.#send(s, sseMessage(c));
        s.cursor = channel.cursor;
      }
      if (page.count < PAGE) return;
    }
  }

  /**
   * Sends a stream the public changes in (`from`, `upTo`], then what came live meanwhile: ready frames from the replay
   * cache when it has them, else read from the log a page per turn of the node's replay semaphore (so replays take
   * turns and at most `concurrent` read at once). A replay that runs past its deadline, fails, or falls too far behind
   * the live changes it holds ends with `refetch`.
   */
  async #replay(projectId: string, stream: Stream, replay: { held: string[] }, from: number, upTo: number, deadline: number) {
    this.#replaying += 1;
    try {
      const frames = await this.#cachedFrames(projectId, from, upTo, deadline);
      if (frames === 'late') {
        if (stream.replay === replay) this.#refetch(stream);
        return;
      }
      const sent = frames
        ? await this.#writeFrames(stream, replay, frames, deadline)
        : await this.#replayFromLog(projectId, stream, replay, from, upTo, deadline);
      if (!sent) return;
    } catch (err) {
      this.log.warn({ err, projectId }, 'live feed replay failed');
      if (stream.replay === replay) this.#refetch(stream);
      return;
    } finally {
      this.#replaying -= 1;
    }
    if (stream.replay !== replay) return;
    stream.replay = undefined;
    for (const m of replay.held) this.#write(stream, m);
  }

  /** The frames of (`from`, `upTo`] from the cache; undefined when it has none (read the log); 'late' past the deadline. */
  async #cachedFrames(projectId: string, from: number, upTo: number, deadline: number): Promise<string[] | undefined | 'late'> {
    if (!this.#cache) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(
        () => {
          resolve('late');
        },
        Math.max(0, deadline - performance.now()),
      );
    });
    try {
      return await Promise.race([this.#cache.frames(projectId, from, upTo), late]);
    } catch (err) {
      this.log.warn({ err, projectId }, 'live feed replay cache failed; reading the log');
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Writes ready frames a page at a time, each once the client has taken the last ones (a slowly reading client is
   * waited for within the budget rather than dropped as a slow reader) and in its turn of the node's replay writes,
   * so neither one replay nor many at once hold the event loop. True when all were written.
   */
  async #writeFrames(stream: Stream, replay: { held: string[] }, frames: string[], deadline: number): Promise<boolean> {
    for (let i = 0; i < frames.length; i += REPLAY_PAGE) {
      if (!(await drained(stream.res, deadline)) || (i > 0 && performance.now() > deadline)) {
        if (stream.replay === replay) this.#refetch(stream);
        return false;
      }
      if (stream.replay !== replay) return false;
      await this.#turns.run(() => {
        if (stream.replay !== replay) return 0;
        const chunk = frames.slice(i, i + REPLAY_PAGE).join('');
        this.#write(stream, chunk);
        return chunk.length;
      });
    }
    return stream.replay === replay;
  }

  /** The replay read from the log, a page per turn of the replay semaphore. True when it got to `upTo`. */
  async #replayFromLog(projectId: string, stream: Stream, replay: { held: string[] }, from: number, upTo: number, deadline: number): Promise<boolean> {
    let after = from;
    while (after < upTo) {
      // A client that reads the replay slowly is waited for (within the budget) rather than dropped as a slow reader.
      if (!(await drained(stream.res, deadline))) {
        if (stream.replay === replay) this.#refetch(stream);
        return false;
      }
      const release = await this.#replays.acquire(deadline - performance.now());
      if (stream.replay !== replay || stream.res.destroyed) {
        release?.();
        return false;
      }
      if (!release) {
        this.#refetch(stream);
        return false;
      }
      let page;
      try {
        page = await this.#read(projectId, after, upTo, REPLAY_PAGE);
      } finally {
        release();
      }
      if (stream.replay !== replay) return false;
      // Written in a later turn of the event loop, so new connections, /health and the live fan-out come first: the
      // embedded database answers within the process, so back-to-back pages would otherwise never yield to them.
      const changes = page.changes;
      await this.#turns.run(() => {
        if (stream.replay !== replay) return 0;
        let bytes = 0;
        for (const c of changes) {
          const message = sseMessage(c);
          this.#write(stream, message);
          bytes += message.length;
        }
        return bytes;
      });
      if (stream.replay !== replay) return false;
      after = page.last ?? upTo;
      if (after < upTo && performance.now() > deadline) {
        this.#refetch(stream);
        return false;
      }
    }
    return true;
  }

  /** Tells the stream to fetch the bundle again and goes on live from its cursor (dropping any replay under way). */
  #refetch(stream: Stream) {
    stream.replay = undefined;
    if (stream.res.destroyed || stream.res.writableEnded) return;
    this.#refetches += 1;
    this.#write(stream, refetchMessage(stream.cursor));
  }

  /** A live message: written now, or held while the stream's replay has not reached it (a bounded number). */
  #send(stream: Stream, message: string) {
    const replay = stream.replay;
    if (!replay) {
      this.#write(stream, message);
      return;
    }
    if (replay.held.length < Math.max(this.bounds.maxEvents, REPLAY_PAGE)) replay.held.push(message);
    else this.#refetch(stream);
  }

  /** Public changes after `after` (up to `upTo`), the rows they came from, and the last seq read. */
  async #read(projectId: string, after: number, upTo?: number, limit = PAGE) {
    const rows = await listEventsAfter(this.#db, projectId, after, upTo, limit);
    const changes: PublicChange[] = [];
    for (const r of rows) {
      const c = publicChange(r, { showPrices: r.show_prices, hideSold: r.hide_sold, availabilityNow: r.subject_availability });
      if (c) changes.push(c);
    }
    if (changes.some((c) => c.changes?.availability)) {
      const allocated = await this.#allocated(projectId);
      if (allocated.size) for (const c of changes) maskAllocated(c, allocated);
    }
    const last = rows.at(-1);
    return { changes, rows: rows as readonly PublicEventRow[], count: rows.length, last: last ? Number(last.seq) : undefined };
  }

  /** The project's units that belong to an allocation, whatever their availability (the feed masks their past too). */
  async #allocated(projectId: string): Promise<Set<string>> {
    return new Set((await listAllocatedUnits(this.#db, projectId, { anyStatus: true })).map((a) => a.unit_id));
  }

  #write(stream: Stream, chunk: string) {
    const { res } = stream;
    if (res.destroyed || res.writableEnded) return;
    if (res.writableLength > MAX_BUFFERED) {
      res.destroy();
      return;
    }
    res.write(chunk);
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
