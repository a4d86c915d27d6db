/** Prices, areas and facts in the project's language, currency and area unit. */
import { t } from './i18n.ts';
import { x } from './extra-words.ts';
import { currencyOf, englishInteger, englishMoney } from './numbers.ts';
import { flag, settings } from './state.ts';
import type { Room } from './types.ts';
import { isHome } from './counting.ts';

const lang = () => document.documentElement.lang || 'en';

/** The project's currency: its payment provider's, else its charge currency, else US dollars. */
export const currency = (): string => currencyOf(settings());

/**
 * One formatter per language and currency, kept: building an Intl formatter costs far more than using one (the
 * building view formats a price per cell, and a page's first draw built hundreds of them).
 */
const formatters = new Map<string, Intl.NumberFormat>();
function formatter(currencyCode: string | undefined): Intl.NumberFormat {
  const key = `${lang()} ${currencyCode ?? ''}`;
  let f = formatters.get(key);
  if (!f) {
    if (!currencyCode) f = new Intl.NumberFormat(lang());
    else {
      try {
        f = new Intl.NumberFormat(lang(), { style: 'currency', currency: currencyCode, maximumFractionDigits: 0 });
      } catch {
        // A currency the browser does not know: whole numbers, no symbol.
        f = new Intl.NumberFormat(lang(), { maximumFractionDigits: 0 });
      }
    }
    formatters.set(key, f);
  }
  return f;
}

export function money(n: number): string {
  const code = currency();
  return (lang() === 'en' ? englishMoney(n, code) : undefined) ?? formatter(code).format(n);
}

/**
 * Builds the formatter the first draw will use, if it needs one (English in a common currency needs none: see
 * numbers.ts). The browser's first number formatter is slow to make, so the page makes it in a task of its own.
 */
export function prepareFormats() {
  if (lang() === 'en' && englishMoney(0, currency()) !== undefined) return;
  if (showsPrices()) formatter(currency());
  else if (showsArea()) formatter(undefined);
}

export const areaUnit = () => (typeof settings().areaUnit === 'string' && settings().areaUnit ? String(settings().areaUnit) : 'sq ft');
export const showsPrices = () => settings().showPrices !== false;
export const showsArea = () => !flag('hideArea');

export function priceText(u: Room): string | undefined {
  if (!showsPrices() || u.stub) return undefined;
  if (u.unitPriceTBD === true || typeof u.price !== 'number') return t().tbd;
  const taxes = flag('showTaxes') ? ` ${settings().priceBeforeTax === false ? t().taxesIncluded : t().plusTaxes}` : '';
  // A rental's price is its rent (`rentalObject`): "$2,400 / month".
  const rent = flag('rentalObject') ? ` ${x().perMonth}` : '';
  return `${flag('pricesStartingAt') ? `${t().from} ` : ''}${money(u.price)}${rent}${taxes}`;
}

/** "75 m²", and what the area measures (`areaDescription`, "interior") beside it wherever an area is shown. */
export const areaText = (u: Room) =>
  showsArea() && typeof u.squareFeet === 'number'
    ? `${(lang() === 'en' ? englishInteger(u.squareFeet) : undefined) ?? formatter(undefined).format(u.squareFeet)} ${areaUnit()}${
        typeof settings().areaDescription === 'string' && settings().areaDescription ? ` (${String(settings().areaDescription)})` : ''
      }`
    : undefined;

/** "$1,050 / sq ft" when both a price and an area are shown. */
export function perArea(u: Room): string | undefined {
  if (
    !showsPrices() ||
    !showsArea() ||
    flag('rentalObject') ||
    u.unitPriceTBD === true ||
    typeof u.price !== 'number' ||
    typeof u.squareFeet !== 'number' ||
    u.squareFeet <= 0
  )
    return undefined;
  return `${money(u.price / u.squareFeet)} / ${areaUnit()}`;
}

export function factsLine(u: Room): string {
  const parts: string[] = [];
  // A lot (`landOnly`) has no rooms: its area alone.
  if (!flag('landOnly') && !flag('hideBedrooms') && u.bedrooms) parts.push(`${u.bedrooms} ${t().beds}`);
  if (!flag('landOnly') && typeof u.bathrooms === 'number') parts.push(`${u.bathrooms} ${t().baths}`);
  const area = areaText(u);
  if (area) parts.push(area);
  return parts.join(' · ');
}

/**
 * "From $400,000" (`pricesStartingAt`): the lowest price among the homes on offer (the available ones; every one where
 * the project hides availability, so the figure says nothing of what is sold). Amenities, parking and storage are no homes.
 */
export function fromPrice(units: Room[]): string | undefined {
  return flag('pricesStartingAt') ? lowestPrice(units) : undefined;
}

/** "From <lowest price>" among the homes on offer, whatever `pricesStartingAt` says (the floor overview's own figure); none where prices are hidden. */
export function lowestPrice(units: Room[]): string | undefined {
  if (!showsPrices()) return undefined;
  const hidden = settings().showAvailability === false;
  const prices = units
    .filter((u) => !u.stub && isHome(u) && u.unitPriceTBD !== true && (hidden || u.availability === 'available'))
    .map((u) => u.price)
    .filter((p): p is number => typeof p === 'number');
  return prices.length ? `${t().from} ${money(Math.min(...prices))}` : undefined;
}

export const statusText = (availability: string) => t().status[availability] ?? availability;

export function clock(iso: string) {
  return new Date(iso).toLocaleTimeString(lang(), { hour: '2-digit', minute: '2-digit' });
}
