import type { PublicEventRow } from './public.repo.ts';
import { PUBLIC_EVENT_TYPES } from '../modules/events/events.schemas.ts';
import { CHANGING_TYPES, maskAllocated, PUBLIC_FIELDS, publicChange, sseMessage, type EventLike } from './public-change.ts';

/** What the cache reads the log with: the node's replay turns, so a load waits its turn like any replay page. */
export interface ReplaySource {
  /** The project's events in (`after`, `upTo`], oldest first; a page of them (fewer than asked when the page is full). */
  rows(projectId: string, after: number, upTo: number): Promise<PublicEventRow[]>;
  /** The units of the project that belong to an allocation, whatever their availability. */
  allocated(projectId: string): Promise<Set<string>>;
}

/** Bytes an entry holds beside its frame (the entry, its event's few fields and their arrays; measured on the heap, docs/events.md). */
const ENTRY_BYTES = 600;
/**
 * Events a project's frames may run past the window before the oldest are let go: trimming per event would copy the
 * array every time, and a stream whose head was read a moment ago still finds its `from` inside.
 */
const TRIM_SLACK = 256;

/**
 * Changes after which frames already built might no longer be what a read of the log gives now, so the project's
 * frames are dropped and built again at the next replay: a project's settings (prices shown, sold hidden,
 * allocations), units coming or going or renamed (allocations name units), floors deleted (their units with them),
 * and every type the feed does not know to be harmless. Only changes of one unit's public fields, floors added or
 * edited and leads leave the frames as they are (with the unit's availability now, which the read brings along).
 */
function keepsFrames(row: PublicEventRow) {
  if (CHANGING_TYPES.includes(row.type)) return !(row.data.changes && typeof row.data.changes === 'object' && 'name' in row.data.changes);
  return row.type === 'floor.created' || row.type === 'floor.updated' || row.type === 'lead.created' || row.type === 'lead.updated';
}

interface Entry {
  seq: number;
  /** The event as far as the feed reads it. */
  event: EventLike;
  /** The unit it is about (unit events only). */
  unit: string | undefined;
  frame: string;
}

/** One project's recent public changes as SSE frames, as a read of the log would render them now. */
class Frames {
  /** The frames cover the events in (`base`, `head`]. */
  head: number;
  entries: Entry[] = [];
  bytes = 0;
  /** Each unit's availability now, as the last read of an event about it brought it. */
  readonly availability = new Map<string, string | null>();

  constructor(
    public base: number,
    readonly showPrices: boolean,
    readonly hideSold: boolean,
    readonly allocated: ReadonlySet<string>,
  ) {
    this.head = base;
  }

  render(event: EventLike, unit: string | undefined): string {
    const change = publicChange(event, {
      showPrices: this.showPrices,
      hideSold: this.hideSold,
      availabilityNow: (unit && this.availability.get(unit)) ?? null,
    });
    if (!change) return '';
    maskAllocated(change, this.allocated);
    return sseMessage(change);
  }

  /**
   * Adds the rows that follow `head`. False when the frames can no longer be trusted: a gap, other settings, or (unless
   * `loading`, where every row is read with the project as it is now) a change that may alter frames already built.
   */
  append(rows: readonly PublicEventRow[], loading: boolean): boolean {
    for (const row of rows) {
      const seq = Number(row.seq);
      if (seq <= this.head) continue;
      if (seq !== this.head + 1 || row.show_prices !== this.showPrices || row.hide_sold !== this.hideSold) return false;
      if (!loading && !keepsFrames(row)) return false;
      this.head = seq;
      if (!PUBLIC_EVENT_TYPES.has(row.type)) continue;
      const unit = row.type.startsWith('unit.') ? String(row.data._id) : undefined;
      if (unit) this.#sawUnit(unit, row.subject_availability);
      const event = slim(row);
      const frame = this.render(event, unit);
      if (!frame) continue;
      this.entries.push({ seq, event, unit, frame });
      this.bytes += frame.length + ENTRY_BYTES;
    }
    return true;
  }

  /** Keeps the last `window` events (once they are TRIM_SLACK past it). */
  trim(window: number) {
    if (this.head - this.base <= window + TRIM_SLACK) return;
    this.base = this.head - window;
    const keep = this.entries.findIndex((e) => e.seq > this.base);
    const gone = keep < 0 ? this.entries : this.entries.slice(0, keep);
    for (const e of gone) this.bytes -= e.frame.length + ENTRY_BYTES;
    this.entries = keep < 0 ? [] : this.entries.slice(keep);
  }

  /** The frames of (`from`, `upTo`]. */
  slice(from: number, upTo: number): string[] {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.entries[mid]?.seq ?? Infinity) <= from) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (const e of this.entries.slice(lo)) {
      if (e.seq > upTo) break;
      out.push(e.frame);
    }
    return out;
  }

  /** Under `hideSold` a unit's earlier events read differently once it is sold, or no longer sold: built again. */
  #sawUnit(unit: string, now: string | null) {
    const before = this.availability.get(unit);
    this.availability.set(unit, now);
    if (!this.hideSold || before === undefined || (before === 'sold') === (now === 'sold')) return;
    for (const e of this.entries) {
      if (e.unit !== unit) continue;
      const frame = this.render(e.event, unit);
      this.bytes += frame.length - e.frame.length;
      e.frame = frame;
    }
  }
}

