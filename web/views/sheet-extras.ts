/** The unit sheet's terms: which floor, when it is delivered, and what it takes to hold it (the deposit). */
import { h } from '../dom.ts';
import { x } from '../extra-words.ts';
import { currency, money } from '../format.ts';
import { flag, settings, state } from '../state.ts';
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

/** The amount a hold asks for: the project's deposit (`payProviderDeposit`), else the unit's `payableAmount`. */
export function depositAmount(u: Room): number | undefined {
  const s = settings();
  if (typeof s.payProviderDeposit === 'number' && s.payProviderDeposit > 0) return s.payProviderDeposit;
  return typeof u.payableAmount === 'number' && u.payableAmount > 0 ? u.payableAmount : undefined;
}

/** The deposit terms: how much, in which currency, and what is payable on this unit. */
export function depositTerms(u: Room): HTMLElement | undefined {
  const deposit = depositAmount(u);
  const payable = typeof u.payableAmount === 'number' && u.payableAmount > 0 ? u.payableAmount : undefined;
  if (deposit === undefined && payable === undefined) return undefined;
  const rows = [
    deposit !== undefined ? [x().depositTerms, flag('onHoldExperienceEnabled') ? x().depositToHold(money(deposit)) : money(deposit)] : undefined,
    payable !== undefined && payable !== deposit ? [x().payable, money(payable)] : undefined,
    [x().currency, currency()],
  ].filter((r): r is string[] => r !== undefined);
  return h(
    'section',
    { class: 'terms', id: 'unit-terms', 'aria-label': x().depositTerms },
    h('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
  );
}
