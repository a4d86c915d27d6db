/**
 * The project's content fields the server writes into the page's HTML, so they cost the page no
 * script: in the hero, the address shown (`enterpriseAddressDisplay` over `address`), the property type
 * (`propertyType`), the developer's site (`websiteURL`) and the brochures (`brochureAssets`); below the homes, the
 * layouts and floor plans (`layouts`, `floorplans`), the downloads (`downloadableAssets`), the
 * sponsors (`sponsors` with `sponsorsEnabled`) and the Walk Score (`walkscore` with `walkscoreEnabled`).
 */
import { escapeHtml, safeHref, str } from './html-text.ts';

type Data = Record<string, unknown>;

const WORDS = {
  en: {
    website: 'Developer’s website',
    brochure: 'Brochure',
    layouts: 'Layouts',
    floorplans: 'Floor plans',
    downloads: 'Downloads',
    sponsors: 'Sponsors',
    walk: ['Car-Dependent', 'Somewhat Walkable', 'Very Walkable', 'Walker’s Paradise'],
    walkLink: 'Walk Score of this address',
  },
  fr: {
    website: 'Site du promoteur',
    brochure: 'Brochure',
    layouts: 'Typologies',
    floorplans: 'Plans d’étage',
    downloads: 'Téléchargements',
    sponsors: 'Partenaires',
    walk: ['Dépendant de la voiture', 'Assez praticable à pied', 'Très praticable à pied', 'Paradis des piétons'],
    walkLink: 'Walk Score de cette adresse',
  },
  es: {
    website: 'Sitio del promotor',
    brochure: 'Folleto',
    layouts: 'Tipologías',
    floorplans: 'Planos de planta',
    downloads: 'Descargas',
    sponsors: 'Patrocinadores',
    walk: ['Dependiente del coche', 'Algo caminable', 'Muy caminable', 'Paraíso para peatones'],
    walkLink: 'Walk Score de esta dirección',
  },
};
const words = (lang: string) => (lang === 'fr' || lang === 'es' ? WORDS[lang] : WORDS.en);

/** The address the page shows: the display address when the project sets one. */
export const shownAddress = (s: Data) => str(s.enterpriseAddressDisplay) ?? str(s.address);

/** Lines of a text field (one item a line; commas also separate addresses). */
const lines = (v: unknown, split: RegExp) =>
  (str(v) ?? '')
    .split(split)
    .map((x) => x.trim())
    .filter(Boolean)
    .slice(0, 30);

/** A file's name from its address: the last part of its path, decoded ("Price list.pdf"). */
function fileName(href: string): string {
  const last = new URL(href).pathname.split('/').filter(Boolean).at(-1) ?? href;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** The hero's line under the address: the property type and a link to the developer's site. */
export function heroFacts(s: Data, origin: string, lang: string): string {
  const type = str(s.propertyType);
  const site = safeHref(s.websiteURL, origin);
  // The project's brochures (`brochureAssets`), unless `brochureButtonEnabled` is false: "Brochure", or each by its file.
  const brochures =
    s.brochureButtonEnabled === false || !Array.isArray(s.brochureAssets)
      ? []
      : (s.brochureAssets as unknown[])
          .slice(0, 10)
          .map((x) => safeHref(x, origin))
          .filter((x): x is string => x !== undefined);
  if (!type && !site && !brochures.length) return '';
  const link = (href: string, id: string, text: string) =>
    `<a class="hero-link" id="${id}" href="${escapeHtml(href)}" target="_blank" rel="noopener">${escapeHtml(text)}</a>`;
  return `<p class="hero-facts">${type ? `<span id="property-type">${escapeHtml(type)}</span>` : ''}${site ? link(site, 'website-link', words(lang).website) : ''}${brochures
    .map((href, i) => link(href, `project-brochure-${i}`, brochures.length === 1 ? words(lang).brochure : fileName(href)))
    .join('')}</p>\n`;
}

const PICTURE = /\.(avif|gif|jpe?g|png|svg|webp)$/i;

/** A section of plans (`layouts`, `floorplans`: one address a line): pictures as thumbnails, anything else (a PDF) by its file. */
function plans(id: string, title: string, v: unknown, origin: string): string | undefined {
  const files = lines(v, /[\n,]/)
    .map((x) => safeHref(x, origin))
    .filter((x): x is string => x !== undefined);
  if (!files.length) return undefined;
  return `<section class="info-block wide" id="${id}"><h2 class="section-title">${title}</h2><ul class="plans">${files
    .map((href) => {
      const name = escapeHtml(fileName(href));
      return `<li><a href="${escapeHtml(href)}" target="_blank" rel="noopener">${
        PICTURE.test(new URL(href).pathname) ? `<img src="${escapeHtml(href)}" alt="${name}" width="240" height="180" loading="lazy">` : name
      }</a></li>`;
    })
    .join('')}</ul></section>`;
}

/** Walk Score's bands: 90–100, 70–89, 50–69, 0–49. */
const walkBand = (score: number) => (score >= 90 ? 3 : score >= 70 ? 2 : score >= 50 ? 1 : 0);

/** Below the homes: layouts and floor plans, downloads, sponsors and the Walk Score, each only when the project has it (and its switch is on). */
export function projectInfo(s: Data, origin: string, lang: string, place = ''): string {
  const w = words(lang);
  // First below the homes: where they are (the map or the flat site plan, src/presentation/map-section.ts).
  const parts = [place || undefined, plans('layouts', w.layouts, s.layouts, origin), plans('floorplans', w.floorplans, s.floorplans, origin)].filter(
    (x): x is string => x !== undefined,
  );
  const files = lines(s.downloadableAssets, /[\n,]/)
    .map((x) => safeHref(x, origin))
    .filter((x): x is string => x !== undefined);
  if (files.length)
    parts.push(
      `<section class="info-block" id="downloads"><h2 class="section-title">${w.downloads}</h2><ul class="downloads">${files
        .map((href) => `<li><a href="${escapeHtml(href)}" target="_blank" rel="noopener" download>${escapeHtml(fileName(href))}</a></li>`)
        .join('')}</ul></section>`,
    );
  const sponsors = s.sponsorsEnabled === true ? lines(s.sponsors, /\n/) : [];
  if (sponsors.length)
    parts.push(
      `<section class="info-block" id="sponsors"><h2 class="section-title">${w.sponsors}</h2><ul class="sponsors">${sponsors
        .map((line) => {
          // A line that is an address is a logo (named by its file); any other line is a name.
          const img = /^(https?:\/\/|\/)\S+$/.test(line) ? safeHref(line, origin) : undefined;
          return img
            ? `<li><img src="${escapeHtml(img)}" alt="${escapeHtml(fileName(img).replace(/\.\w+$/, ''))}" height="48" loading="lazy"></li>`
            : `<li>${escapeHtml(line)}</li>`;
        })
        .join('')}</ul></section>`,
    );
  const score = Number(str(s.walkscore));
  if (s.walkscoreEnabled === true && str(s.walkscore) && Number.isInteger(score) && score >= 0 && score <= 100) {
    const address = str(s.address);
    const slug = address
      ?.toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '');
    parts.push(
      `<section class="info-block" id="walkscore"><h2 class="section-title">Walk Score®</h2><p><strong class="walk-score">${score}</strong> ${w.walk[walkBand(score)]}${
        slug ? ` · <a href="https://www.walkscore.com/score/${encodeURIComponent(slug)}" target="_blank" rel="noopener">${w.walkLink}</a>` : ''
      }</p></section>`,
    );
  }
  return parts.length ? `<aside class="project-info" id="project-info">${parts.join('')}</aside>\n` : '';
}
