/**
 * The payment calculator in the unit sheet: the unit's price, a deposit in per cent, a yearly rate and a term in
 * years give the monthly payment of a standard repayment loan (web/counting.ts), in the project's currency. The
 * visitor's last figures (not the price) are kept for the visit, so the next unit shows the same terms.
 */
import { h } from '../dom.ts';
import { x } from '../extra-words.ts';
import { currency, money } from '../format.ts';
import { monthlyPayment } from '../counting.ts';

const KEY = 'showsuite:calculator';
const DEFAULTS = { deposit: '20', rate: '5', years: '25' };

function saved(): typeof DEFAULTS {
  try {
    const v = JSON.parse(sessionStorage.getItem(KEY) ?? '{}') as Record<string, unknown>;
    return {
      deposit: typeof v.deposit === 'string' ? v.deposit : DEFAULTS.deposit,
      rate: typeof v.rate === 'string' ? v.rate : DEFAULTS.rate,
      years: typeof v.years === 'string' ? v.years : DEFAULTS.years,
    };
  } catch {
    return DEFAULTS;
  }
}

const num = (v: string) => Number(v.replace(/[^\d.]/g, '') || 'NaN');

export function calculator(price: number): HTMLElement {
  const terms = saved();
  const field = (id: string, label: string, value: string, mode: string) =>
    h('label', { class: 'field' }, label, h('input', { id, type: 'text', inputmode: mode, autocomplete: 'off', value, oninput: update }));
  const out = h('output', { id: 'calc-monthly', class: 'calc-monthly', 'aria-live': 'polite' });
  const loanLine = h('span', { id: 'calc-loan', class: 'per-area' });
  const section = h(
    'section',
    { class: 'calculator', id: 'calculator', 'aria-labelledby': 'calc-title' },
    h('h3', { id: 'calc-title' }, x().calculator),
    h(
      'div',
      { class: 'calc-grid' },
      field('calc-price', `${x().price} (${currency()})`, String(Math.round(price)), 'numeric'),
      field('calc-deposit', x().depositPct, terms.deposit, 'decimal'),
      field('calc-rate', x().rate, terms.rate, 'decimal'),
      field('calc-years', x().years, terms.years, 'numeric'),
    ),
    h('p', { class: 'calc-result' }, `${x().monthly}: `, out, ' ', loanLine),
    h('p', { class: 'intro small' }, x().calcNote),
  );
  function update() {
    const get = (id: string) => (section.querySelector(`#${id}`) as HTMLInputElement).value;
    const [p, d, r, y] = [num(get('calc-price')), num(get('calc-deposit')), num(get('calc-rate')), num(get('calc-years'))];
    const m = monthlyPayment(p, d, r, y);
    out.textContent = m === undefined ? '–' : money(Math.round(m));
    loanLine.textContent = m === undefined ? '' : `(${x().loan} ${money(Math.round(p * (1 - Math.min(d, 100) / 100)))})`;
    try {
      sessionStorage.setItem(KEY, JSON.stringify({ deposit: get('calc-deposit'), rate: get('calc-rate'), years: get('calc-years') }));
    } catch {
      // Not kept: the next unit starts from the defaults.
    }
  }
  update();
  return section;
}
