/** The group page's words and numbers in the group's language (`groupLang`: en, fr, es). */

type Data = Record<string, unknown>;

const EN = {
  available: 'available',
  from: 'From',
  see: 'See the homes',
  none: 'No projects yet.',
  website: 'Website',
  projects: 'Projects',
  pickBuilding: 'Choose a building',
  homes: 'Homes',
  views: 'Views',
  view: { List: 'List', Grid: 'Grid', Map: 'Map' },
  floors: 'Floors',
  of: 'of',
  noHomes: 'No homes match these filters.',
  shown: (n: number, total: number) => `${n} of ${total} homes`,
  price: 'Price',
  area: 'Area',
  min: 'min',
  max: 'max',
  apply: 'Apply',
  clear: 'Clear',
  beds: 'bed',
  baths: 'bath',
  tbd: 'Price on request',
  plusTaxes: '+ taxes',
  taxesIncluded: 'taxes included',
  delivery: 'Delivery',
  poweredBy: 'Presentation by Showsuite',
  status: { available: 'Available', on_hold: 'On hold', reserved: 'Reserved', sold: 'Sold', leased: 'Leased', unavailable: 'Unavailable' } as Record<
    string,
    string
  >,
};
type Words = typeof EN;

const FR: Words = {
  available: 'disponibles',
  from: 'À partir de',
  see: 'Voir les logements',
  none: 'Aucun projet pour le moment.',
  website: 'Site web',
  projects: 'Projets',
  pickBuilding: 'Choisissez un immeuble',
  homes: 'Logements',
  views: 'Vues',
  view: { List: 'Liste', Grid: 'Grille', Map: 'Carte' },
  floors: 'Étages',
  of: 'sur',
  noHomes: 'Aucun logement ne correspond à ces filtres.',
  shown: (n, total) => `${n} logements sur ${total}`,
  price: 'Prix',
  area: 'Surface',
  min: 'min',
  max: 'max',
  apply: 'Appliquer',
  clear: 'Effacer',
  beds: 'ch.',
  baths: 'sdb',
  tbd: 'Prix sur demande',
  plusTaxes: '+ taxes',
  taxesIncluded: 'taxes incluses',
  delivery: 'Livraison',
  poweredBy: 'Présentation par Showsuite',
  status: { available: 'Disponible', on_hold: 'Réservé temporairement', reserved: 'Réservé', sold: 'Vendu', leased: 'Loué', unavailable: 'Indisponible' },
};

const ES: Words = {
  available: 'disponibles',
  from: 'Desde',
  see: 'Ver las viviendas',
  none: 'Todavía no hay proyectos.',
  website: 'Sitio web',
  projects: 'Proyectos',
  pickBuilding: 'Elija un edificio',
  homes: 'Viviendas',
  views: 'Vistas',
  view: { List: 'Lista', Grid: 'Cuadrícula', Map: 'Mapa' },
  floors: 'Plantas',
  of: 'de',
  noHomes: 'Ninguna vivienda coincide con estos filtros.',
  shown: (n, total) => `${n} de ${total} viviendas`,
  price: 'Precio',
  area: 'Superficie',
  min: 'mín',
  max: 'máx',
  apply: 'Aplicar',
  clear: 'Borrar',
  beds: 'dorm.',
  baths: 'baño',
  tbd: 'Precio a consultar',
  plusTaxes: '+ impuestos',
  taxesIncluded: 'impuestos incluidos',
  delivery: 'Entrega',
  poweredBy: 'Presentación de Showsuite',
  status: { available: 'Disponible', on_hold: 'En espera', reserved: 'Reservado', sold: 'Vendido', leased: 'Alquilado', unavailable: 'No disponible' },
};

export const groupWords = (lang: string): Words => (lang === 'fr' ? FR : lang === 'es' ? ES : EN);

/** A project's currency: its payment provider's, else its charge currency, else US dollars. */
export function currencyOf(p: Data): string {
  for (const v of [p.payProviderCurrency, p.chargeCurrency]) if (typeof v === 'string' && v) return v;
  return 'usd';
}

export function money(n: number, currency: string, lang: string): string {
  try {
    return new Intl.NumberFormat(lang, { style: 'currency', currency: currency.toUpperCase(), maximumFractionDigits: 0 }).format(n);
  } catch {
    return n.toLocaleString(lang);
  }
}

/** "March 2027" for `2027-03`, the day too for a full date; any other text as written. */
export function deliveryText(v: string, lang: string): string {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?/.exec(v);
  if (!m) return v;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m.at(3) ?? 1)));
  return Number.isNaN(d.getTime()) ? v : d.toLocaleDateString(lang, { year: 'numeric', month: 'long', ...(m[3] ? { day: 'numeric' } : {}), timeZone: 'UTC' });
}
