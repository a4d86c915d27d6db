/**
 * What the colours mean. Each status has a colour chosen to stay apart for colour-blind eyes (the default palette is
 * Okabe and Ito's, see docs/presentation.md) and a mark of its own, drawn on the cells, the plan's names, the badges
 * and here, so colour is never the only cue (WCAG 1.4.1). Sold and unavailable homes are also hatched.
 */
import { h } from '../dom.ts';
import { x } from '../extra-words.ts';
import { statusText } from '../format.ts';

export const MARKS: Record<string, string> = { available: '✓', on_hold: '‖', reserved: '◆', sold: '✕', leased: '⌂', unavailable: '–' };
export const mark = (availability: string) => MARKS[availability] ?? MARKS.unavailable;

/** The legend for the statuses shown (in a fixed order, so it does not jump when a unit changes). */
export function legend(statuses: Iterable<string>, id?: string): HTMLElement {
  const present = new Set(statuses);
  const order = [...Object.keys(MARKS).filter((s) => present.has(s)), ...[...present].filter((s) => !(s in MARKS))];
  return h(
    'ul',
    { class: 'legend', ...(id ? { id } : {}), 'aria-label': x().legendTitle },
    ...order.map((st) =>
      h('li', { 'data-availability': st }, h('span', { class: `swatch s-${st}`, 'data-mark': mark(st), 'aria-hidden': 'true' }), statusText(st)),
    ),
  );
}
