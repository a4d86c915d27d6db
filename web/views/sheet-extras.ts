/** The unit sheet's terms: which floor, when it is delivered, and what it takes to hold it (the deposit). */
import { h } from '../dom.ts';
import { x } from '../extra-words.ts';
import { currency, money } from '../format.ts';
import { settings, state } from '../state.ts';
import type { Room } from '../types.ts';

/** The floor's name and the delivery date, as fact rows. */
export function placeFacts(u: Room): string[][] {
  const floor = state.bundle?.floors.find((f) => f._id === u.floor);
  const delivery =
    typeof u.deliveryDate === 'string' && u.deliveryDate.trim() !== '' && settings().deliveryDates !== false ? deliveryText(u.deliveryDate.trim()) : undefined;
  return [floor ? [x().floor, floor.name] : undefined, delivery ? [x().delivery, delivery] : undefined].filter((r): r is string[] => r !== undefined);
}

/** A date as the project's language writes it ("June 2027"); any other text as it is ("Q3 2027"). */
function deliveryText(v: string): string {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?/.exec(v);
  if (!m) return v;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m.at(3) ?? 1)));
  return Number.isNaN(d.getTime())
    ? v
    : d.toLocaleDateString(document.documentElement.lang || 'en', { year: 'numeric', month: 'long', ...(m[3] ? { day: 'numeric' } : {}), timeZone: 'UTC' });
}

/**
 * The unit's terms: what is payable on it (`payableAmount`) and in which currency. The project's deposit
 * (`payProviderDeposit`) is not shown: a hold takes no money until deposits are taken online (docs/presentation.md),
 * so the page never says a hold costs anything.
 */
export function depositTerms(u: Room): HTMLElement | undefined {
  const payable = typeof u.payableAmount === 'number' && u.payableAmount > 0 ? u.payableAmount : undefined;
  if (payable === undefined) return undefined;
  const rows = [
    [x().payable, money(payable)],
    [x().currency, currency()],
  ];
  return h(
    'section',
    { class: 'terms', id: 'unit-terms', 'aria-label': x().depositTerms },
    h('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
  );
}
