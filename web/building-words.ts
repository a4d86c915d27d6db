/** The words of the building's picture, its 3D models and the floor overview, per language like i18n.ts. */
const en = {
  picture: 'The building: choose a floor',
  openFloor: (floor: string) => `Open ${floor}`,
  building3d: 'View the building in 3D',
  floors3d: 'Choose a floor in 3D',
  model3d: (name: string) => `3D model: ${name}`,
  floorsHint: 'Tap a floor of the model to open it; drag to turn it.',
  loading: 'Loading the 3D model…',
  noWebgl: 'This browser cannot show 3D models (WebGL is off). The picture and the list of floors still work.',
  failed: 'The 3D model could not be loaded.',
  unitModel: (i: number, n: number) => (n > 1 ? `View in 3D (${i} of ${n})` : 'View in 3D'),
  overview: 'Floors at a glance',
  onOffer: (n: number, total: number) => `${n} of ${total} available`,
  homes: (n: number) => (n === 1 ? '1 home' : `${n} homes`),
};

export type BuildingWords = typeof en;

let current: BuildingWords = en;
/** The words in the page's language (the one `useLanguage` chose; French and Spanish are chunks: web/words/). */
export const bw = (): BuildingWords => current;
/** Set by `useLanguage` (web/i18n.ts): a language's words, or undefined for English. */
export function useBuildingWords(words: BuildingWords | undefined) {
  current = words ?? en;
}
