/**
 * The visitor's own holds. A hold's token (the secret the hold answer and the holder's e-mail carry) is kept in
 * this browser's localStorage, per project, so a reload finds the hold again; the e-mailed link brings it as
 * `?hold=<token>`, which is kept the same way and then taken out of the address (so the address shared next
 * does not give the hold away). The server decides whether a hold is still the visitor's: a token is forgotten
 * only when it answers 410 (released, lapsed, ended by the sales team) or 404, never on a guess from the bundle.
 */
import { holdRequest } from './api.ts';
import { state } from './state.ts';
import type { Bundle, Unit } from './types.ts';

export interface MyHold {
  unit: string;
  project: string;
  token: string;
  expiresAt: string;
  extended: boolean;
}

interface HoldAnswer {
  unit: Unit;
  project: { _id: string };
  expiresAt: string;
  extended: boolean;
  onHoldExpiresAt?: string;
}

/**
 * What the page says after a hold: released by its holder; `expired`: its time ran out (with when, `holdEndedAt`);
 * `ended`: the sales team ended it; `link-ended`: the e-mailed link of a hold that is over; `failed`: an action failed.
 */
export type HoldNote = 'released' | 'expired' | 'ended' | 'link-ended' | 'failed';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const mine = new Map<string, MyHold>();
/** What the page last said about a unit's hold (released, ended…), shown in its sheet. */
export const holdNotes = new Map<string, HoldNote>();
/** When a unit's hold ran out, for its `expired` note. */
export const holdEndedAt = new Map<string, string>();
/** Tokens being asked about (one request each at a time). */
const asking = new Set<string>();
/** Units whose release or extension is on its way. */
const busy = new Set<string>();
let project: string | undefined;
let hooks: { changed(): void; unit(u: Unit): void; refresh(): Promise<void> } = { changed() {}, unit() {}, refresh: async () => {} };

const storageKey = (projectId: string) => `showsuite:holds:${projectId}`;

const isStoredHold = (x: unknown): x is { unit: string; token: string } =>
  typeof x === 'object' && x !== null && 'unit' in x && 'token' in x && typeof x.unit === 'string' && typeof x.token === 'string' && TOKEN.test(x.token);

function stored(projectId: string): { unit: string; token: string }[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(storageKey(projectId)) ?? '[]');
    return Array.isArray(list) ? list.filter(isStoredHold) : [];
  } catch {
    return [];
  }
}

function save(projectId: string) {
  const list = [...mine.values()].filter((x) => x.project === projectId).map(({ unit, token }) => ({ unit, token }));
  try {
    if (list.length) localStorage.setItem(storageKey(projectId), JSON.stringify(list));
    else localStorage.removeItem(storageKey(projectId));
  } catch {
    // Not kept (storage refused): the hold still shows until the page is closed, and the e-mail has the link.
  }
}

function keep(h: MyHold) {
  mine.set(h.unit, h);
  holdNotes.delete(h.unit);
  if (h.project === project || project === undefined) state.holds.set(h.unit, h.expiresAt);
  save(h.project);
}

function forget(unitId: string, note?: HoldNote) {
  const h = mine.get(unitId);
  mine.delete(unitId);
  state.holds.delete(unitId);
  if (note) holdNotes.set(unitId, note);
  if (h && note === 'expired') holdEndedAt.set(unitId, h.expiresAt);
  if (h) save(h.project);
}

/** A hold the server says is over (410, 404): `expired` when its time has passed, else ended by the sales team. */
const endedNote = (h: MyHold): HoldNote => (Date.parse(h.expiresAt) <= Date.now() ? 'expired' : 'ended');

/** The visitor's hold on a unit, if they have one. */
export const myHold = (unitId: string): MyHold | undefined => (mine.has(unitId) && state.holds.has(unitId) ? mine.get(unitId) : undefined);
export const holdBusy = (unitId: string) => busy.has(unitId);
/** What the sheet's hold panel shows, for knowing when to redraw it. */
export const holdKey = (unitId: string) => [myHold(unitId)?.extended, holdNotes.get(unitId), holdEndedAt.get(unitId), busy.has(unitId)];

