/**
 * Pure arithmetic of the page (no DOM, unit-tested in test/unit/): how many filters are on, and the payment
 * calculator's monthly payment.
 */

/** Filters the Filters button counts: a range (min and/or max) is one filter; the search box is not one of them. */
const GROUPS: string[][] = [['priceMin', 'priceMax'], ['areaMin', 'areaMax'], ['bedrooms'], ['availability']];

export function activeFilterCount(filters: Record<string, string | undefined>): number {
  return GROUPS.filter((keys) => keys.some((k) => (filters[k] ?? '').trim() !== '')).length;
}

/**
 * The monthly payment of a repayment loan (the standard annuity formula): the price less the deposit, at a yearly
 * rate compounded monthly, over whole months. A zero rate divides the loan evenly. Nothing sensible to say
 * (no price, no term, a deposit of all of it or more) is 0; bad numbers are undefined.
 */
export function monthlyPayment(price: number, depositPct: number, yearlyRatePct: number, years: number): number | undefined {
  if (![price, depositPct, yearlyRatePct, years].every(Number.isFinite) || price < 0 || depositPct < 0 || yearlyRatePct < 0 || years <= 0 || years > 100)
    return undefined;
  const loan = price * (1 - Math.min(depositPct, 100) / 100);
  const months = Math.round(years * 12);
  if (loan <= 0 || months <= 0) return 0;
  const r = yearlyRatePct / 100 / 12;
  if (r === 0) return loan / months;
  return (loan * r) / (1 - (1 + r) ** -months);
}

/** What a unit is: a home (`specificType` empty or `unit`), or another space sold beside the homes. */
export type SpaceKind = 'home' | 'amenities' | 'parking' | 'storage' | 'other';

/**
 * The kind of space a unit's `specificType` names: `unit` (or nothing) is a home; amenities, parking and storage
 * (singular or plural, any case) are those; any other word is another space, never a home.
 */
export function spaceKind(specificType: unknown): SpaceKind {
  const v = typeof specificType === 'string' ? specificType.trim().toLowerCase() : '';
  if (v === '' || v === 'unit' || v === 'units') return 'home';
  if (/^amenit(y|ies)$/.test(v)) return 'amenities';
  if (/^parkings?$/.test(v)) return 'parking';
  if (/^storages?$/.test(v)) return 'storage';
  return 'other';
}

/** Whether a unit counts as a home: in counts, from-prices, availability numbers and filters. */
export const isHome = (u: { specificType?: unknown }) => spaceKind(u.specificType) === 'home';

/** The default order of a list: featured units first, keeping the order among the rest (a stable sort). */
export const featuredFirst = <T extends { isFeatured?: unknown }>(list: T[]): T[] =>
  [...list].sort((a, b) => Number(b.isFeatured === true) - Number(a.isFeatured === true));
