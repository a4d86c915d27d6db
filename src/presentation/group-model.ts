/** What a group's page shows, decided by the group's own settings over each project's. */
import { GROUP_DEFAULTS, GROUP_SWITCHES } from '../modules/groups/groups.schemas.ts';
import { currencyOf } from './group-words.ts';
import { safeHref, str } from './html-text.ts';
import { shownAddress } from './project-info.ts';
import { locationOf } from './map-section.ts';
import { pointColor } from '../modules/shared/map-look.ts';
import { isHome } from '../../web/counting.ts';
import type { SvgShape } from './group-svg.ts';

type Data = Record<string, unknown>;

/** The group page's views; a view without a renderer (the map, until it is built) falls back to the list. */
export const GROUP_VIEWS = ['List', 'Grid', 'Map'] as const;
export type GroupView = (typeof GROUP_VIEWS)[number];

type SwitchName = (typeof GROUP_SWITCHES)[number];

/** The group's settings as its page reads them: each switch the group's own (its default where unset). */
export interface GroupSettings extends Record<SwitchName, boolean> {
  initialView: GroupView;
  unitImageOnGrid: 'Unit Plan' | 'Unit Image';
  theme: 'light' | 'dark';
  lang: string;
  linkBehavior: 'Service' | 'Website' | 'NewTab';
}

export function groupSettings(g: Data): GroupSettings {
  const flag = (k: SwitchName) => (typeof g[k] === 'boolean' ? g[k] : GROUP_DEFAULTS[k] === true);
  const pick = <T extends string>(v: unknown, values: readonly T[], fallback: T): T =>
    values.find((x) => typeof v === 'string' && x.toLowerCase() === v.toLowerCase()) ?? fallback;
  const lang = typeof g.groupLang === 'string' && /^[a-z]{2}\b/i.test(g.groupLang) ? g.groupLang.slice(0, 2).toLowerCase() : 'en';
  return {
    ...(Object.fromEntries(GROUP_SWITCHES.map((k) => [k, flag(k)])) as Record<SwitchName, boolean>),
    initialView: pick(g.initialView, GROUP_VIEWS, 'List'),
    unitImageOnGrid: pick(g.unitImageOnGrid, ['Unit Plan', 'Unit Image'] as const, 'Unit Plan'),
    theme: pick(g.theme, ['light', 'dark'] as const, 'light'),
    lang,
    linkBehavior: pick(g.linkBehavior, ['Service', 'Website', 'NewTab'] as const, 'Service'),
  };
}

/** Where a link to a project (or one of its homes) leads, by the group's `linkBehavior`. */
export interface Link {
  href: string;
  newTab: boolean;
}

/** One home of a project as the group page lists it: only what the group's switches show is set. */
export interface GroupUnit {
  id: string;
  name: string;
  project: string;
  floor?: string | undefined;
  link: Link;
  /** Absent where availability is not shown. */
  availability?: string | undefined;
  price?: number | undefined;
  /** The price is "to be decided" (shown as such, never as a number). */
  tbd?: boolean | undefined;
  currency: string;
  area?: number | undefined;
  areaUnit: string;
  bedrooms?: number | undefined;
  bathrooms?: number | undefined;
  delivery?: string | undefined;
  image?: string | undefined;
}

/** A floor of a project in the floor overview: homes on offer of all, and the lowest price among those on offer. */
export interface FloorLine {
  name: string;
  available?: number | undefined;
  total: number;
  from?: number | undefined;
}

export interface GroupCard {
  name: string;
  namespace: string;
  link: Link;
  image?: string | undefined;
  address?: string | undefined;
  /** Homes on offer; absent where availability is not shown. */
  available?: number | undefined;
  /** "From <lowest price>", with the group's `pricesStartingAt` and `showPrices`. */
  from?: number | undefined;
  currency: string;
  /** With the group's `showFloorOverview`. */
  floors?: FloorLine[] | undefined;
  /** Where the project is (`lat`/`lon`) and its own site, for the group's map (map-section.ts). */
  location?: { lat: number; lon: number } | undefined;
  website?: string | undefined;
  /** The project's shapes on the group's picture: its `path`, then each line of its `alternativePaths`. */
  paths: string[];
  /** The element of the group's `groupSVGUrl` that is the project's shape, used when it has no `path`. */
  svgGroupId?: string | undefined;
  /** That element's shapes, once read (group-svg.ts). */
  svgShapes: SvgShape[];
}

/** The filters a visitor set (query parameters), each used only where the group offers that filter. */
export interface GroupFilters {
  minPrice?: number | undefined;
  maxPrice?: number | undefined;
  minArea?: number | undefined;
  maxArea?: number | undefined;
}

