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

let current: UnitWords = en;
/** The words in the page's language (the one `useLanguage` chose; French and Spanish are chunks: web/words/). */
export const u = (): UnitWords => current;
/** Set by `useLanguage` (web/i18n.ts): a language's words, or undefined for English. */
export function useUnitWords(words: UnitWords | undefined) {
  current = words ?? en;
}
