/**
 * Loaded when a unit sheet first opens (a chunk of its own): the finish packages (`showUnitCustomFinishes`), other
 * homes of the same layout (`showVariants`) and similar homes (ordered by `similarSortingBy`). It imports types only:
 * what it draws with is handed in by unit-extras.ts, so the chunk shares no code with the page's main file.
 */
import type { h as H, safeUrl as SafeUrl } from '../dom.ts';
import type { Dict, Room, Unit } from '../types.ts';
import type { UnitWords } from '../unit-words.ts';

export interface MoreDeps {
  h: typeof H;
  safeUrl: typeof SafeUrl;
  words: UnitWords;
  priceText: (u: Room) => string | undefined;
  factsLine: (u: Room) => string;
  featuredMark: (u: Room) => HTMLElement | undefined;
  open: (id: string) => void;
}

export interface MoreInput {
  unit: Room;
  /** Every home of the project (no amenities, parking or storage), in the bundle's order. */
  homes: Unit[];
  settings: Dict;
  /** The floors' ids, lowest first. */
  floors: string[];
}

interface Tab {
  label?: string;
  cover?: string;
  thumbnail?: string;
}
interface Package {
  name?: string;
  options?: Partial<Record<Room3, { tabs?: Tab[] }>>;
}
type Room3 = 'kitchen' | 'bathroom' | 'general';
const ROOMS: Room3[] = ['kitchen', 'bathroom', 'general'];

export function moreBlocks(input: MoreInput, deps: MoreDeps): HTMLElement {
  const { unit, settings } = input;
  const { h } = deps;
  const variants = settings.showVariants === true ? sameLayout(input) : [];
  const similar = similarHomes(input, new Set(variants.map((v) => v._id)));
  return h(
    'div',
    { id: 'unit-more' },
    settings.showUnitCustomFinishes === true ? packages(settings.customFinishes, unit.customFinishes, deps) : undefined,
    homeList('unit-variants', deps.words.variants, variants, deps),
    homeList('unit-similar', deps.words.similar, similar, deps),
  );
}

/** The other homes of this unit's layout (`type`). */
function sameLayout({ unit, homes }: MoreInput): Unit[] {
  const type = typeof unit.type === 'string' ? unit.type.trim() : '';
  return type ? homes.filter((x) => x._id !== unit._id && typeof x.type === 'string' && x.type.trim() === type) : [];
}

/**
 * Similar homes: the same number of bedrooms (any home when the unit says none), not this one nor those listed as
 * its layout's, up to six, in the project's `similarSortingBy` order: `price` and `area` ascending, `floor` lowest
 * first, `default` the bundle's order. A home without the value sorts last.
 */
function similarHomes({ unit, homes, settings, floors }: MoreInput, shown: Set<string>): Unit[] {
  const list = homes.filter((x) => x._id !== unit._id && !shown.has(x._id) && (!unit.bedrooms || x.bedrooms === unit.bedrooms));
  const num = (v: unknown) => (typeof v === 'number' ? v : Infinity);
  const by: Record<string, (x: Unit) => number> = {
    price: (x) => (x.unitPriceTBD === true ? Infinity : num(x.price)),
    area: (x) => num(x.squareFeet),
    floor: (x) => (floors.includes(x.floor ?? '') ? floors.indexOf(x.floor ?? '') : Infinity),
  };
  const key = typeof settings.similarSortingBy === 'string' ? by[settings.similarSortingBy] : undefined;
  return (key ? [...list].sort((a, b) => (key(a) === key(b) ? 0 : key(a) < key(b) ? -1 : 1)) : list).slice(0, 6);
}

function homeList(id: string, title: string, list: Unit[], { h, priceText, factsLine, featuredMark, open }: MoreDeps): HTMLElement | undefined {
  if (!list.length) return undefined;
  return h(
    'section',
    { class: 'unit-extra', id, 'aria-label': title },
    h('h3', {}, title),
    h(
      'ul',
      { class: 'mini-list' },
      ...list.map((x) =>
        h(
          'li',
          {},
          h(
            'button',
            { type: 'button', class: 'mini-home', 'data-unit': x._id, onclick: () => open(x._id) },
            h('strong', {}, x.name),
            featuredMark(x),
            typeof x.type === 'string' && x.type ? h('span', { class: 'unit-type' }, x.type) : undefined,
            h('span', { class: 'facts' }, [factsLine(x), priceText(x)].filter(Boolean).join(' · ')),
          ),
        ),
      ),
    ),
  );
}

/** The project's finish packages (one, or a list), each with its kitchen, bathroom and general tabs; the unit's choice marked. */
function packages(project: unknown, own: unknown, deps: MoreDeps): HTMLElement | undefined {
  const { h, words } = deps;
  const list = (Array.isArray(project) ? project : [project]).filter((p): p is Package => typeof p === 'object' && p !== null && 'options' in p);
  const chosen = (own as { type?: Package } | undefined)?.type;
  const chosenName = typeof chosen?.name === 'string' ? chosen.name.trim() : '';
  // The unit's own package when the project's list does not carry it.
  if (chosen?.options && !list.some((p) => (p.name ?? '').trim() === chosenName)) list.push(chosen);
  if (!list.length) return undefined;
  return h(
    'section',
    { class: 'unit-extra', id: 'unit-packages', 'aria-label': words.packages },
    h('h3', {}, words.packages),
    ...list.map((p, i) => onePackage(p, i, chosenName !== '' && (p.name ?? '').trim() === chosenName, deps)),
  );
}

function onePackage(p: Package, index: number, chosen: boolean, { h, safeUrl, words }: MoreDeps): HTMLElement {
  const rooms = ROOMS.filter((r) => (p.options?.[r]?.tabs ?? []).length > 0);
  const panel = h('div', { class: 'pkg-panel', id: `pkg-${index}-panel`, role: 'tabpanel' });
  const show = (room: Room3) => {
    for (const b of bar.querySelectorAll('button')) b.setAttribute('aria-selected', String(b.dataset.room === room));
    panel.replaceChildren(
      ...(p.options?.[room]?.tabs ?? []).map((tab) => {
        const cover = safeUrl(tab.cover);
        const thumb = safeUrl(tab.thumbnail);
        return h(
          'figure',
          { class: 'pkg-tab' },
          cover ? h('img', { src: cover, alt: tab.label ?? '', loading: 'lazy', width: '320', height: '200', class: 'pkg-cover' }) : undefined,
          h('figcaption', {}, thumb ? h('img', { src: thumb, alt: '', width: '32', height: '32', class: 'pkg-thumb' }) : undefined, tab.label ?? ''),
        );
      }),
    );
  };
  const bar = h(
    'div',
    { class: 'pkg-rooms', role: 'tablist' },
    ...rooms.map((room) =>
      h('button', { type: 'button', role: 'tab', class: 'chip', 'data-room': room, id: `pkg-${index}-${room}`, onclick: () => show(room) }, words[room]),
    ),
  );
  if (rooms[0]) show(rooms[0]);
  return h(
    'div',
    { class: `pkg${chosen ? ' chosen' : ''}`, 'data-package': p.name ?? '', 'aria-current': chosen ? 'true' : undefined },
    h('h4', {}, p.name ?? words.packages, chosen ? h('span', { class: 'badge pkg-chosen' }, words.chosen) : undefined),
    bar,
    panel,
  );
}
