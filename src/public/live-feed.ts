import type { ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.ts';
import type { Database } from '../db/schema.ts';
import { EVENTS_CHANNEL } from '../modules/events/events.repo.ts';
import { PUBLIC_EVENT_TYPES } from '../modules/events/events.schemas.ts';
import { findLastEventSeq, listEventsAfter } from './public.repo.ts';
import { listAllocatedUnits } from '../modules/allocations/allocations.repo.ts';
import { allocatedAvailability } from '../modules/allocations/allocated.ts';

/** Unit fields a visitor may see change (price only while the project shows prices). */
const PUBLIC_FIELDS = ['availability', 'onHoldExpiresAt', 'price'];
/** Types whose public changes are sent (the others only name what changed). */
const CHANGING_TYPES = ['unit.updated', 'unit.held', 'unit.hold_expired', 'unit.hold_released', 'unit.hold_extended'];
const PAGE = 500;
/** A client this far behind (slow reader) is dropped; its EventSource reconnects and resumes with Last-Event-ID. */
const MAX_BUFFERED = 1024 * 1024;

export interface PublicChange {
  seq: number;
  type: string;
  /** Left out where it would name a unit a `hideSold` project hides. */
  _id?: string;
  changes?: Record<string, [unknown, unknown]>;
}

/** What the feed needs to know of an event's project and unit beyond the event itself. */
export interface ChangeContext {
  showPrices: boolean;
  hideSold: boolean;
  /** The unit's availability now (null when it is gone or the event is not about a unit). */
  availabilityNow: string | null;
}

/**
 * Under `hideSold` the feed names no sold unit, as the bundle names none: an event about a unit that is sold now, was
 * sold or became sold (or one deleted, whose last state is unknown) goes out as `{ seq, type }` alone. A page only
 * revalidates its bundle on a message, so it still learns that something changed, never which sold unit.
 */
function namesHiddenSold(row: { type: string; data: Record<string, unknown> }, ctx: ChangeContext): boolean {
  if (!ctx.hideSold || !row.type.startsWith('unit.')) return false;
  if (row.type === 'unit.deleted' || ctx.availabilityNow === 'sold') return true;
  const availability = (row.data.changes as Record<string, unknown> | undefined)?.availability;
  return Array.isArray(availability) && availability.includes('sold');
}

interface Stream {
  res: ServerResponse;
  /** Last seq this stream has been sent (or was told it has). */
  cursor: number;
}

interface Channel {
  streams: Set<Stream>;
  /** Last seq read from the log for this project. */
  cursor: number;
  /** Work on one project's streams runs one step at a time, so a resume and a live change cannot interleave. */
  queue: Promise<void>;
}

/** The public part of one event, or undefined when a visitor would see nothing change. */
export function publicChange(row: { seq: string | number; type: string; data: Record<string, unknown> }, ctx: ChangeContext): PublicChange | undefined {
  const change = visibleChange(row, ctx.showPrices);
  return change && namesHiddenSold(row, ctx) ? { seq: change.seq, type: change.type } : change;
}

function visibleChange(row: { seq: string | number; type: string; data: Record<string, unknown> }, showPrices: boolean): PublicChange | undefined {
  const out: PublicChange = { seq: Number(row.seq), type: row.type, _id: String(row.data._id) };
  if (!CHANGING_TYPES.includes(row.type)) return row.type.startsWith('floor.') || row.type.startsWith('unit.') ? out : undefined;
  const changes: Record<string, [unknown, unknown]> = {};
  for (const [k, v] of Object.entries((row.data.changes ?? {}) as Record<string, [unknown, unknown]>)) {
    if (PUBLIC_FIELDS.includes(k) && (k !== 'price' || showPrices)) changes[k] = v;
  }
  if (!Object.keys(changes).length) return undefined;
  out.changes = changes;
  return out;
}

export const sseMessage = (c: PublicChange) => `id: ${c.seq}\ndata: ${JSON.stringify(c)}\n\n`;

/**
 * The node's side of the public live feed: one LISTEN connection for the whole process; each committed event
 * (from any node) wakes the project's channel, which reads the new events once and writes them to every open
 * stream of that project. Streams resume from Last-Event-ID by reading the log.
 */
export class LiveFeed {
  readonly #channels = new Map<string, Channel>();
  /** Streams open on this node (see `streamCount`). */
  #open = 0;
  #stopListening: (() => Promise<void>) | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  readonly #db: Kysely<Database>;

  constructor(
    private readonly store: Db,
    private readonly log: FastifyBaseLogger,
    private readonly keepAliveMs: number,
  ) {
    this.#db = store.kysely;
  }

  /** Streams open on this node, from `open` until their connection closes (also while they catch up). */
  get streamCount() {
    return this.#open;
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

  /** Adds an open response to a project's streams; with `lastEventId`, first sends what it missed. */
  open(projectId: string, res: ServerResponse, lastEventId: number | undefined) {
    let channel = this.#channels.get(projectId);
    if (!channel) {
      channel = { streams: new Set(), cursor: -1, queue: Promise.resolve() };
      this.#channels.set(projectId, channel);
    }
    const stream: Stream = { res, cursor: lastEventId ?? -1 };
    const ch = channel;
    this.#open += 1;
    this.#run(projectId, ch, async () => {
      if (ch.cursor < 0) ch.cursor = await findLastEventSeq(this.#db, projectId);
      if (stream.cursor < 0 || stream.cursor > ch.cursor) stream.cursor = ch.cursor;
      while (stream.cursor < ch.cursor && !res.destroyed) {
        const page = await this.#read(projectId, stream.cursor, ch.cursor);
        for (const c of page.changes) this.#write(stream, sseMessage(c));
        stream.cursor = page.last ?? ch.cursor;
      }
      if (!res.destroyed) ch.streams.add(stream);
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
      const page = await this.#read(projectId, channel.cursor);
      if (page.last === undefined) return;
      channel.cursor = page.last;
      for (const s of channel.streams) {
        for (const c of page.changes) if (c.seq > s.cursor) this.#write(s, sseMessage(c));
        s.cursor = channel.cursor;
      }
      if (page.count < PAGE) return;
    }
  }

  /** Public changes after `after` (up to `upTo`), and the last seq read. */
  async #read(projectId: string, after: number, upTo?: number) {
    const rows = await listEventsAfter(this.#db, projectId, after, upTo, PAGE);
    const changes: PublicChange[] = [];
    for (const r of rows) {
      if (!PUBLIC_EVENT_TYPES.has(r.type)) continue;
      const c = publicChange(r, { showPrices: r.show_prices, hideSold: r.hide_sold, availabilityNow: r.subject_availability });
      if (c) changes.push(c);
    }
    if (changes.some((c) => c.changes?.availability)) await this.#maskAllocated(projectId, changes);
    const last = rows.at(-1);
    return { changes, count: rows.length, last: last ? Number(last.seq) : undefined };
  }

  /** A unit that belongs to a realtor's allocation reads `unavailable` to the public where it would read `available` (§18). */
  async #maskAllocated(projectId: string, changes: PublicChange[]) {
    const allocated = new Set((await listAllocatedUnits(this.#db, projectId, { anyStatus: true })).map((a) => a.unit_id));
    if (!allocated.size) return;
    for (const c of changes) {
      const changes = c.changes;
      if (!changes?.availability || c._id === undefined || !allocated.has(c._id)) continue;
      changes.availability = changes.availability.map(allocatedAvailability) as [unknown, unknown];
    }
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
