/**
 * English numbers and prices without Intl. The browser's first Intl.NumberFormat is slow to make (its locale data is
 * loaded then: 20–30 ms of a phone's main thread, the page's longest start-up task), so for English in the
 * currencies below the page writes them itself, exactly as Intl.NumberFormat('en', …) does
 * (test/presentation-numbers.test.ts compares the two); anything else is left to Intl (undefined here).
 */
const EN_SYMBOLS: Partial<Record<string, string>> = { USD: '$', EUR: '€', GBP: '£', CAD: 'CA$', AUD: 'A$', NZD: 'NZ$', MXN: 'MX$', JPY: '¥' };

const grouped = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
// Intl writes negative zero with its sign, as it writes every negative number.
const sign = (n: number) => (n < 0 || Object.is(n, -0) ? '-' : '');

/** `Intl.NumberFormat('en', { style: 'currency', currency, maximumFractionDigits: 0 }).format(n)`, if this knows how. */
export function englishMoney(n: number, currency: string): string | undefined {
  const symbol = EN_SYMBOLS[currency];
  // Past 1e21 a number's digits are written with an exponent.
  if (symbol === undefined || !Number.isFinite(n) || Math.abs(n) >= 1e21) return undefined;
  // Half away from zero, as Intl rounds.
  return `${sign(n)}${symbol}${grouped(String(Math.round(Math.abs(n))))}`;
}

/** `Intl.NumberFormat('en').format(n)` for a whole number; undefined for any other. */
export function englishInteger(n: number): string | undefined {
  if (!Number.isInteger(n) || Math.abs(n) >= 1e21) return undefined;
  return `${sign(n)}${grouped(String(Math.abs(n)))}`;
}

/**
 * The currency a project's prices are written in (upper case ISO 4217): its payment provider's, else its
 * `chargeCurrency`, else US dollars. The page formats every price in it; the console shows and sets the same.
 */
export function currencyOf(s: Readonly<Record<string, unknown>>): string {
  const pick = [s.payProviderCurrency, s.chargeCurrency].find((c) => typeof c === 'string' && /^[a-z]{3}$/i.test(c));
  return typeof pick === 'string' ? pick.toUpperCase() : 'USD';
}
