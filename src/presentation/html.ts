import { createHash, randomBytes } from 'node:crypto';
import type { AssetManifest } from '../lib/built-assets.ts';
import { mediaSrcset } from '../modules/media/srcset.ts';
import { escapeHtml, safeHref, str } from './html-text.ts';
import type { MapConfig } from '../config.ts';
import { mapCspSources, placeSection } from './map-section.ts';
import { heroFacts, projectInfo, shownAddress } from './project-info.ts';

export { escapeHtml, safeHref } from './html-text.ts';

type Data = Record<string, unknown>;

/** ` srcset="…" sizes="…"` (or the preload link's names) for an uploaded raster picture; '' for any other address. */
function sized(url: string, origin: string, sizes: string, srcsetName = 'srcset', sizesName = 'sizes', largest?: number): string {
  const srcset = mediaSrcset(url, origin, largest);
  return srcset ? ` ${srcsetName}="${escapeHtml(srcset)}" ${sizesName}="${escapeHtml(sizes)}"` : '';
}

/** Origins a Google Tag Manager container loads from and reports to (Google's CSP guidance for GTM and GA4). */
const GTM_SCRIPT = ['https://www.googletagmanager.com', 'https://*.googletagmanager.com', 'https://www.google-analytics.com', 'https://*.google-analytics.com'];
const GTM_CONNECT = ['https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://*.googletagmanager.com', 'https://www.google.com'];
const FONT_CSS = 'https://fonts.googleapis.com';
const FONT_FILES = 'https://fonts.gstatic.com';

/** `styleFont` is a font family name (e.g. "Montserrat"), loaded from Google Fonts; anything else is ignored. */
export function brandFont(settings: Data): string | undefined {
  const name = str(settings.styleFont);
  return name && /^[A-Za-z0-9 ]{1,60}$/.test(name) ? name : undefined;
}

/** The page's stylesheet, to be inlined in its HTML, and the CSP source that allows exactly that text. */
export interface InlineStyle {
  text: string;
  /** `'sha256-…'` of the text. */
  source: string;
}

/** Computed once (at start-up): the stylesheet's text is the build's, so its hash is the same for every response. */
export function inlineStyle(text: string): InlineStyle {
  // The text goes between <style> and </style>: it must not be able to end that element early.
  if (/<\/style/i.test(text)) throw new Error('the stylesheet cannot be inlined: it contains </style');
  return { text, source: `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'` };
}

/**
 * The page's Content-Security-Policy. By default only this origin and the page's own inlined stylesheet (its hash:
 * no other inline style runs); a project with `gtmEnabled` also allows its tag manager (its snippets run with this
 * response's nonce), and one with a brand font allows the font service. The policy is per response, so one
 * project's allowances never reach another project's page.
 */
export function pageCsp(
  settings: Data,
  nonce: string | undefined,
  style?: InlineStyle,
  viewerStyles: string[] = [],
  mapHosts?: { connect: string[]; img: string[] },
): string {
  const gtm = nonce !== undefined;
  const font = brandFont(settings) !== undefined;
  const models = gltfModelOrigins(settings);
  const model = models === undefined ? undefined : models.filter(Boolean).join(' ');
  const mapped = mapHosts ?? { connect: [], img: [] };
  return [
    "default-src 'self'",
    // The 3D viewer compiles WebAssembly (its mesh decoder): allowed on a page showing 3D (`enable3d`) only, never eval.
    ['script-src', "'self'", ...(model !== undefined ? ["'wasm-unsafe-eval'"] : []), ...(gtm ? [`'nonce-${nonce}'`, ...GTM_SCRIPT] : [])].join(' '),
    ['style-src', "'self'", ...(style ? [style.source] : []), ...(model !== undefined ? viewerStyles : []), ...(font ? [FONT_CSS] : [])].join(' '),
    [`img-src 'self' data: https:${model !== undefined ? ' blob:' : ''}`, ...mapped.img].join(' '),
    ['connect-src', "'self'", ...(model ? [model] : []), ...mapped.connect, ...(gtm ? GTM_CONNECT : [])].join(' '),
    ['font-src', "'self'", 'data:', ...(font ? [FONT_FILES] : [])].join(' '),
    ...(gtm ? ["frame-src 'self' https://www.googletagmanager.com"] : []),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    'frame-ancestors *',
  ].join('; ');
}

/** The project's model fields, each a glTF/GLB file or a hosted tour's address. */
const MODEL_FIELDS = ['_3dModelUrl', '_3dBuildingModelUrl', '_3dFloorSelectorModelUrl'] as const;

/**
 * Where a project's 3D models are fetched from, when the page shows 3D (`enable3d` true): '' stands for this origin
 * (relative addresses, uploaded media, units' `unitmodels` on this origin), then the https origin of each of the
 * project's glTF/GLB model fields on another origin; undefined when the page shows no 3D (no viewer is allowed).
 */
