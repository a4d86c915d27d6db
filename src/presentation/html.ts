import { createHash, randomBytes } from 'node:crypto';
import type { AssetManifest } from '../lib/built-assets.ts';
import { mediaSrcset } from '../modules/media/srcset.ts';
import { escapeHtml, safeHref, str } from './html-text.ts';
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
export function pageCsp(settings: Data, nonce: string | undefined, style?: InlineStyle, viewerStyles: string[] = []): string {
  const gtm = nonce !== undefined;
  const font = brandFont(settings) !== undefined;
  const model = gltfModelOrigin(settings);
  return [
    "default-src 'self'",
    // The 3D viewer compiles WebAssembly (its mesh decoder): allowed on a page with a glTF model only, never eval.
    ['script-src', "'self'", ...(model !== undefined ? ["'wasm-unsafe-eval'"] : []), ...(gtm ? [`'nonce-${nonce}'`, ...GTM_SCRIPT] : [])].join(' '),
    ['style-src', "'self'", ...(style ? [style.source] : []), ...(model !== undefined ? viewerStyles : []), ...(font ? [FONT_CSS] : [])].join(' '),
    `img-src 'self' data: https:${model !== undefined ? ' blob:' : ''}`,
    ['connect-src', "'self'", ...(model ? [model] : []), ...(gtm ? GTM_CONNECT : [])].join(' '),
    ['font-src', "'self'", 'data:', ...(font ? [FONT_FILES] : [])].join(' '),
    ...(gtm ? ['frame-src https://www.googletagmanager.com'] : []),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    'frame-ancestors *',
  ].join('; ');
}

/**
 * The origin a project's glTF/GLB model (`_3dModelUrl`) is fetched from, when it has one: '' for this origin (a
 * relative address), the https origin otherwise; undefined when the project has no such model (a hosted tour is a
 * link and needs nothing).
 */
