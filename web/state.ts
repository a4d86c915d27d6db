/** What the visitor looks at, kept in the address (so back/forward and shared links work), and what follows from it. */
import type { Bundle, Dict, Floor, Room, Unit } from './types.ts';
import { featuredFirst, isHome } from './counting.ts';
import { UTM_PARAMS } from './campaign.ts';

export type View = 'building' | 'plan' | 'list';
export type Sort = 'default' | 'price-asc' | 'price-desc' | 'area-desc' | 'name';
export const FILTER_KEYS = ['priceMin', 'priceMax', 'areaMin', 'areaMax', 'bedrooms', 'availability', 'search'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export interface ViewState {
  view: View;
  floor: string;
  unit: string | undefined;
  sort: Sort;
  filters: Record<FilterKey, string>;
}

export const state = {
  bundle: undefined as Bundle | undefined,
  view: { view: 'building', floor: '', unit: undefined, sort: 'default', filters: emptyFilters() } as ViewState,
  /** Units this visitor holds, with their expiry. */
  holds: new Map<string, string>(),
};

export function emptyFilters(): Record<FilterKey, string> {
  return { priceMin: '', priceMax: '', areaMin: '', areaMax: '', bedrooms: '', availability: '', search: '' };
}

const body = document.body;
export const namespace = body.dataset.namespace ?? '';
/** A draft's preview token (from its preview link): the live feed needs it as the bundle does. */
export const previewToken = new URLSearchParams(location.search).get('preview') ?? '';
export const bundleUrl = body.dataset.bundle ?? `/public/projects/${encodeURIComponent(namespace)}`;
/** Pages served at /p/{namespace} carry the unit in the path; a project's own host name uses ?unit=. */
const pathBase = location.pathname.startsWith('/p/') ? `/p/${encodeURIComponent(namespace)}` : '';

/** The bundle, once loaded: nothing is drawn before it is, so a missing one is a bug. */
export function loaded(): Bundle {
  if (!state.bundle) throw new Error('The project is not loaded yet');
  return state.bundle;
}

export const settings = (): Dict => state.bundle?.project ?? {};

/** Counts changes of the settings a drawing depends on (the console's preview redraws with unsaved ones): views keyed by it redraw. */
let settingsRevision = 0;
export const settingsRev = () => settingsRevision;
export const settingsChanged = () => {
  settingsRevision++;
};

/** Each unit's own name, kept while the page shows it with the project's `phasePrefix`. */
const ownNames = new WeakMap<object, string>();

/**
 * The project's `phasePrefix` before each unit's name, as the page shows and searches it: "P2-" and "A1" read "P2-A1";
 * a prefix ending in a letter or digit is followed by a space ("Phase 2 A1"). Run again with another prefix (the
 * console's preview), it starts from the unit's own name.
 */
export function phaseNames(units: { name: string }[], prefix: unknown) {
  const p = typeof prefix === 'string' ? prefix.trim() : '';
  const lead = !p ? '' : /[\p{L}\p{N}]$/u.test(p) ? `${p} ` : p;
  for (const u of units) {
    const own = ownNames.get(u) ?? u.name;
    ownNames.set(u, own);
    u.name = lead + own;
  }
}
export const flag = (name: string) => settings()[name] === true;

/** Whether the page tells statuses apart (`showAvailability`). When not, no status word, colour, mark, legend or filter. */
export const showsStatus = () => settings().showAvailability !== false;
/** The status a unit is drawn with: its own, or `none` (one neutral colour) where the project hides availability. */
export const shownStatus = (availability: string) => (showsStatus() ? availability : 'none');

const QUERY: Record<FilterKey, string> = {
  priceMin: 'min',
  priceMax: 'max',
  areaMin: 'amin',
  areaMax: 'amax',
  bedrooms: 'beds',
  availability: 'status',
  search: 'q',
};

/** The view state an address describes (defaults from the project where it says nothing). */
export function fromAddress(defaults: { view: View; floor: string }): ViewState {
  const q = new URLSearchParams(location.search);
  const unitInPath = /\/units\/([0-9a-f]{24})$/.exec(location.pathname)?.[1];
  const view = q.get('view');
  const sort = q.get('sort');
  const filters = emptyFilters();
  for (const k of FILTER_KEYS) filters[k] = (q.get(QUERY[k]) ?? '').slice(0, 40);
  // No status filter where the project hides availability (an old link's `?status=` included).
  if (!showsStatus()) filters.availability = '';
  return {
    view: view === 'building' || view === 'plan' || view === 'list' ? view : defaults.view,
    floor: q.get('floor') ?? defaults.floor,
    unit: unitInPath ?? q.get('unit') ?? undefined,
    sort: (['default', 'price-asc', 'price-desc', 'area-desc', 'name'] as const).find((x) => x === sort) ?? 'default',
    filters,
  };
}

export function toAddress(v: ViewState): string {
  const q = new URLSearchParams();
  // Leave the page's own switches (refresh interval, the embedding host), a draft's preview token and the campaign
  // (utm_*) where they are.
  const here = new URLSearchParams(location.search);
  for (const name of ['refresh', 'preview', 'embed', ...UTM_PARAMS]) {
    const keep = here.get(name);
    if (keep) q.set(name, keep);
  }
  q.set('view', v.view);
  if (v.floor) q.set('floor', v.floor);
  if (v.sort !== 'default') q.set('sort', v.sort);
  for (const k of FILTER_KEYS) if (v.filters[k]) q.set(QUERY[k], v.filters[k]);
  let path = pathBase || '/';
  if (v.unit) {
    if (pathBase) path = `${pathBase}/units/${v.unit}`;
    else q.set('unit', v.unit);
  }
  return `${path}?${q}`;
}

/** Writes the view into the address: a new history entry for navigation, a replaced one for typing. */
export function writeAddress(mode: 'push' | 'replace') {
  const next = toAddress(state.view);
  if (next === location.pathname + location.search) return;
  if (mode === 'push') history.pushState(null, '', next);
  else history.replaceState(null, '', next);
}

export const unitUrl = (unitId: string) => new URL(pathBase ? `${pathBase}/units/${unitId}` : `/?unit=${unitId}`, location.href).href;

// ---------- what follows from the bundle ----------

/** Every unit; sold units of a project that hides them only as stubs (a shape, no identity). */
export function allUnits(): Room[] {
  const b = state.bundle;
  if (!b) return [];
  return [...b.floors.flatMap((f) => [...f.units, ...stubs(f)]), ...b.unassignedUnits];
}

export function stubs(f: Floor): Room[] {
  return (f.soldShapes ?? []).map((path, i) => ({
    _id: `sold-${f._id}-${i}`,
    name: '' as const,
    path,
    availability: 'sold' as const,
    floor: f._id,
    stub: true as const,
    position: f.soldPositions?.[i],
  }));
}

export const floorUnits = (f: Floor): Room[] => [...f.units, ...stubs(f)].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));

