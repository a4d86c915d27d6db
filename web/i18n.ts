/** The page's own words. `projectLang` picks the language; unknown languages fall back to English. */
import { useExtraWords } from './extra-words.ts';
import { useUnitWords } from './unit-words.ts';
import { useBuildingWords } from './building-words.ts';
import { en, type Language, type Words } from './words/en.ts';

/** The languages the page speaks beyond English, each loaded only for a page in it. */
const CHUNKS: Partial<Record<string, () => Promise<{ default: Language }>>> = {
  fr: () => import('./words/fr.ts'),
  es: () => import('./words/es.ts'),
};
const loadedLanguages = new Map<string, Language>();
const loadingLanguages = new Map<string, Promise<boolean>>();

const codeOf = (lang: unknown) => (typeof lang === 'string' ? lang.slice(0, 2).toLowerCase() : 'en');

/**
 * Fetches the words of `projectLang`'s language, if it is not English and not yet here: called before the first screen
 * is drawn, so no word shows in English first. False when its chunk could not be loaded (the page is then in English).
 */
export function loadLanguage(lang: unknown): Promise<boolean> {
  const code = codeOf(lang);
  const load = CHUNKS[code];
  if (!load || loadedLanguages.has(code)) return Promise.resolve(true);
  let loading = loadingLanguages.get(code);
  if (!loading) {
    loading = load().then(
      (m) => {
        loadedLanguages.set(code, m.default);
        return true;
      },
      () => {
        // Not fetched: a later call tries again.
        loadingLanguages.delete(code);
        return false;
      },
    );
    loadingLanguages.set(code, loading);
  }
  return loading;
}

/** Whether `useLanguage(lang)` can speak it now (English, or a language `loadLanguage` brought). */
export const languageLoaded = (lang: unknown) => !CHUNKS[codeOf(lang)] || loadedLanguages.has(codeOf(lang));

let current: Words = en;
/** The words in use. */
export const t = () => current;
/** Chooses the page's language (and sets <html lang>): one `loadLanguage` loaded, else English. */
export function useLanguage(lang: unknown) {
  const code = codeOf(lang);
  const words = loadedLanguages.get(code);
  current = words?.t ?? en;
  useExtraWords(words?.x);
  useUnitWords(words?.u);
  useBuildingWords(words?.bw);
  document.documentElement.lang = words ? code : 'en';
}