export function gltfModelOrigins(settings: Data): string[] | undefined {
  if (settings.enable3d !== true) return undefined;
  const origins = MODEL_FIELDS.map((k) => str(settings[k])).flatMap((v) => {
    try {
      const url = new URL(v ?? '', 'http://relative.invalid');
      if (!v || !/\.(glb|gltf)$/i.test(url.pathname) || url.origin === 'http://relative.invalid') return [];
      return url.protocol === 'https:' ? [url.origin] : [];
    } catch {
      return [];
    }
  });
  return ['', ...new Set(origins)];
}

/** `'sha256-…'` of each <style> element a built script writes (the 3D viewer's own shadow-DOM stylesheet). */
export function scriptStyleHashes(script: string): string[] {
  return [...script.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '', 'utf8')
        .digest('base64')}'`,
  );
}

/** A tag-manager snippet with this response's nonce on each of its script elements. */
const withNonce = (code: string, nonce: string) => code.replace(/<script\b/gi, `<script nonce="${nonce}"`);

export interface PageInput {
  manifest: AssetManifest;
  /**
   * The stylesheet inlined in the head (one request fewer before the first paint); without it the page links the
   * hashed file.
   */
  style?: InlineStyle | undefined;
  /** The hashes of the 3D viewer's stylesheets (`scriptStyleHashes`), allowed on a page with a glTF model. */
  viewerStyles?: string[] | undefined;
  /** The project's public fields (the bundle's `project`). */
  project: Data & { name: string };
  bundleUrl: string;
  namespace: string;
  /** The page's own absolute address (for canonical and og:url). */
  url: string;
  /** Where the page's addresses are relative to (scheme and host). */
  origin: string;
  /** The unit the address names, when it names one. */
  unit?: (Data & { _id: string; name: string }) | undefined;
  /** A draft opened through its preview link: a banner says so, and robots are asked to stay away. */
  draft?: boolean | undefined;
  /** Robots are asked not to index the page (a draft, or a project in `previewMode`). */
  noindex?: boolean | undefined;
  /** The service's marks on the page (absent: all of them). */
  branding?: Branding | undefined;
  /** The console's origin: the only parent whose unsaved settings a framed preview of the page draws (web/preview-frame.ts). */
  consoleOrigin?: string | undefined;
  /** The map's settings and MapLibre's built worker script (absent: no map section). */
  map?: { config: MapConfig; worker: string } | undefined;
}

/** The service's marks on a project's page: the line at its foot (`showBranding`), that line's icon, the logo while it loads. */
export interface Branding {
  line: boolean;
  icon: boolean;
  loadingLogo: boolean;
}

/** The service's icon (web/static), beside its line at the foot of the page and while the page loads. */
export const BRAND_ICON = '/p/assets/showsuite-mark.svg';

/** Shown at the top of a draft opened through its preview link. */
const DRAFT_BANNER =
  '<div class="draft-banner" role="status"><strong>Draft preview.</strong> This page is not public yet: only people with this link can see it, and it takes no enquiries or holds.</div>\n';

/** What the default description says the page offers: only what the project's switches show. */
function pageOffers(s: Record<string, unknown>): string {
  const shown = ['floor plans', s.showPrices !== false ? 'prices' : '', s.showAvailability !== false ? 'availability' : ''].filter(Boolean);
  return `${shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown[0]} of every home, with enquiries and holds online`;
}

/**
 * The room the page's script fills in the hero: the "From" line (`pricesStartingAt`) and the row of links (the 3D tour,
 * realtor access, day and night, Book a visit). Written empty with their height reserved (web/app.css), so the text
 * above them does not move when they come: no layout shift.
 */
function heroSlots(s: Record<string, unknown>, origin: string): string {
  const from = s.pricesStartingAt === true && s.showPrices !== false ? '<p class="hero-from reserved" id="project-from"></p>\n' : '';
  const links =
    (s.enable3d === true && safeHref(s._3dModelUrl, origin)) || s.realtorAccess === true || s.dayNightEnabled === true || safeHref(s.bookingUrl, origin);
  return `${links ? '<div class="hero-links" id="hero-links"></div>\n' : ''}${from}`;
}

/**
 * `<link rel="modulepreload">` for what the page's script needs before it draws: the chunks it imports as it starts
 * and, on a page in French or Spanish, that language's words (web/i18n.ts), so none waits for the script to ask.
 */
function modulePreloads(manifest: AssetManifest, lang: string): string {
  const words = lang === 'en' ? undefined : manifest.chunks?.find((c) => c.startsWith(`app-${lang}.`));
  return [...(manifest.imports ?? []), ...(words ? [words] : [])].map((f) => `<link rel="modulepreload" href="/p/assets/${f}">\n`).join('');
}