/** Takes `?hold=` from the address (and out of it) and asks the server about it. */
export function startHolds(h: typeof hooks) {
  hooks = h;
  const q = new URLSearchParams(location.search);
  const token = q.get('hold');
  if (token === null) return;
  q.delete('hold');
  const rest = q.toString();
  history.replaceState(history.state, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  // The mailed link names its unit: a hold that is over is said there, with "Hold again".
  const linked = /\/units\/([0-9a-f]{24})$/.exec(location.pathname)?.[1];
  if (TOKEN.test(token)) void ask(token, linked);
}

/**
 * The visitor's countdown reached zero: the server is asked whether the hold is over (its clock decides; until it
 * agrees the hold stays), so the page says it ended rather than only turning the badge Available.
 */
export function lapsedMine(unitId: string) {
  const h = mine.get(unitId);
  if (h && Date.parse(h.expiresAt) <= Date.now()) void ask(h.token);
}

/** A hold just placed: its token, from the hold answer. */
export function placedHold(unit: Unit & { holdToken?: string }) {
  if (!unit.onHoldExpiresAt) return;
  state.holds.set(unit._id, unit.onHoldExpiresAt);
  if (typeof unit.holdToken === 'string' && TOKEN.test(unit.holdToken)) {
    keep({ unit: unit._id, project: unit.project, token: unit.holdToken, expiresAt: unit.onHoldExpiresAt, extended: false });
  }
}

/**
 * Each new bundle: the first names the project, whose kept tokens are then asked about; a hold the bundle shows
 * differently (no longer on hold, another expiry, its time passed) is asked about again.
 */
export function holdsFollow(bundle: Bundle) {
  if (project === undefined) {
    project = bundle.project._id;
    for (const [id, h] of mine) if (h.project !== project) mine.delete(id);
    for (const { token } of stored(project)) void ask(token);
  }
  const units = new Map([...bundle.floors.flatMap((f) => f.units), ...bundle.unassignedUnits].map((u) => [u._id, u]));
  for (const h of mine.values()) {
    const u = units.get(h.unit);
    if (!u || u.availability !== 'on_hold' || u.onHoldExpiresAt !== h.expiresAt || Date.parse(h.expiresAt) <= Date.now()) void ask(h.token);
    // Until the server answers, the visitor's hold stays theirs (a bundle can be a few seconds old).
    else state.holds.set(h.unit, h.expiresAt);
  }
}

/**
 * Asks the server about a token: live → kept; ended or unknown → forgotten, and said in the sheet of its unit (the
 * kept hold's, or `linked`: the unit the mailed link names); a network failure changes nothing.
 */
async function ask(token: string, linked?: string) {
  if (asking.has(token)) return;
  asking.add(token);
  try {
    const res = await holdRequest('GET', token);
    const known = [...mine.values()].find((h) => h.token === token);
    if (res.status === 200) {
      const body = res.body as unknown as HoldAnswer;
      if (project !== undefined && body.project._id !== project) return;
      keep({ unit: body.unit._id, project: body.project._id, token, expiresAt: body.expiresAt, extended: body.extended });
    } else if ((res.status === 404 || res.status === 410) && known) {
      forget(known.unit, endedNote(known));
      // The unit as it is now (available again, or taken by the sales team), for "Hold again".
      void hooks.refresh();
    } else if (res.status === 404 || res.status === 410) {
      dropStored(token);
      if (linked) holdNotes.set(linked, 'link-ended');
    } else return;
    hooks.changed();
  } finally {
    asking.delete(token);
  }
}

/** A kept token not (or no longer) in memory: out of storage. */
function dropStored(token: string) {
  if (project === undefined) return;
  const list = stored(project).filter((x) => x.token !== token);
  try {
    if (list.length) localStorage.setItem(storageKey(project), JSON.stringify(list));
    else localStorage.removeItem(storageKey(project));
  } catch {
    // Nothing kept to drop.
  }
}

async function act(unitId: string, run: (h: MyHold) => Promise<void>) {
  const h = myHold(unitId);
  if (!h || busy.has(unitId)) return;
  busy.add(unitId);
  hooks.changed();
  try {
    await run(h);
  } finally {
    busy.delete(unitId);
    hooks.changed();
  }
}

/** Releases the visitor's hold: the unit is open to everyone again. */
export const releaseMine = (unitId: string) =>
  act(unitId, async (h) => {
    const res = await holdRequest('DELETE', h.token);
    if (res.status === 204 || res.status === 404 || res.status === 410) {
      forget(unitId, res.status === 204 ? 'released' : endedNote(h));
      await hooks.refresh();
    } else holdNotes.set(unitId, 'failed');
  });

/** Extends the visitor's hold, once. */
export const extendMine = (unitId: string) =>
  act(unitId, async (h) => {
    const res = await holdRequest('POST', h.token);
    const body = res.body as unknown as HoldAnswer;
    if (res.status === 200) {
      keep({ ...h, expiresAt: body.expiresAt, extended: true });
      hooks.unit(body.unit);
    } else if (res.status === 409) keep({ ...h, extended: true });
    else if (res.status === 404 || res.status === 410) {
      forget(unitId, endedNote(h));
      await hooks.refresh();
    } else holdNotes.set(unitId, 'failed');
  });
