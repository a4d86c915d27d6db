/** A group's page as HTML: complete as served, no script. Each view is one renderer; a view with none falls back to the list. */
import { randomBytes } from 'node:crypto';
import { mediaSrcset } from '../modules/media/srcset.ts';
import { GROUP_VIEWS, onPicture, type GroupCard, type GroupModel, type GroupUnit, type GroupView, type Link } from './group-model.ts';
import { deliveryText, groupWords, money } from './group-words.ts';
import { escapeHtml, safeHref, str } from './html-text.ts';
import { groupMap } from './map-section.ts';
import type { MapConfig } from '../config.ts';

type Data = Record<string, unknown>;
type Words = ReturnType<typeof groupWords>;

/** What a view's renderer gets: the page's content, its words, and how to write a link and a picture. */
export interface ViewContext {
  model: GroupModel;
  words: Words;
  origin: string;
  /** The view shown (the filter form keeps it). */
  view: GroupView;
}

export type ViewRenderer = (ctx: ViewContext) => string;

const COLOR = /^#[0-9a-fA-F]{3,8}$/;
/** The dark theme's page colours; the group's own colours, written after them, still win. */
const DARK = {
  '--page': '#15181d',
  '--surface': '#1f242c',
  '--text': '#ebe8e2',
  '--muted': '#b4b0a8',
  '--line': '#3a404a',
  '--base-ink': '#9fb4e6',
  '--button': '#3d5a9e',
  '--hover': '#4d6cb8',
};

const sized = (url: string, origin: string, sizes: string, largest?: number) => {
  const srcset = mediaSrcset(url, origin, largest);
  return srcset ? ` srcset="${escapeHtml(srcset)}" sizes="${escapeHtml(sizes)}"` : '';
};
const linkAttrs = (l: Link) => `href="${escapeHtml(l.href)}"${l.newTab ? ' target="_blank" rel="noopener"' : ''}`;
const fmtMoney = (ctx: ViewContext, n: number, currency: string) => escapeHtml(money(n, currency, ctx.model.settings.lang));

function cardHtml(ctx: ViewContext, p: GroupCard): string {
  const { words: w, origin } = ctx;
  const img = safeHref(p.image, origin);
  const summary = [
    ...(p.available !== undefined ? [`<span class="count">${p.available} ${w.available}</span>`] : []),
    ...(p.from !== undefined ? [`<span class="price">${w.from} ${fmtMoney(ctx, p.from, p.currency)}</span>`] : []),
  ];
  const floors = p.floors?.length
    ? `<details class="g-floors"><summary>${w.floors}</summary><ul>${p.floors
        .map(
          (f) =>
            `<li><span class="g-floor-name">${escapeHtml(f.name)}</span>${f.available !== undefined ? `<span class="count">${f.available}/${f.total} ${w.available}</span>` : `<span class="count">${f.total}</span>`}${
              f.from !== undefined ? `<span class="price">${w.from} ${fmtMoney(ctx, f.from, p.currency)}</span>` : ''
            }</li>`,
        )
        .join('')}</ul></details>\n`
    : '';
  return `<li class="card">
${img ? `<img src="${escapeHtml(img)}"${sized(img, origin, '(max-width: 720px) 100vw, 480px', 1920)} alt="" width="640" height="360" loading="lazy">\n` : ''}<h2><a ${linkAttrs(p.link)}>${escapeHtml(p.name)}</a></h2>
${p.address ? `<p class="address">${escapeHtml(p.address)}</p>\n` : ''}${summary.length ? `<p class="summary">${summary.join(' · ')}</p>\n` : ''}${floors}<a class="primary" ${linkAttrs(p.link)} aria-label="${escapeHtml(`${w.see}: ${p.name}`)}">${w.see}</a>
</li>`;
}

