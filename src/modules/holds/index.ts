/**
 * The holds module: what other modules, the anonymous side and the app may use of a hold. A hold is a record
 * (`holds`: its token's hash, its client, its lead) and its unit's hold columns (availability on_hold, the expiry, the
 * holder); this module is the one that places, reads, extends, releases and sweeps them, and offers a unit that comes
 * free to its waiting list. Outside the module, its files are reached through this one; only the rules (hold-rules.ts, pure
 * and below everything) are imported directly by the files that render, read and write units, which the rest of the
 * module builds on.
 */

// The rules of a hold (lapsed, live, still held, free to hold, what leaving on_hold clears), in SQL and TypeScript.
export {
  HOLD_CLEARED,
  holdExpired,
  holdLapsedSql,
  holdLive,
  holdLiveSql,
  leavesHold,
  shownAvailability,
  stillHeld,
  stillHeldSql,
  unitFreeSql,
  type HoldColumns,
} from './hold-rules.ts';

// Placing: a visitor's hold (POST /public/units/{id}/hold); a deposit's hold is the same, for the payment window.
export { placeHold, type AllocationCheck, type Visitor } from './place.ts';

// The holder's side, by the hold's token: read, extend once, release; the page's link that carries the token.
export { extendHold, holdLink, holdMinutes, readHold, releaseHold, type HoldView, type RenderUnit } from './hold-tokens.ts';

// A unit that comes free (a release, a lapse, the sales team making it available) goes to its waiting list first.
export { offerToNext, type PriorityDeps } from './priority-offer.ts';

// Lapsed holds: the sweep on every node's timer, one found by a read written back at once, the holder's mail.
export { sweepOnce, writeBackLapsedHold, type SweepResult } from './holds.sweeper.ts';
export { queueHoldEndedMail } from './hold-expiry.ts';

// A hold ended by a reservation (an accepted worksheet, a paid deposit): its record says it was released.
export { markHoldReleased } from './holds.repo.ts';
// Erasing a buyer: the ended holds placed with their leads go (running ones stay).
export { deleteEndedLeadHolds } from './holds.repo.ts';
