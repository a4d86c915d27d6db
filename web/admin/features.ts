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
};

/**
 * The origin of the buyer's pages (`<body data-pages>`): another host than the console's, so a project's page link
 * opens there, never on the console's origin. Empty (same origin) only for a console served without it.
 */
export const PAGES_ORIGIN = typeof document === 'undefined' ? '' : (document.body.dataset.pages ?? '');

/** The absolute address of a project's page. */
export const pageUrl = (namespace: string) => `${PAGES_ORIGIN}/p/${encodeURIComponent(namespace)}`;