function priceHtml(ctx: ViewContext, u: GroupUnit): string {
  const s = ctx.model.settings;
  if (u.tbd) return `<p class="price">${ctx.words.tbd}</p>`;
  if (u.price === undefined) return '';
  const taxes = s.showTaxes ? ` <span class="taxes">${s.priceBeforeTax ? ctx.words.plusTaxes : ctx.words.taxesIncluded}</span>` : '';
  return `<p class="price">${fmtMoney(ctx, u.price, u.currency)}${taxes}</p>`;
}

function unitHtml(ctx: ViewContext, u: GroupUnit, withImage: boolean): string {
  const { words: w, origin } = ctx;
  const lang = ctx.model.settings.lang;
  const facts = [
    ...(u.bedrooms !== undefined ? [`${u.bedrooms} ${w.beds}`] : []),
    ...(u.bathrooms !== undefined ? [`${u.bathrooms} ${w.baths}`] : []),
    ...(u.area !== undefined ? [`${u.area.toLocaleString(lang)} ${escapeHtml(u.areaUnit)}`] : []),
  ];
  const img = withImage ? safeHref(u.image, origin) : undefined;
  const status = u.availability;
  return `<li class="g-unit${status ? ` s-${escapeHtml(status)}` : ''}"${status ? ` data-availability="${escapeHtml(status)}"` : ''}>
${img ? `<img src="${escapeHtml(img)}"${sized(img, origin, '(max-width: 720px) 100vw, 300px', 1280)} alt="" width="400" height="300" loading="lazy">\n` : ''}<p class="g-unit-head"><a class="name" ${linkAttrs(u.link)}>${escapeHtml(u.name)}</a>${
    status ? ` <span class="badge s-${escapeHtml(status)}">${escapeHtml(w.status[status] ?? status)}</span>` : ''
  }</p>
<p class="g-unit-where">${escapeHtml(u.project)}${u.floor ? ` · ${escapeHtml(u.floor)}` : ''}</p>
${facts.length ? `<p class="facts">${facts.join(' · ')}</p>\n` : ''}${priceHtml(ctx, u)}${u.delivery ? `<p class="delivery">${w.delivery}: ${escapeHtml(deliveryText(u.delivery, lang))}</p>` : ''}
</li>`;
}

function filtersHtml(ctx: ViewContext): string {
  const { model, words: w } = ctx;
  const field = (name: keyof GroupModel['filters'], label: string) => {
    const v = model.filters[name];
    return `<label>${label} <input type="number" name="${name}" id="filter-${name}" min="0" step="any" inputmode="numeric"${v !== undefined ? ` value="${v}"` : ''}></label>`;
  };
  const sets = [
    ...(model.offers.priceFilter
      ? [`<fieldset id="price-filter"><legend>${w.price}</legend>${field('minPrice', w.min)}${field('maxPrice', w.max)}</fieldset>`]
      : []),
    ...(model.offers.areaFilter
      ? [`<fieldset id="area-filter"><legend>${w.area}</legend>${field('minArea', w.min)}${field('maxArea', w.max)}</fieldset>`]
      : []),
  ];
  if (!sets.length) return '';
  // The answer opens at the list of homes, not at the top of the page.
  return `<form class="g-filters" method="get" action="#homes-title">
<input type="hidden" name="view" value="${ctx.view.toLowerCase()}">${sets.join('')}
<button type="submit" class="primary">${w.apply}</button> <a class="g-clear" href="?view=${ctx.view.toLowerCase()}#homes-title">${w.clear}</a>
</form>`;
}

/** The homes of every project in one list (`showAllUnits`): rows in the list view, pictures in the grid view. */
function unitsSection(ctx: ViewContext, withImages: boolean): string {
  const { model, words: w } = ctx;
  if (!model.units) return '';
  const units = model.units;
  const list = units.length
    ? `<ul class="g-units ${withImages ? 'as-grid' : 'as-list'}" id="group-units">\n${units.map((u) => unitHtml(ctx, u, withImages)).join('\n')}\n</ul>`
    : `<p class="empty" id="no-homes">${w.noHomes}</p>`;
  return `<section class="g-section" aria-labelledby="homes-title">
<h2 class="section-title" id="homes-title">${w.homes} <span class="g-shown">${w.shown(units.length, model.unitsTotal)}</span></h2>
${filtersHtml(ctx)}${list}
</section>`;
}

