/** Prices, areas and facts in the project's language, currency and area unit. */
import { t } from './i18n.ts';
import { flag, settings } from './state.ts';
import type { Unit } from './types.ts';

const lang = () => document.documentElement.lang || 'en';

/** The project's currency: its payment provider's, else its charge currency, else US dollars. */
export function currency(): string {
  const s = settings();
  const pick = [s.payProviderCurrency, s.chargeCurrency].find((c) => typeof c === 'string' && /^[a-z]{3}$/i.test(c));
  return typeof pick === 'string' ? pick.toUpperCase() : 'USD';
}

export function money(n: number): string {
  try {
    return new Intl.NumberFormat(lang(), { style: 'currency', currency: currency(), maximumFractionDigits: 0 }).format(n);
  } catch {
    return Math.round(n).toLocaleString(lang());
  }
}

export const areaUnit = () => (typeof settings().areaUnit === 'string' && settings().areaUnit ? String(settings().areaUnit) : 'sq ft');
export const showsPrices = () => settings().showPrices !== false;
export const showsArea = () => !flag('hideArea');

export function priceText(u: Unit): string | undefined {
  if (!showsPrices() || u.stub) return undefined;
  if (u.unitPriceTBD === true || typeof u.price !== 'number') return t().tbd;
  const taxes = flag('showTaxes') ? ` ${settings().priceBeforeTax === false ? t().taxesIncluded : t().plusTaxes}` : '';
  return `${flag('pricesStartingAt') ? `${t().from} ` : ''}${money(u.price)}${taxes}`;
}

export const areaText = (u: Unit) => (showsArea() && typeof u.squareFeet === 'number' ? `${u.squareFeet.toLocaleString(lang())} ${areaUnit()}` : undefined);

/** "$1,050 / sq ft" when both a price and an area are shown. */
export function perArea(u: Unit): string | undefined {
  if (!showsPrices() || !showsArea() || u.unitPriceTBD === true || typeof u.price !== 'number' || typeof u.squareFeet !== 'number' || u.squareFeet <= 0) return undefined;
  return `${money(u.price / u.squareFeet)} / ${areaUnit()}`;
}

export function factsLine(u: Unit): string {
  const parts: string[] = [];
  if (!flag('hideBedrooms') && u.bedrooms) parts.push(`${u.bedrooms} ${t().beds}`);
  if (typeof u.bathrooms === 'number') parts.push(`${u.bathrooms} ${t().baths}`);
  const area = areaText(u);
  if (area) parts.push(area);
  return parts.join(' · ');
}

export const statusText = (availability: string) => t().status[availability] ?? availability;

export function clock(iso: string) {
  return new Date(iso).toLocaleTimeString(lang(), { hour: '2-digit', minute: '2-digit' });
}
