/**
 * The unit sheet's extras the project switches on: inclusions, finishes, the finish packages, the tour or video, the
 * download, other homes of the same layout and similar homes. The embed code and the custom button's snippet run in
 * a sandboxed frame served by the pages origin (`/p/{namespace}/units/{id}/embed|button`), never in this document.
 * The packages and the two lists of homes are drawn by code loaded when a sheet first needs them (unit-more.ts).
 */
import { h, safeUrl } from '../dom.ts';
import { allUnits, flag, namespace, previewToken, settings, state } from '../state.ts';
import { factsLine, priceText } from '../format.ts';
import { isHome } from '../counting.ts';
import type { Room, Unit } from '../types.ts';
import { u as words } from '../unit-words.ts';
import { featuredMark } from './unit-parts.ts';
import type { MoreDeps } from './unit-more.ts';

/** The address of a unit's sandboxed frame on this page's origin (the pages origin, or the project's own host name). */
export function frameUrl(unitId: string, frame: 'embed' | 'button'): string {
  const q = previewToken ? `?preview=${encodeURIComponent(previewToken)}` : '';
  return `/p/${encodeURIComponent(namespace)}/units/${unitId}/${frame}${q}`;
}

/** A frame whose code runs sandboxed: scripts, media and popups, but an opaque origin (no `allow-same-origin`). */
export const sandboxedFrame = (src: string, id: string, title: string) =>
  h('iframe', {
    src,
    id,
    title,
    class: 'unit-frame',
    sandbox: 'allow-scripts allow-popups allow-popups-to-escape-sandbox allow-forms allow-presentation',
    allow: 'fullscreen; autoplay; xr-spatial-tracking; accelerometer; gyroscope',
    allowfullscreen: true,
    loading: 'lazy',
    referrerpolicy: 'no-referrer',
  });

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : []);

/** A titled section of text lines (an inclusion or a finish a line). */
function lines(id: string, title: string, items: string[]): HTMLElement | undefined {
  if (!items.length) return undefined;
  return h(
    'section',
    { class: 'unit-extra', id, 'aria-label': title },
    h('h3', {}, title),
    h('ul', { class: 'plain-list' }, ...items.map((i) => h('li', {}, i))),
  );
}

/** The sheet's pictures: `images`, then `clonedImages` (pictures shared with other units), then the unit's picture. */
export const sheetImages = (u: Room): string[] => [
  ...new Set([...strings(u.images), ...strings(u.clonedImages), u.unitImageUrl].map(safeUrl).filter((x): x is string => x !== undefined)),
];

/**
 * Inclusions (`showInclusions`; the unit's text, a line each) and finishes (`showUnitFinishes`: `finishes`, then
 * `clonedFinishes`; a unit with none of its own has the project's standard `finishes`).
 */
export function textExtras(u: Room): (HTMLElement | undefined)[] {
  const inclusions =
    flag('showInclusions') && typeof u.inclusions === 'string'
      ? u.inclusions
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter(Boolean)
      : [];
  const own = [...new Set([...strings(u.finishes), ...strings(u.clonedFinishes)])];
  const finishes = !flag('showUnitFinishes') ? [] : own.length ? own : [...new Set(strings(settings().finishes))];
  return [lines('unit-inclusions', words().inclusions, inclusions), lines('unit-finishes', words().finishes, finishes)];
}

/** The tour or video (`embedCode`) in its sandboxed frame. */
export function embedBlock(u: Room): HTMLElement | undefined {
  if (u.stub || typeof u.embedCode !== 'string' || u.embedCode.trim() === '') return undefined;
  return h(
    'section',
    { class: 'unit-extra unit-embed', 'aria-label': words().tour },
    sandboxedFrame(frameUrl(u._id, 'embed'), 'unit-embed', `${words().tour}: ${u.name}`),
  );
}

/** The unit's downloadable file (`downloadableAsset`), named by its file name. */
export function downloadLink(u: Room): HTMLElement | undefined {
  const href = safeUrl(u.downloadableAsset);
  if (!href) return undefined;
  const file = decodeURIComponent(new URL(href).pathname.split('/').pop() ?? '') || words().download;
  return h('a', { href, id: 'unit-download', class: 'download', download: '', target: '_blank', rel: 'noopener' }, `${words().download}: ${file}`);
}

let more: Promise<typeof import('./unit-more.ts')> | undefined;
let loaded: typeof import('./unit-more.ts') | undefined;

/** What the lazily loaded part uses from the page: handed in, so its chunk shares no code with the page's. */
const deps = (open: (id: string) => void): MoreDeps => ({ h, safeUrl, words: words(), priceText, factsLine, featuredMark, open });

/**
 * The finish packages and the lists of other homes, in a slot drawn at once and filled when their code has loaded
 * (at once after the first time). `redraw` draws the sheet again once it is there.
 */
export function moreExtras(u: Room, open: (id: string) => void, redraw: () => void): HTMLElement | undefined {
  if (u.stub) return undefined;
  const homes = allUnits().filter((x): x is Unit => x.stub !== true && isHome(x));
  const s = settings();
  const input = { unit: u, homes, settings: s, floors: state.bundle?.floors.map((f) => f._id) ?? [] };
  if (loaded) return loaded.moreBlocks(input, deps(open));
  more ??= import('./unit-more.ts');
  void more.then((m) => {
    loaded = m;
    redraw();
  });
  return h('div', { id: 'unit-more-slot' });
}
