import type { FieldError } from '../../http/errors.ts';

/**
 * The currencies Stripe charges in (lower-case ISO 4217), from Stripe's list of supported presentment currencies
 * (Stripe's "Supported currencies").
 */
const STRIPE_CURRENCIES = new Set(
  (
    'usd aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd bob brl bsd bwp byn bzd cad cdf chf clp cny cop crc ' +
    'cve czk djf dkk dop dzd egp etb eur fjd fkp gbp gel gip gmd gnf gtq gyd hkd hnl htg huf idr ils inr isk jmd jod jpy kes kgs khr kmf ' +
    'krw kwd kyd kzt lak lbp lkr lrd lsl mad mdl mga mkd mmk mnt mop mur mvr mwk mxn myr mzn nad ngn nio nok npr nzd omr pab pen pgk php ' +
    'pkr pln pyg qar ron rsd rub rwf sar sbd scr sek sgd shp sle sos srd std szl thb tjs tnd top try ttd twd tzs uah ugx uyu uzs vnd vuv ' +
    'wst xaf xcd xof xpf yer zar zmw'
  ).split(' '),
);

/** Currencies Stripe counts in whole units (no minor unit): 500 JPY is `500`. */
const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);
/** Currencies with three decimals; Stripe takes them only in multiples of 10 minor units. */
const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/**
 * Stripe's minimum charge per settlement currency, in minor units (Stripe's "Supported currencies": minimum and maximum charge amounts).
 * Other currencies: at least 50 minor units, Stripe's minimum being the equivalent of US$0.50.
 */
const MINIMUM: Record<string, number> = {
  usd: 50,
  aed: 200,
  aud: 50,
  bgn: 100,
  brl: 50,
  cad: 50,
  chf: 50,
  czk: 1500,
  dkk: 250,
  eur: 50,
  gbp: 30,
  hkd: 400,
  huf: 17500,
  inr: 50,
  jpy: 50,
  mxn: 1000,
  myr: 200,
  nok: 300,
  nzd: 50,
  pln: 200,
  ron: 200,
  sek: 300,
  sgd: 50,
  thb: 1000,
};
/** Stripe's amount field takes up to eight digits. */
const MAXIMUM = 99_999_999;

export const isStripeCurrency = (c: unknown): c is string => typeof c === 'string' && STRIPE_CURRENCIES.has(c);

const decimals = (currency: string) => (ZERO_DECIMAL.has(currency) ? 0 : THREE_DECIMAL.has(currency) ? 3 : 2);

/** An amount in the currency's major unit (as the fields are written: 500 is $500.00) in its minor unit (50000). */
export const toMinor = (amount: number, currency: string) => Math.round(amount * 10 ** decimals(currency));
/** Back to the major unit, for words a person reads. */
export const toMajor = (minor: number, currency: string) => minor / 10 ** decimals(currency);

/** The currency a project's deposits are charged in: `chargeCurrency`, else `payProviderCurrency`, else usd. */
export function depositCurrency(settings: Record<string, unknown>): string {
  const pick = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim().toLowerCase() : undefined);
  return pick(settings.chargeCurrency) ?? pick(settings.payProviderCurrency) ?? 'usd';
}

/**
 * A unit's deposit in the major unit: with chargeType `unit` the unit's `payableAmount`, else `payProviderDeposit`;
 * otherwise (`same`, the default) `globalAmount`. 0 when none is set: the hold takes no money.
 */
export function depositAmount(settings: Record<string, unknown>, unit: Record<string, unknown>): number {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
  if (settings.chargeType === 'unit') return num(unit.payableAmount) ?? num(settings.payProviderDeposit) ?? 0;
  return num(settings.globalAmount) ?? 0;
}

/**
 * The deposit a hold of `unit` takes, in the major unit and its currency, or undefined when it takes none (no amount,
 * or one Stripe would refuse: a value from before the write checks). Whether payments are on and the owner onboarded
 * is the caller's to know. The buyer's page says this same amount before the hold (web/views/sheet-extras.ts).
 */
export function depositFor(settings: Record<string, unknown>, unit: Record<string, unknown>): { amount: number; currency: string } | undefined {
  const currency = depositCurrency(settings);
  const amount = depositAmount(settings, unit);
  if (amount <= 0 || !isStripeCurrency(currency) || amountProblem(amount, currency)) return undefined;
  return { amount, currency };
}

/** Why Stripe would refuse `amount` (major unit) in `currency`, or undefined when it would take it. 0 is no deposit. */
export function amountProblem(amount: unknown, currency: string): string | undefined {
  if (typeof amount !== 'number' || amount === 0) return undefined;
  if (amount < 0) return 'must not be negative';
  const minor = amount * 10 ** decimals(currency);
  if (Math.abs(minor - Math.round(minor)) > 1e-6) return `has more decimals than ${currency} allows (${decimals(currency)})`;
  const rounded = Math.round(minor);
  if (THREE_DECIMAL.has(currency) && rounded % 10 !== 0) return `must be a multiple of 0.01 ${currency} (Stripe takes ${currency} in tens of its minor unit)`;
  const min = MINIMUM[currency] ?? 50;
  if (rounded < min) return `is below Stripe's minimum charge of ${toMajor(min, currency)} ${currency}`;
  if (rounded > MAXIMUM) return `is above Stripe's maximum charge of ${toMajor(MAXIMUM, currency)} ${currency}`;
  return undefined;
}

/** Deposit fields of a project after a change (`next`): each changed one that Stripe would refuse, by name. */
export function projectDepositErrors(next: Record<string, unknown>, changed: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of ['chargeCurrency', 'payProviderCurrency'] as const) {
    const v = next[key];
    if (changed.includes(key) && typeof v === 'string' && v !== '' && !isStripeCurrency(v)) {
      errors.push({ path: `/${key}`, message: 'must be a currency Stripe charges in, as a lower-case ISO 4217 code such as usd' });
    }
  }
  if (errors.length) return errors;
  const currency = depositCurrency(next);
  const currencyChanged = changed.includes('chargeCurrency') || changed.includes('payProviderCurrency');
  for (const key of ['globalAmount', 'payProviderDeposit'] as const) {
    if (!changed.includes(key) && !currencyChanged) continue;
    const problem = amountProblem(next[key], currency);
    if (problem) errors.push({ path: `/${key}`, message: problem });
  }
  return errors;
}
