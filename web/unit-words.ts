/**
 * The words of the unit's extras (the Featured mark, other spaces' headings, inclusions, finishes, variants and
 * similar homes, downloads, tours), per language like i18n.ts, in the language `useLanguage` chose.
 */
const en = {
  featured: 'Featured',
  layoutType: 'Layout type',
  amenities: 'Amenities',
  parking: 'Parking',
  storage: 'Storage',
  other: 'Other spaces',
  inclusions: 'Inclusions',
  finishes: 'Finishes',
  packages: 'Finish packages',
  kitchen: 'Kitchen',
  bathroom: 'Bathroom',
  general: 'General',
  chosen: 'This home’s choice',
  variants: 'Other homes of this layout',
  similar: 'Similar homes',
  download: 'Download',
  tour: 'Tour and video',
  moreInfo: 'More information',
};
export type UnitWords = typeof en;

const fr: UnitWords = {
  featured: 'En vedette',
  layoutType: 'Modèle',
  amenities: 'Espaces communs',
  parking: 'Stationnement',
  storage: 'Rangement',
  other: 'Autres espaces',
  inclusions: 'Inclusions',
  finishes: 'Finitions',
  packages: 'Forfaits de finitions',
  kitchen: 'Cuisine',
  bathroom: 'Salle de bain',
  general: 'Général',
  chosen: 'Le choix de ce logement',
  variants: 'Autres logements de ce modèle',
  similar: 'Logements semblables',
  download: 'Télécharger',
  tour: 'Visite et vidéo',
  moreInfo: 'Plus d’informations',
};

const es: UnitWords = {
  featured: 'Destacada',
  layoutType: 'Tipología',
  amenities: 'Áreas comunes',
  parking: 'Estacionamiento',
  storage: 'Bodega',
  other: 'Otros espacios',
  inclusions: 'Incluye',
  finishes: 'Acabados',
  packages: 'Paquetes de acabados',
  kitchen: 'Cocina',
  bathroom: 'Baño',
  general: 'General',
  chosen: 'La elección de esta vivienda',
  variants: 'Otras viviendas de esta tipología',
  similar: 'Viviendas similares',
  download: 'Descargar',
  tour: 'Recorrido y video',
  moreInfo: 'Más información',
};

const LANGS: Record<string, UnitWords> = { en, fr, es };

/** The words in the page's language (the one `useLanguage` set on <html lang>). */
export const u = (): UnitWords => LANGS[document.documentElement.lang] ?? en;