/** The middle of a path's box, from its absolute coordinates (a relative path: its first point), in the path's space. */
export function middleOf(d: string): [number, number] {
  const xs: number[] = [];
  const ys: number[] = [];
  const pairs = (n: number[], from: number, step: number) => {
    for (let i = from; i + 1 < n.length; i += step) {
      xs.push(n[i] ?? 0);
      ys.push(n[i + 1] ?? 0);
    }
  };
  for (const [, cmd = '', args = ''] of d.matchAll(/([MLHVCSQTAZmlhvcsqtaz])([^MLHVCSQTAZmlhvcsqtaz]*)/g)) {
    const n = (args.match(/[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g) ?? []).map(Number);
    // A path's first moveto is absolute even when written `m`.
    if (cmd === 'm' && !xs.length) pairs(n.slice(0, 2), 0, 2);
    else if (cmd === 'H') xs.push(...n);
    else if (cmd === 'V') ys.push(...n);
    else if (cmd === 'A') pairs(n, 5, 7);
    else if (/[MLCSQT]/.test(cmd)) pairs(n, 0, 2);
    else if (cmd !== 'Z' && cmd !== 'z') break;
  }
  if (!xs.length || !ys.length) return [0, 0];
  return [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
}

/** The picture's labels' places (a rule each, in the page's one nonce'd style block: the CSP allows no style attribute). */
export function pictureLabelCss(model: GroupModel): string {
  if (!model.picture) return '';
  const clamp = (v: number) => Math.min(100, Math.max(0, v / 10)).toFixed(2);
  return model.cards
    .filter(onPicture)
    .map((c, i) => {
      const [x, y] = c.paths[0] !== undefined ? middleOf(c.paths[0]) : (c.svgShapes[0]?.middle ?? [0, 0]);
      return `#g-label-${i}{left:${clamp(x)}%;top:${clamp(y)}%}`;
    })
    .join('');
}

/**
 * The picture of the site (`groupImageUrl`, else `groupSVGUrl`) with each project's shapes over it, each a link to
 * the project as the group's `linkBehavior` says: no script, so the shapes' space is one the page need not measure,
 * a thousandth of the picture's width across and of its height down (`0 0 1000 1000`, stretched over the picture).
 */
function pictureSection(ctx: ViewContext): string {
  const { model, words: w } = ctx;
  const cards = model.cards.filter(onPicture);
  if (!model.picture || !cards.length) return '';
  const labels = cards
    .map((c, i) => {
      const tone = c.available === undefined ? 'none' : c.available > 0 ? 'available' : 'sold';
      const count = c.available !== undefined ? `<span class="g-count"> · ${c.available} ${w.available}</span>` : '';
      return `<span class="g-label b-${tone}" id="g-label-${i}">${escapeHtml(c.name)}${count}</span>`;
    })
    .join('');
  const shapes = cards
    .map((c) => {
      const tone = c.available === undefined ? 'none' : c.available > 0 ? 'available' : 'sold';
      const label = [c.name, ...(c.available !== undefined ? [`${c.available} ${w.available}`] : [])].join(', ');
      return `<a class="g-shape b-${tone}" ${linkAttrs(c.link)} aria-label="${escapeHtml(label)}"><title>${escapeHtml(label)}</title>${c.paths
        .map((d) => `<path d="${escapeHtml(d)}"/>`)
        .join('')}${c.svgShapes.map((p) => `<path d="${escapeHtml(p.d)}" transform="${escapeHtml(p.transform)}"/>`).join('')}</a>`;
    })
    .join('');
  // The site's outline (the group's `svgGroupId`), under the buildings, in the colour of its perimeter on the map.
  const boundary = model.boundary
    ? `<g class="g-boundary" fill="none" stroke="${escapeHtml(model.boundary.color)}" aria-hidden="true">${model.boundary.shapes
        .map((p) => `<path d="${escapeHtml(p.d)}" transform="${escapeHtml(p.transform)}"/>`)
        .join('')}</g>`
    : '';
  return `<section class="g-section g-picture" aria-labelledby="picture-title">
<h2 class="section-title" id="picture-title">${w.pickBuilding}</h2>
<div class="g-picture-frame"><img src="${escapeHtml(model.picture)}"${sized(model.picture, ctx.origin, '(max-width: 1100px) 100vw, 1100px', 1920)} alt="" width="1600" height="900"><svg viewBox="0 0 1000 1000" preserveAspectRatio="none" role="group" aria-label="${w.pickBuilding}">${boundary}${shapes}</svg><div class="g-labels" aria-hidden="true">${labels}</div></div>
</section>`;
}

function projectsSection(ctx: ViewContext, layout: 'as-list' | 'as-grid'): string {
  const { model, words: w } = ctx;
  return `<section class="g-section" aria-labelledby="projects-title">
<h2 class="section-title" id="projects-title">${w.projects}</h2>
${model.cards.length ? `<ul class="projects ${layout}">\n${model.cards.map((p) => cardHtml(ctx, p)).join('\n')}\n</ul>` : `<p class="empty">${w.none}</p>`}
</section>`;
}

/**
 * The views the page can show. `Map` has no renderer yet: a group whose `initialView` is `Map` (or an address asking
 * for it) gets the list, and no Map tab is offered. A map view is one more entry here.
 */
export const VIEW_RENDERERS: Partial<Record<GroupView, ViewRenderer>> = {
  List: (ctx) => `${pictureSection(ctx)}\n${projectsSection(ctx, 'as-list')}\n${unitsSection(ctx, false)}`,
  Grid: (ctx) => `${pictureSection(ctx)}\n${projectsSection(ctx, 'as-grid')}\n${unitsSection(ctx, true)}`,
};

/** The view shown: the one asked for, else the group's `initialView`, where it has a renderer; else the list. */
export function shownView(asked: GroupView | undefined, initial: GroupView): GroupView {
  return [asked, initial].find((v): v is GroupView => v !== undefined && VIEW_RENDERERS[v] !== undefined) ?? 'List';
}

/** A view's address, keeping the filters set. */
function viewHref(ctx: ViewContext, view: GroupView): string {
  const set = Object.entries(ctx.model.filters).filter((e): e is [string, number] => e[1] !== undefined);
  return `?${new URLSearchParams([['view', view.toLowerCase()], ...set.map(([k, v]): [string, string] => [k, String(v)])]).toString()}`;
}

function tabsHtml(ctx: ViewContext): string {
  const views = GROUP_VIEWS.filter((v) => VIEW_RENDERERS[v]);
  if (views.length < 2) return '';
  return `<nav class="tabs g-views" aria-label="${ctx.words.views}">${views
    .map(
      (v) =>
        `<a class="tab" id="view-${v.toLowerCase()}" href="${escapeHtml(viewHref(ctx, v))}"${v === ctx.view ? ' aria-current="page"' : ''}>${ctx.words.view[v]}</a>`,
    )
    .join('')}</nav>`;
}

/** The group's page and its CSP: hero, alternative covers, view tabs, the view, the service's line. */
export function renderGroupPage(
  group: { name: string; data: Data; brandingIcon?: boolean },
  model: GroupModel,
  page: { origin: string; url: string; css: string; view?: GroupView | undefined; map?: { config: MapConfig; worker: string; script: string } | undefined },
): { html: string; csp: string } {
  const g = group.data;
  const s = model.settings;
  const w = groupWords(s.lang);
  const { origin } = page;
  const colours = Object.entries({
    '--base': g.colorBase,
    '--accent': g.colorAccent ?? g.accentColor,
    '--hover': g.colorHover,
    '--button': g.colorButton,
    '--button-text': g.colorButtonText,
    '--text': g.colorText,
  }).filter((e): e is [string, string] => typeof e[1] === 'string' && COLOR.test(e[1]));
  const vars = [...(s.theme === 'dark' ? Object.entries(DARK) : []), ...colours].map(([k, v]) => `${k}:${v}`).join(';');
  const covers = (Array.isArray(g.alternativeCovers) ? (g.alternativeCovers as unknown[]) : []).map((c) => safeHref(c, origin)).filter((c): c is string => !!c);
  const image = safeHref(g.groupImageUrl, origin) ?? covers[0];
  const strip = covers.filter((c) => c !== image);
  const nonce = randomBytes(16).toString('base64');
  const website = safeHref(g.websiteURL, origin);
  const ctx: ViewContext = { model, words: w, origin, view: shownView(page.view, s.initialView) };
  const description = `${group.name}: ${model.cards.map((p) => p.name).join(', ') || w.none}`;
  const address = str(g.address);
  // The group's map (docs/map.md): its projects' markers, when one has a location; the page's only script.
  const located = groupMap(g, model.cards, page.map, origin, s.lang, group.name);
  // The picture's labels' places (every view draws the picture).
  const labelCss = pictureLabelCss(model);
  const html = `<!doctype html>
<html lang="${s.lang}" data-theme="${s.theme}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(group.name)}</title>
<meta name="description" content="${escapeHtml(description)}">
<link rel="canonical" href="${escapeHtml(page.url)}">
<meta property="og:title" content="${escapeHtml(group.name)}">
<meta property="og:description" content="${escapeHtml(description)}">
${image ? `<meta property="og:image" content="${escapeHtml(image)}">\n` : ''}<link rel="icon" href="data:,">
<link rel="stylesheet" href="/p/assets/${page.css}">
${vars || labelCss ? `<style nonce="${nonce}">${vars ? `:root{${vars}}` : ''}${labelCss}</style>\n` : ''}</head>
<body class="group-page view-${ctx.view.toLowerCase()}">
<header class="hero${image ? '' : ' plain'}">
${image ? `<img class="hero-img" src="${escapeHtml(image)}"${sized(image, origin, '100vw')} alt="" width="1600" height="900">\n` : ''}<div class="hero-text"><h1>${escapeHtml(group.name)}</h1>${address ? `<p class="address">${escapeHtml(address)}</p>` : ''}${
    website
      ? `<p class="hero-facts"><a class="hero-link" id="website-link" href="${escapeHtml(website)}" target="_blank" rel="noopener">${w.website}</a></p>`
      : ''
  }</div>
</header>
${strip.length ? `<ul class="covers" id="group-covers">${strip.map((c) => `<li><img src="${escapeHtml(c)}"${sized(c, origin, '240px', 960)} alt="" width="240" height="160" loading="lazy"></li>`).join('')}</ul>\n` : ''}<main class="group">
${tabsHtml(ctx)}
${VIEW_RENDERERS[ctx.view]?.(ctx) ?? ''}
${located ? `${located.html}\n<script type="module" src="${located.script}"></script>\n` : ''}${s.showBranding ? `<footer class="brand">${group.brandingIcon === false ? '' : '<img src="/p/assets/showsuite-mark.svg" alt="" width="16" height="16">'}${w.poweredBy}</footer>\n` : ''}</main>
</body>
</html>
`;
  // The group's colours are one inline style block with this response's nonce; no script but the map's, when it has one.
  return {
    html,
    csp: located
      ? `default-src 'self'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data: https:; connect-src 'self' ${located.connect.join(' ')}; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors *`
      : `default-src 'self'; script-src 'none'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data: https:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors *`,
  };
}