/** One project of the group as its public bundle has it (what the project itself withholds is already out). */
export interface GroupProjectBundle {
  project: Data & { name: string; namespace?: string };
  floors: (Data & { name: string; units: Data[] })[];
  unassignedUnits: Data[];
}

export interface GroupModel {
  settings: GroupSettings;
  /** The picture of the site the projects are picked on (`groupImageUrl`, else `groupSVGUrl`), when a project has a shape on it. */
  picture?: string | undefined;
  /** The site's own outline on that picture: the element of the group's `svgGroupId` in its `groupSVGUrl` (group-svg.ts). */
  boundary?: { shapes: SvgShape[]; color: string } | undefined;
  cards: GroupCard[];
  /** With `showAllUnits`: every home of every project, filtered and ordered; undefined otherwise. */
  units?: GroupUnit[] | undefined;
  /** Homes before the visitor's filters (so the page can say "3 of 12"). */
  unitsTotal: number;
  filters: GroupFilters;
  offers: { priceFilter: boolean; areaFilter: boolean };
}

function linkTo(s: GroupSettings, project: Data, path: string, origin: string): Link {
  if (s.linkBehavior === 'Website') {
    const site = safeHref(project.websiteURL, origin);
    if (site) return { href: site, newTab: true };
  }
  return { href: path, newTab: s.linkBehavior === 'NewTab' };
}

/** A card with a shape on the group's picture: a `path`, or an element of the group's SVG. */
export const onPicture = (c: GroupCard) => c.paths.length > 0 || c.svgShapes.length > 0;

/** The picture of the site (`groupImageUrl`, else `groupSVGUrl`) when a project has a shape on it. */
function pictureOf(group: Data, cards: GroupCard[], origin: string): string | undefined {
  const picture = safeHref(group.groupImageUrl, origin) ?? safeHref(group.groupSVGUrl, origin);
  return picture && cards.some(onPicture) ? picture : undefined;
}

/**
 * Each project without a `path` gets the shapes its `svgGroupId` names among `shapes` (the elements of the group's
 * `groupSVGUrl`, read by group-svg.ts), and the group's own `svgGroupId` its outline of the site; the picture is shown
 * once one project has a shape.
 */
export function withSvgShapes(model: GroupModel, group: Data, shapes: Map<string, SvgShape[]>, origin: string): GroupModel {
  for (const c of model.cards) if (!c.paths.length && c.svgGroupId) c.svgShapes = shapes.get(c.svgGroupId) ?? [];
  const own = str(group.svgGroupId);
  const boundary = own ? shapes.get(own) : undefined;
  return {
    ...model,
    picture: pictureOf(group, model.cards, origin),
    ...(boundary?.length ? { boundary: { shapes: boundary, color: pointColor(group.mapPointColor) } } : {}),
  };
}

/** SVG path data: a moveto, then only path commands, numbers, spaces and commas (anything else is not drawn). */
const PATH_DATA = /^\s*[Mm][\sMmLlHhVvCcSsQqTtAaZz0-9.,eE+-]*$/;