export function gltfModelOrigin(settings: Data): string | undefined {
  const v = str(settings._3dModelUrl);
  if (!v) return undefined;
  try {
    const url = new URL(v, 'http://relative.invalid');
    if (!/\.(glb|gltf)$/i.test(url.pathname)) return undefined;
    if (url.origin === 'http://relative.invalid') return '';
    return url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
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
${gtm && str(s.gtmHeadCode) ? `${withNonce(String(s.gtmHeadCode), gtm)}\n` : ''}</head>
<body data-namespace="${escapeHtml(input.namespace)}" data-bundle="${escapeHtml(input.bundleUrl)}"${unit ? ` data-unit="${escapeHtml(unit._id)}"` : ''}${font ? ` data-font="${escapeHtml(font)}"` : ''}${branding.line && branding.icon ? '' : ' data-branding-icon="off"'}>
${input.draft ? DRAFT_BANNER : ''}${gtm && str(s.gtmBodyCode) ? `${withNonce(String(s.gtmBodyCode), gtm)}\n` : ''}<header class="hero${hero ? '' : ' plain'}" id="hero">
${hero ? `<img class="hero-img" src="${escapeHtml(hero)}"${sized(hero, origin, '100vw')} alt="" width="1600" height="900" fetchpriority="high">\n` : ''}<div class="hero-text">
${logo ? `<img class="logo" src="${escapeHtml(logo)}"${sized(logo, origin, '240px', 'srcset', 'sizes', 960)} alt="${escapeHtml(s.name)} logo" width="160" height="48">\n` : ''}<h1>${escapeHtml(s.name)}</h1>
${address ? `<p class="address">${escapeHtml(address)}</p>\n` : ''}${heroFacts(s, origin, lang)}</div>
</header>
<main id="app" aria-busy="true">${branding.loadingLogo ? `<img class="loading-logo" src="${BRAND_ICON}" alt="" width="32" height="32">` : ''}<p class="loading">${escapeHtml(description)}</p></main>
${projectInfo(s, origin, lang)}<noscript>This presentation needs JavaScript.</noscript>
</body>
</html>
`;
  return { html, csp: pageCsp(s, gtm, input.style, input.viewerStyles) };
}

export interface GroupCard {
  name: string;
  namespace: string;
  image?: string | undefined;
  address?: string | undefined;
  /** Left out when the group or the project hides availability. */
  available?: number | undefined;
  lowestPrice?: number | undefined;
  currency: string;
  /** The project's `websiteURL`, where the group's `linkBehavior` is `Website`. */
  website?: string | undefined;
}

const COLOR = /^#[0-9a-fA-F]{3,8}$/;

/** A group's page: its public projects as cards, complete in the HTML as served (no script needed). */
export function renderGroupPage(
  group: { name: string; data: Data },
  projects: GroupCard[],
  origin: string,
  url: string,
  css: string,
): { html: string; csp: string } {
  const g = group.data;
  const lang = typeof g.groupLang === 'string' && /^[a-z]{2}\b/i.test(g.groupLang) ? g.groupLang.slice(0, 2).toLowerCase() : 'en';
  const vars = Object.entries({
    '--base': g.colorBase,
    '--accent': g.colorAccent ?? g.accentColor,
    '--hover': g.colorHover,
    '--button': g.colorButton,
    '--button-text': g.colorButtonText,
    '--text': g.colorText,
  })
    .filter((e): e is [string, string] => typeof e[1] === 'string' && COLOR.test(e[1]))
    .map(([k, v]) => `${k}:${v}`)
    .join(';');
  const image = safeHref(g.groupImageUrl, origin);
  const nonce = randomBytes(16).toString('base64');
  const money = (n: number, currency: string) => {
    try {
      return new Intl.NumberFormat(lang, { style: 'currency', currency: currency.toUpperCase(), maximumFractionDigits: 0 }).format(n);
    } catch {
      return n.toLocaleString(lang);
    }
  };
  const words =
    lang === 'fr'
      ? { available: 'disponibles', from: 'À partir de', see: 'Voir les logements', none: 'Aucun projet pour le moment.', website: 'Site web' }
      : lang === 'es'
        ? { available: 'disponibles', from: 'Desde', see: 'Ver las viviendas', none: 'Todavía no hay proyectos.', website: 'Sitio web' }
        : { available: 'available', from: 'From', see: 'See the homes', none: 'No projects yet.', website: 'Website' };
  const website = safeHref(g.websiteURL, origin);
  const description = `${group.name}: ${projects.map((p) => p.name).join(', ') || words.none}`;
  const summary = (p: GroupCard) => {
    const parts = [
      ...(p.available !== undefined ? [`<span class="count">${p.available} ${words.available}</span>`] : []),
      ...(p.lowestPrice !== undefined ? [`<span class="price">${words.from} ${escapeHtml(money(p.lowestPrice, p.currency))}</span>`] : []),
    ];
    return parts.length ? `<p class="summary">${parts.join(' · ')}</p>` : '';
  };
  const cards = projects
    .map((p) => {
      // The group's `linkBehavior`: `Website` opens the project's own site (where it has one), `NewTab` its page in a new tab.
      const site = g.linkBehavior === 'Website' ? safeHref(p.website, origin) : undefined;
      const href = site ?? `/p/${encodeURIComponent(p.namespace)}`;
      const tab = site || g.linkBehavior === 'NewTab' ? ' target="_blank" rel="noopener"' : '';
      const img = safeHref(p.image, origin);
      return `<li class="card">
${img ? `<img src="${escapeHtml(img)}"${sized(img, origin, '(max-width: 720px) 100vw, 480px', 'srcset', 'sizes', 1920)} alt="" width="640" height="360" loading="lazy">\n` : ''}<h2><a href="${escapeHtml(href)}"${tab}>${escapeHtml(p.name)}</a></h2>
${p.address ? `<p class="address">${escapeHtml(p.address)}</p>\n` : ''}${summary(p)}
<a class="primary" href="${escapeHtml(href)}"${tab} aria-label="${escapeHtml(`${words.see}: ${p.name}`)}">${words.see}</a>
</li>`;
    })
    .join('\n');
  const html = `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(group.name)}</title>
<meta name="description" content="${escapeHtml(description)}">
<link rel="canonical" href="${escapeHtml(url)}">
<meta property="og:title" content="${escapeHtml(group.name)}">
<meta property="og:description" content="${escapeHtml(description)}">
${image ? `<meta property="og:image" content="${escapeHtml(image)}">\n` : ''}<link rel="icon" href="data:,">
<link rel="stylesheet" href="/p/assets/${css}">
${vars ? `<style nonce="${nonce}">:root{${vars}}</style>\n` : ''}</head>
<body class="group-page">
<header class="hero${image ? '' : ' plain'}">
${image ? `<img class="hero-img" src="${escapeHtml(image)}"${sized(image, origin, '100vw')} alt="" width="1600" height="900">\n` : ''}<div class="hero-text"><h1>${escapeHtml(group.name)}</h1>${str(g.address) ? `<p class="address">${escapeHtml(String(g.address))}</p>` : ''}${
    website
      ? `<p class="hero-facts"><a class="hero-link" id="website-link" href="${escapeHtml(website)}" target="_blank" rel="noopener">${words.website}</a></p>`
      : ''
  }</div>
</header>
<main class="group">
${projects.length ? `<ul class="projects">\n${cards}\n</ul>` : `<p class="empty">${words.none}</p>`}
</main>
</body>
</html>
`;
  // The group's colours are one inline style block with this response's nonce; no script at all.
  return {
    html,
    csp: `default-src 'self'; script-src 'none'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data: https:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors *`,
  };
}
