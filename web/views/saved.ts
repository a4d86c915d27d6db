/**
 * The shortlist itself: up to three homes' ids, kept in localStorage per project (unit ids only, nothing personal). Its
 * buttons are web/views/shortlist.ts; the comparison, a chunk of its own, web/views/compare.ts.
 */
import { namespace } from '../state.ts';

export const MAX_COMPARE = 3;
const KEY = `showsuite:shortlist:${namespace}`;
let changed: () => void = () => {};
let openUnit: (id: string) => void = () => {};

export function shortlist(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((id): id is string => typeof id === 'string' && /^[0-9a-f]{24}$/.test(id)).slice(0, MAX_COMPARE) : [];
  } catch {
    return [];
  }
}

function store(ids: string[]) {
  try {
    localStorage.setItem(KEY, JSON.stringify(ids));
  } catch {
    // Storage off: the shortlist lasts as long as the page (kept below).
  }
  memory = ids;
}
let memory: string[] | undefined;
export const current = () => memory ?? shortlist();
export const isSaved = (id: string) => current().includes(id);

/** Saves or removes a home; false when the shortlist is full (the visitor is told so). */
export function toggleSaved(id: string): boolean {
  const ids = current();
  if (ids.includes(id)) store(ids.filter((i) => i !== id));
  else if (ids.length >= MAX_COMPARE) return false;
  else store([...ids, id]);
  changed();
  return true;
}

export function setupShortlist(hooks: { changed: () => void; open: (id: string) => void }) {
  changed = hooks.changed;
  openUnit = hooks.open;
}

/** Opens a unit's sheet (from the comparison). */
export const openSaved = (id: string) => openUnit(id);
