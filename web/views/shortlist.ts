/**
 * Favourites and compare: a visitor saves up to three homes (the heart on a card or in the unit sheet) and compares
 * them side by side in a sheet of their own. The shortlist is kept in localStorage per project (unit ids only,
 * nothing personal) and can be shared: `?compare=<id>,<id>,<id>` opens the comparison of those homes. The comparison
 * itself is a chunk of its own (web/views/compare.ts), loaded when it is opened.
 */
import { byId, h } from '../dom.ts';
import { x } from '../extra-words.ts';
import { findUnit } from '../state.ts';
import type { Unit } from '../types.ts';
import { loadPart } from '../parts.ts';

import { current, isSaved, MAX_COMPARE, toggleSaved } from './saved.ts';

/** The heart: pressed when the home is on the shortlist. */
export function favButton(u: Unit, id: string, extraClass = ''): HTMLButtonElement {
  const saved = isSaved(u._id);
  const text = h('span', { class: 'fav-text' }, saved ? x().favourited : x().favourite);
  const b = h(
    'button',
    {
      type: 'button',
      class: `fav ${extraClass}`.trim(),
      id,
      'aria-pressed': String(saved),
      'aria-label': `${saved ? x().favourited : x().favourite}: ${u.name}`,
      title: saved ? x().favourited : x().favourite,
      onclick: (e: Event) => {
        e.stopPropagation();
        if (!toggleSaved(u._id)) {
          note(x().compareFull);
          return;
        }
        const now = isSaved(u._id);
        b.setAttribute('aria-pressed', String(now));
        b.setAttribute('aria-label', `${now ? x().favourited : x().favourite}: ${u.name}`);
        b.title = now ? x().favourited : x().favourite;
        text.textContent = now ? x().favourited : x().favourite;
      },
    },
    h('span', { class: 'fav-icon', 'aria-hidden': 'true' }, '♥'),
    text,
  );
  return b;
}

/** A short message that the shortlist is full, said politely to assistive technology too. */
function note(text: string) {
  const el = byId('shortlist-note');
  if (!el) return;
  el.textContent = text;
  el.hidden = false;
  window.setTimeout(() => (el.hidden = true), 4000);
}

/** The toolbar's button: "Shortlist (n)", opening the comparison. */
export function shortlistButton(): HTMLElement {
  return h(
    'span',
    { class: 'shortlist-wrap' },
    h('button', { type: 'button', class: 'chip', id: 'shortlist-open', onclick: () => openCompare(current()) }, x().favourites(0)),
    h('span', { class: 'shortlist-note', id: 'shortlist-note', role: 'status', hidden: true }),
  );
}

export function updateShortlistButton() {
  const b = byId('shortlist-open');
  const n = current().filter((id) => findUnit(id)).length;
  if (b) b.textContent = x().favourites(n);
}

let compare: typeof import('./compare.ts') | undefined;

/** The comparison of up to three homes (loaded the first time it is opened). */
export async function openCompare(ids: string[]) {
  compare ??= await loadPart(() => import('./compare.ts'));
  compare?.openCompare(ids);
}

/** Redraws an open comparison (a refresh changed a price or a status). */
export const renderCompare = () => compare?.renderCompare();

/** The ids a shared link names (`?compare=`), if any. */
export function sharedShortlist(): string[] {
  const v = new URLSearchParams(location.search).get('compare');
  return v
    ? v
        .split(',')
        .filter((id) => /^[0-9a-f]{24}$/.test(id))
        .slice(0, MAX_COMPARE)
    : [];
}
