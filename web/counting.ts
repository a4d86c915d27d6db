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