/**
 * The row as far as the feed reads it: its id and public fields (of any type: a unit created sold is hidden by its
 * `availability`), so the rest of a large event (a created unit's every field) is not kept.
 */
function slim(row: PublicEventRow): EventLike {
  const data: Record<string, unknown> = { _id: row.data._id };
  const changes = row.data.changes as Record<string, unknown> | undefined;
  if (changes) {
    const kept: Record<string, unknown> = {};
    // In the event's own order: the frame's JSON must be the one a read of the log writes.
    for (const [k, v] of Object.entries(changes)) if (PUBLIC_FIELDS.includes(k)) kept[k] = v;
    data.changes = kept;
  }
  return { seq: row.seq, type: row.type, data };
}

/**
 * The replay cache (docs/events.md): per project, the last `window` events' SSE frames, built once from the log
 * (one read however many streams want them) and extended by the events the node's live feed reads anyway, so a
 * resumed stream's replay is a slice of ready frames: no query and no JSON of its own. The log stays the source of
 * truth: the frames cover a contiguous range of seqs, anything that might change how earlier events read drops them,
 * and a project's frames are let go, least recently replayed first, past `capBytes` in all.
 */
export class ReplayCache {
  /** In the order last replayed (the first is let go first). */
  readonly #projects = new Map<string, Frames>();
  /** Loads and extensions under way: one per project, which every replay that needs it waits for. */
  readonly #pending = new Map<string, { done: Promise<void>; stale: boolean }>();
  #bytes = 0;

  constructor(
    private readonly source: ReplaySource,
    private readonly window: number,
    private readonly capBytes: number,
  ) {}

  /** Bytes held now (roughly: the frames and what each keeps of its event). */
  get bytes() {
    return this.#bytes;
  }

  /**
   * The frames a stream resuming after `from` is sent, up to `upTo` (at most `window` behind the head), or undefined
   * when they are not to be had from memory (the caller reads the log itself).
   */
  async frames(projectId: string, from: number, upTo: number): Promise<string[] | undefined> {
    // A few rounds: wait for a load or extension under way, or start one, then take the frames it left.
    for (let round = 0; round < 4; round++) {
      const f = this.#projects.get(projectId);
      if (f && f.base <= from && f.head >= upTo) {
        this.#projects.delete(projectId);
        this.#projects.set(projectId, f);
        return f.slice(from, upTo);
      }
      const pending = this.#pending.get(projectId);
      if (pending) {
        await pending.done;
        continue;
      }
      const job = { done: Promise.resolve(), stale: false };
      job.done = (f && f.base <= from ? this.#extend(projectId, f, upTo, job) : this.#load(projectId, upTo, job)).finally(() => {
        if (this.#pending.get(projectId) === job) this.#pending.delete(projectId);
      });
      this.#pending.set(projectId, job);
    }
    return undefined;
  }

  /** Rows after `after` the live feed has read: appended to the project's frames, or the frames dropped. */
  apply(projectId: string, after: number, rows: readonly PublicEventRow[]) {
    const pending = this.#pending.get(projectId);
    if (pending && rows.some((r) => !keepsFrames(r))) pending.stale = true;
    const f = this.#projects.get(projectId);
    if (!f) return;
    if (after > f.head || !this.#append(f, rows, false)) this.drop(projectId);
  }

  drop(projectId: string) {
    const f = this.#projects.get(projectId);
    if (f) this.#bytes -= f.bytes;
    this.#projects.delete(projectId);
    const pending = this.#pending.get(projectId);
    if (pending) pending.stale = true;
  }

  async #load(projectId: string, upTo: number, job: { stale: boolean }) {
    const base = Math.max(0, upTo - this.window);
    const allocated = await this.source.allocated(projectId);
    let f: Frames | undefined;
    for (let after = base; after < upTo;) {
      const rows = await this.source.rows(projectId, after, upTo);
      const first = rows[0];
      if (!first || job.stale) return;
      f ??= new Frames(base, first.show_prices, first.hide_sold, allocated);
      if (!f.append(rows, true)) return;
      after = f.head;
    }
    if (!f || job.stale) return;
    this.drop(projectId);
    this.#projects.set(projectId, f);
    this.#bytes += f.bytes;
    this.#evict();
  }

  async #extend(projectId: string, f: Frames, upTo: number, job: { stale: boolean }) {
    while (f.head < upTo) {
      const after = f.head;
      const rows = await this.source.rows(projectId, after, upTo);
      if (job.stale || this.#projects.get(projectId) !== f) return;
      if (!rows.length || !this.#append(f, rows, false)) {
        this.drop(projectId);
        return;
      }
    }
  }

  #append(f: Frames, rows: readonly PublicEventRow[], loading: boolean) {
    const before = f.bytes;
    const ok = f.append(rows, loading);
    f.trim(this.window);
    this.#bytes += f.bytes - before;
    this.#evict();
    return ok;
  }

  /** Lets go of the projects replayed longest ago until the frames fit in `capBytes`. */
  #evict() {
    for (const [projectId] of this.#projects) {
      if (this.#bytes <= this.capBytes) return;
      this.drop(projectId);
    }
  }
}
