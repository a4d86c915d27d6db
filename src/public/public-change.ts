import { allocatedAvailability } from '../modules/allocations/allocated.ts';
import { PUBLIC_EVENT_TYPES } from '../modules/events/events.schemas.ts';

/**
 * What a visitor's live feed shows of one event, rendered the one way both the log read and the replay cache use
 * (docs/events.md): the same rows and the same project state give the same bytes.
 */

/** Unit fields a visitor may see change (price only while the project shows prices). */
export const PUBLIC_FIELDS = ['availability', 'onHoldExpiresAt', 'price'];
/** Types whose public changes are sent (the others only name what changed). */
export const CHANGING_TYPES = ['unit.updated', 'unit.held', 'unit.hold_expired', 'unit.hold_released', 'unit.hold_extended'];

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

export interface EventLike {
  seq: string | number;
  type: string;
  data: Record<string, unknown>;
}

/**
 * Under `hideSold` the feed names no sold unit, as the bundle names none: an event about a unit that is sold now, was
 * sold or became sold (or one deleted, whose last state is unknown) goes out as `{ seq, type }` alone. A page only
 * revalidates its bundle on a message, so it still learns that something changed, never which sold unit.
 */
function namesHiddenSold(row: EventLike, ctx: ChangeContext): boolean {
  if (!ctx.hideSold || !row.type.startsWith('unit.')) return false;
  if (row.type === 'unit.deleted' || ctx.availabilityNow === 'sold') return true;
  const availability = (row.data.changes as Record<string, unknown> | undefined)?.availability;
  return Array.isArray(availability) && availability.includes('sold');
}

/** The public part of one event, or undefined when a visitor would see nothing change. */
export function publicChange(row: EventLike, ctx: ChangeContext): PublicChange | undefined {
  if (!PUBLIC_EVENT_TYPES.has(row.type)) return undefined;
  const change = visibleChange(row, ctx.showPrices);
  return change && namesHiddenSold(row, ctx) ? { seq: change.seq, type: change.type } : change;
}

function visibleChange(row: EventLike, showPrices: boolean): PublicChange | undefined {
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

/** A unit that belongs to a realtor's allocation (`allocated`, any status) reads `unavailable` where it would read `available`. */
export function maskAllocated(change: PublicChange, allocated: ReadonlySet<string>) {
  const changes = change.changes;
  if (!changes?.availability || change._id === undefined || !allocated.has(change._id)) return;
  changes.availability = changes.availability.map(allocatedAvailability) as [unknown, unknown];
}

export const sseMessage = (c: PublicChange) => `id: ${c.seq}\ndata: ${JSON.stringify(c)}\n\n`;

/**
 * "Fetch the bundle again": the stream does not replay what was missed (too much, or too slow) and goes on live from
 * `seq`. A named event, so a client that only handles `message` is not handed a change without `_id`; it carries
 * `id:` so a reconnect resumes from there, and data because EventSource drops an event without.
 */
export const refetchMessage = (seq: number) => `event: refetch\nid: ${seq}\ndata: ${JSON.stringify({ seq, type: 'refetch' })}\n\n`;
