/** The unit sheet's terms: which floor, when it is delivered, and what it takes to hold it (the deposit). */
import { depositFor } from '../../src/modules/deposits/amounts.ts';
import { h, safeUrl } from '../dom.ts';
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

/**
 * The deposit a hold of `u` takes, as the server will ask for it (the same rule, `depositFor`), or undefined. Only on a
 * project taking deposits (the bundle's `project.deposits`: payments on and the owner's Stripe account onboarded),
 * for a unit one can hold now; anywhere else the page says nothing of a deposit and the hold is a plain hold.
 */
export function holdDeposit(u: Room): { amount: number; currency: string } | undefined {
  if (!flag('deposits') || !flag('onHoldExperienceEnabled') || u.stub || u.availability !== 'available' || state.holds.has(u._id)) return undefined;
  return depositFor(settings(), u);
}

/** A deposit in the page's language: "$5,000", "5 000 €", cents only when it has some. */
export function depositText(d: { amount: number; currency: string }): string {
  const code = d.currency.toUpperCase();
  if (Number.isInteger(d.amount) && code === currency()) return money(d.amount);
  const lang = document.documentElement.lang || 'en';
  try {
    return new Intl.NumberFormat(lang, { style: 'currency', currency: code, ...(Number.isInteger(d.amount) ? { maximumFractionDigits: 0 } : {}) }).format(
      d.amount,
    );
  } catch {
    return `${d.amount} ${code}`;
  }
}

/**
 * The face of the button that holds a unit with a deposit: `payButtonIcon` (an image address) before `payButtonText`.
 * The spec's default text ("Pay Now"), or none, reads in the page's language.
 */
export function payButtonFace(): (HTMLElement | string)[] {
  const s = settings();
  const own = typeof s.payButtonText === 'string' ? s.payButtonText.trim() : '';
  const icon = safeUrl(s.payButtonIcon);
  return [
    ...(icon ? [h('img', { src: icon, alt: '', width: '18', height: '18', class: 'btn-icon' })] : []),
    own && own !== DEFAULT_PAY_TEXT ? own : x().payNow,
  ];
}
/** payButtonText as a new project has it. */
const DEFAULT_PAY_TEXT = 'Pay Now';

/**
 * The unit's terms: what a hold of it takes (its deposit, where one is taken: "$5,000 deposit to hold this home"),
 * what is payable on it (`payableAmount`, unless that is the deposit itself) and in which currency.
 */
export function depositTerms(u: Room): HTMLElement | undefined {
  const deposit = holdDeposit(u);
  const payable = typeof u.payableAmount === 'number' && u.payableAmount > 0 ? u.payableAmount : undefined;
  // Not said twice: with chargeType `unit` the payable amount is the deposit the line above says.
  const shownPayable = deposit && settings().chargeType === 'unit' && deposit.amount === payable ? undefined : payable;
  if (!deposit && shownPayable === undefined) return undefined;
  const rows =
    shownPayable === undefined
      ? []
      : [
          [x().payable, money(shownPayable)],
          [x().currency, currency()],
        ];
  return h(
    'section',
    { class: 'terms', id: 'unit-terms', 'aria-label': x().depositTerms },
    deposit ? h('p', { class: 'deposit-line', id: 'unit-deposit' }, x().depositToHold(depositText(deposit))) : undefined,
    rows.length ? h('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])) : undefined,
  );
}
