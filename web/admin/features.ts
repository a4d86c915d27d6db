/**
 * Screens whose endpoints this service has. The server names them in `<body data-features>` (it checks its own
 * routes), so a console built before an endpoint existed lights the screen up once it does, and never shows a
 * screen whose calls would fail.
 */
const names = new Set((typeof document === 'undefined' ? '' : (document.body.dataset.features ?? '')).split(/\s+/).filter(Boolean));

export const FEATURES = {
  /** PATCH /units (bulk), CSV import with dry run, CSV export. */
  inventory: names.has('inventory'),
  /** Invitations and password reset. */
  mail: names.has('mail'),
  /** Unit history. */
  history: names.has('history'),
  /** Webhooks and their deliveries. */
  webhooks: names.has('webhooks'),
  /** Single sign-on through the company's OpenID Connect provider (configured on the server). */
  sso: names.has('sso'),
  /** Plans (BILLING=stripe): the Profile's Plan section. */
  billing: names.has('billing'),
};

/**
 * The origin of the buyer's pages (`<body data-pages>`): another host than the console's, so a project's page link
 * opens there, never on the console's origin. Empty (same origin) only for a console served without it.
 */
export const PAGES_ORIGIN = typeof document === 'undefined' ? '' : (document.body.dataset.pages ?? '');

/** The absolute address of a project's page. */
export const pageUrl = (namespace: string) => `${PAGES_ORIGIN}/p/${encodeURIComponent(namespace)}`;

/** The map's styles by `mapStyle` and MapLibre's worker (`<body data-map>`, from the server's settings). */
export interface MapSettings {
  styles: Partial<Record<string, string>>;
  worker: string;
}
export const MAP_SETTINGS: MapSettings | undefined = (() => {
  const text = typeof document === 'undefined' ? undefined : document.body.dataset.map;
  if (!text) return undefined;
  try {
    return JSON.parse(text) as MapSettings;
  } catch {
    return undefined;
  }
})();
