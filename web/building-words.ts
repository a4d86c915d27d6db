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

const fr: BuildingWords = {
  picture: 'L’immeuble : choisissez un étage',
  openFloor: (floor) => `Ouvrir ${floor}`,
  building3d: 'Voir l’immeuble en 3D',
  floors3d: 'Choisir un étage en 3D',
  model3d: (name) => `Modèle 3D : ${name}`,
  floorsHint: 'Touchez un étage du modèle pour l’ouvrir ; faites-le tourner en le glissant.',
  loading: 'Chargement du modèle 3D…',
  noWebgl: 'Ce navigateur ne peut pas afficher de modèle 3D (WebGL désactivé). L’image et la liste des étages restent utilisables.',
  failed: 'Le modèle 3D n’a pas pu être chargé.',
  unitModel: (i, n) => (n > 1 ? `Voir en 3D (${i} sur ${n})` : 'Voir en 3D'),
  overview: 'Les étages en un coup d’œil',
  onOffer: (n, total) => `${n} sur ${total} disponible${n > 1 ? 's' : ''}`,
  homes: (n) => `${n} logement${n > 1 ? 's' : ''}`,
};

const es: BuildingWords = {
  picture: 'El edificio: elija una planta',
  openFloor: (floor) => `Abrir ${floor}`,
  building3d: 'Ver el edificio en 3D',
  floors3d: 'Elegir una planta en 3D',
  model3d: (name) => `Modelo 3D: ${name}`,
  floorsHint: 'Toque una planta del modelo para abrirla; arrástrelo para girarlo.',
  loading: 'Cargando el modelo 3D…',
  noWebgl: 'Este navegador no puede mostrar modelos 3D (WebGL desactivado). La imagen y la lista de plantas siguen disponibles.',
  failed: 'No se pudo cargar el modelo 3D.',
  unitModel: (i, n) => (n > 1 ? `Ver en 3D (${i} de ${n})` : 'Ver en 3D'),
  overview: 'Las plantas de un vistazo',
  onOffer: (n, total) => `${n} de ${total} disponible${n === 1 ? '' : 's'}`,
  homes: (n) => `${n} vivienda${n === 1 ? '' : 's'}`,
};

const LANGS: Record<string, BuildingWords> = { en, fr, es };

/** The words in the page's language (the one `useLanguage` set on <html lang>). */
export const bw = (): BuildingWords => LANGS[document.documentElement.lang] ?? en;