export const findUnit = (id: string) => allUnits().find((u) => u._id === id);

/** Digits only: "750,000" and "750 000" are 750000; nothing is no bound. */
export const bound = (v: string) => {
  const digits = v.replace(/[^\d.]/g, '');
  return digits === '' || !Number.isFinite(Number(digits)) ? undefined : Number(digits);
};

/** The filters that take working out (numbers from typed text, the search's letters). */
const WORKED = ['priceMin', 'priceMax', 'areaMin', 'areaMax', 'search'] as const;
/** Those filters worked out once for the values they hold (`from`): `matches` runs for every unit of every draw. */
let worked: { from: Record<FilterKey, string>; pMin?: number; pMax?: number; aMin?: number; aMax?: number; search: string } | undefined;
function workedFilters(f: Record<FilterKey, string>) {
  if (!worked || WORKED.some((k) => worked?.from[k] !== f[k]))
    worked = {
      from: { ...f },
      pMin: bound(f.priceMin),
      pMax: bound(f.priceMax),
      aMin: bound(f.areaMin),
      aMax: bound(f.areaMax),
      search: f.search.toLowerCase().replace(/\s+/g, ''),
    };
  return worked;
}

export function matches(u: Room): boolean {
  const f = state.view.filters;
  const { pMin, pMax, aMin, aMax, search } = workedFilters(f);
  // A price to be determined is no price: it matches no price range.
  const price = u.unitPriceTBD === true ? undefined : u.price;
  if (pMin !== undefined && !(typeof price === 'number' && price >= pMin)) return false;
  if (pMax !== undefined && !(typeof price === 'number' && price <= pMax)) return false;
  if (aMin !== undefined && !(typeof u.squareFeet === 'number' && u.squareFeet >= aMin)) return false;
  if (aMax !== undefined && !(typeof u.squareFeet === 'number' && u.squareFeet <= aMax)) return false;
  if (f.bedrooms && (u.bedrooms ?? '') !== f.bedrooms) return false;
  if (f.availability && showsStatus() && u.availability !== f.availability) return false;
  // The search box: a unit whose name contains what was typed (any case, spaces ignored).
  if (search && !u.name.toLowerCase().replace(/\s+/g, '').includes(search)) return false;
  return true;
}

export const filtersActive = () => FILTER_KEYS.some((k) => state.view.filters[k] !== '');

/** The homes the list shows: the chosen floor (or all), filtered, sorted (by default featured homes first). Other spaces (amenities, parking, storage) are never among them. */
export function listedUnits(): Unit[] {
  const b = state.bundle;
  if (!b) return [];
  const floor = b.floors.find((f) => f._id === state.view.floor);
  // Stubs of hidden sold units fill their rooms on the plan and the building, not the list.
  let units = (floor ? floorUnits(floor) : allUnits()).filter((u): u is Unit => u.stub !== true && isHome(u) && matches(u));
  const num = (x: unknown, fallback: number) => (typeof x === 'number' ? x : fallback);
  const sorters: Record<string, (a: Unit, b: Unit) => number> = {
    'price-asc': (a, b) => num(a.price, Infinity) - num(b.price, Infinity),
    'price-desc': (a, b) => num(b.price, -Infinity) - num(a.price, -Infinity),
    'area-desc': (a, b) => num(b.squareFeet, -Infinity) - num(a.squareFeet, -Infinity),
    name: (a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }),
  };
  const sorter = sorters[state.view.sort] as ((a: Unit, b: Unit) => number) | undefined;
  if (sorter) return [...units].sort(sorter);
  if (flag('showAvailableFirst')) units = [...units].sort((a, b) => Number(b.availability === 'available') - Number(a.availability === 'available'));
  return featuredFirst(units);
}