/** The presentation page's HTML and its CSP: meta description, share tags, tag manager, brand font, hero header. */
export function renderPage(input: PageInput): { html: string; csp: string } {
  const { project: s, manifest, unit, origin } = input;
  const branding = input.branding ?? { line: true, icon: true, loadingLogo: true };
  const gtm = s.gtmEnabled === true && (str(s.gtmHeadCode) || str(s.gtmBodyCode)) ? randomBytes(16).toString('base64') : undefined;
  const font = brandFont(s);
  const title = unit ? `${unit.name} · ${s.name}` : s.name;
  const address = shownAddress(s);
  const description = str(s.sharePageDescription) ?? (unit && str(unit.description)) ?? `${s.name}${address ? `, ${address}` : ''}: ${pageOffers(s)}.`;
  const unitImage = unit ? ((Array.isArray(unit.images) ? (unit.images as unknown[])[0] : undefined) ?? unit.unitImageUrl ?? unit.layoutUrl) : undefined;
  const shareImage = safeHref(unitImage, origin) ?? safeHref(s.sharePageLogo, origin) ?? safeHref(s.projectImageUrl, origin);
  const share = s.sharePageEnabled === true;
  const meta = (attr: 'name' | 'property', key: string, value: string | undefined) => (value ? `<meta ${attr}="${key}" content="${escapeHtml(value)}">\n` : '');
  const shareTags = share
    ? meta('property', 'og:type', 'website') +
      meta('property', 'og:title', title) +
      meta('property', 'og:description', description) +
      meta('property', 'og:url', input.url) +
      meta('property', 'og:image', shareImage) +
      meta('property', 'og:site_name', s.name) +
      meta('name', 'twitter:card', shareImage ? 'summary_large_image' : 'summary') +
      meta('name', 'twitter:title', title) +
      meta('name', 'twitter:description', description) +
      meta('name', 'twitter:image', shareImage)
    : '';
  const hero = safeHref(s.projectImageUrl, origin);
  const logo = safeHref(s.sharePageLogo, origin);
  const lang = typeof s.projectLang === 'string' && /^[a-z]{2}\b/i.test(s.projectLang) ? s.projectLang.slice(0, 2).toLowerCase() : 'en';
  const html = `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<meta name="description" content="${escapeHtml(description)}">
<link rel="canonical" href="${escapeHtml(input.url)}">
${input.draft || input.noindex ? '<meta name="robots" content="noindex">\n' : ''}${shareTags}<link rel="icon" href="data:,">
${hero ? `<link rel="preload" as="image" href="${escapeHtml(hero)}"${sized(hero, origin, '100vw', 'imagesrcset', 'imagesizes')} fetchpriority="high">\n` : ''}<link rel="preload" as="fetch" href="${escapeHtml(input.bundleUrl)}" crossorigin="anonymous">
${font ? `<link rel="stylesheet" href="${FONT_CSS}/css2?family=${encodeURIComponent(font).replace(/%20/g, '+')}:wght@400;600;700&amp;display=swap">\n` : ''}${input.style ? `<style>${input.style.text}</style>` : `<link rel="stylesheet" href="/p/assets/${manifest.css}">`}
<script type="module" src="/p/assets/${manifest.js}"></script>
${modulePreloads(manifest, lang)}${gtm && str(s.gtmHeadCode) ? `${withNonce(String(s.gtmHeadCode), gtm)}\n` : ''}</head>
<body data-namespace="${escapeHtml(input.namespace)}" data-bundle="${escapeHtml(input.bundleUrl)}"${unit ? ` data-unit="${escapeHtml(unit._id)}"` : ''}${font ? ` data-font="${escapeHtml(font)}"` : ''}${branding.line && branding.icon ? '' : ' data-branding-icon="off"'}${input.consoleOrigin ? ` data-console-origin="${escapeHtml(input.consoleOrigin)}"` : ''}>
${input.draft ? DRAFT_BANNER : ''}${gtm && str(s.gtmBodyCode) ? `${withNonce(String(s.gtmBodyCode), gtm)}\n` : ''}<header class="hero${hero ? '' : ' plain'}" id="hero">
${hero ? `<img class="hero-img" src="${escapeHtml(hero)}"${sized(hero, origin, '100vw')} alt="" width="1600" height="900" fetchpriority="high">\n` : ''}<div class="hero-text">
${logo ? `<img class="logo" src="${escapeHtml(logo)}"${sized(logo, origin, '240px', 'srcset', 'sizes', 960)} alt="${escapeHtml(s.name)} logo" width="160" height="48">\n` : ''}<h1>${escapeHtml(s.name)}</h1>
${address ? `<p class="address">${escapeHtml(address)}</p>\n` : ''}${heroFacts(s, origin, lang)}${heroSlots(s, origin)}</div>
</header>
<main id="app" aria-busy="true">${branding.loadingLogo ? `<img class="loading-logo" src="${BRAND_ICON}" alt="" width="32" height="32">` : ''}<p class="loading">${escapeHtml(description)}</p></main>
${projectInfo(s, origin, lang, input.map ? placeSection(s, input.map.config, input.map.worker, origin, lang, address) : '')}<noscript>This presentation needs JavaScript.</noscript>
</body>
</html>
`;
  return { html, csp: pageCsp(s, gtm, input.style, input.viewerStyles, input.map ? mapCspSources(s, input.map.config, origin) : undefined) };
}