/** A project's shapes on the group's picture: `path`, then `alternativePaths` (one path a line). */
function projectPaths(p: Data): string[] {
  const more = typeof p.alternativePaths === 'string' ? p.alternativePaths.split(/\r?\n/) : [];
  return [p.path, ...more].filter((d): d is string => typeof d === 'string' && d.length <= 100_000 && PATH_DATA.test(d));
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** A count kept as a number or as numeric text (a unit's `bedrooms` may be either). */
const count = (v: unknown) => num(typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v);
const priced = (u: Data) => u.unitPriceTBD !== true && typeof u.price === 'number';

/**
 * The group page's content from the group's settings and its projects' public bundles. The group's switches decide
 * what is shown; what a project withholds from the public (its prices with its own `showPrices` false, its sold homes
 * with `hideSold`, its statuses with `showAvailability` false) stays out, since its bundle never had it.
 */
export function groupModel(group: Data, bundles: GroupProjectBundle[], filters: GroupFilters, origin: string): GroupModel {
  const s = groupSettings(group);
  const offers = { priceFilter: s.showAllUnits && s.showPriceFilter && s.showPrices, areaFilter: s.showAllUnits && s.showAreaFilter && !s.hideArea };
  const cards: GroupCard[] = [];
  const all: (GroupUnit & { order: number })[] = [];
  for (const b of bundles) {
    const p = b.project;
    const namespace = p.namespace ?? '';
    const currency = currencyOf(p);
    const statuses = s.showAvailability && p.showAvailability !== false;
    // Homes only: amenities, parking and storage (`specificType`) are never counted or listed as homes (web/counting.ts).
    const shown = (u: Data) => isHome(u) && !(s.hideSold && u.availability === 'sold');
    // What counts as on offer: the available homes; every home where statuses are hidden, so a figure says nothing of sales.
    const onOffer = (u: Data) => !statuses || u.availability === 'available';
    const lowest = (units: Data[]) => {
      const prices = units.filter((u) => onOffer(u) && priced(u)).map((u) => u.price as number);
      return s.showPrices && s.pricesStartingAt && prices.length ? Math.min(...prices) : undefined;
    };
    const floors = b.floors.map((f) => ({ name: f.name, units: f.units.filter(shown) }));
    const homes = [...floors.flatMap((f) => f.units), ...b.unassignedUnits.filter(shown)];
    const cover: unknown = Array.isArray(p.alternativeCovers) ? (p.alternativeCovers as unknown[])[0] : undefined;
    cards.push({
      name: p.name,
      namespace,
      link: linkTo(s, p, `/p/${encodeURIComponent(namespace)}`, origin),
      image: str(p.projectImageUrl) ?? str(cover),
      address: shownAddress(p),
      location: locationOf(p),
      website: str(p.websiteURL),
      available: statuses ? homes.filter((u) => u.availability === 'available').length : undefined,
      from: lowest(homes),
      currency,
      floors: s.showFloorOverview
        ? floors
            .filter((f) => f.units.length)
            .map((f) => ({ name: f.name, total: f.units.length, available: statuses ? f.units.filter(onOffer).length : undefined, from: lowest(f.units) }))
        : undefined,
      paths: projectPaths(p),
      svgGroupId: str(p.svgGroupId),
      svgShapes: [],
    });
    if (!s.showAllUnits) continue;
    const unitsOf = [
      ...floors.flatMap((f) => f.units.map((u) => ({ u, floor: f.name }))),
      ...b.unassignedUnits.filter(shown).map((u) => ({ u, floor: undefined })),
    ];
    for (const { u, floor } of unitsOf) {
      const id = typeof u._id === 'string' ? u._id : '';
      const photo = str(u.unitImageUrl) ?? (Array.isArray(u.images) ? str((u.images as unknown[])[0]) : undefined);
      const plan = str(u.layoutUrl);
      all.push({
        order: all.length,
        id,
        name: typeof u.name === 'string' ? u.name : '',
        project: p.name,
        floor,
        link: linkTo(s, p, `/p/${encodeURIComponent(namespace)}/units/${encodeURIComponent(id)}`, origin),
        availability: statuses && typeof u.availability === 'string' ? u.availability : undefined,
        price: s.showPrices ? num(u.price) : undefined,
        tbd: s.showPrices && u.unitPriceTBD === true,
        currency,
        area: s.hideArea ? undefined : num(u.squareFeet),
        areaUnit: str(p.areaUnit) ?? 'sq ft',
        bedrooms: p.hideBedrooms === true ? undefined : count(u.bedrooms),
        bathrooms: count(u.bathrooms),
        delivery: s.deliveryDates ? (str(u.deliveryDate) ?? str(p.deliveryDate)) : undefined,
        image: s.unitImageOnGrid === 'Unit Plan' ? (plan ?? photo) : (photo ?? plan),
      });
    }
  }
  const within = (v: number | undefined, min: number | undefined, max: number | undefined) =>
    (min === undefined && max === undefined) || (v !== undefined && (min === undefined || v >= min) && (max === undefined || v <= max));
  const units = all.filter(
    (u) =>
      (!offers.priceFilter || within(u.tbd ? undefined : u.price, filters.minPrice, filters.maxPrice)) &&
      (!offers.areaFilter || within(u.area, filters.minArea, filters.maxArea)),
  );
  // The homes on offer first where the group asks for it; otherwise (and within each part) the projects' own order.
  if (s.showAvailableFirst) units.sort((a, b) => Number(b.availability === 'available') - Number(a.availability === 'available') || a.order - b.order);
  return {
    settings: s,
    picture: pictureOf(group, cards, origin),
    cards,
    units: s.showAllUnits ? units.map(({ order: _, ...u }) => u) : undefined,
    unitsTotal: all.length,
    filters: {
      ...(offers.priceFilter ? { minPrice: filters.minPrice, maxPrice: filters.maxPrice } : {}),
      ...(offers.areaFilter ? { minArea: filters.minArea, maxArea: filters.maxArea } : {}),
    },
    offers,
  };
}
