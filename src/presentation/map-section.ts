/**
 * Where the homes are (docs/map.md): the map section and the flat site plan the server writes into a project's page,
 * and what the page's CSP must allow for them. The section is complete as text (the address, a "View on map" link,
 * Directions); the page's script turns it into a MapLibre map only when it scrolls into view.
 */
import { MAP_STYLE_DEFAULTS, type MapConfig } from '../config.ts';
import { escapeHtml, safeHref, str } from './html-text.ts';
import {
  layoutRotation,
  layoutWidth,
  lotsOnFlatPlan,
  MAP_STYLES,
  mapZoom,
  markerShape,
  pointColor,
  type GroupMapData,
  type MapData,
} from '../modules/shared/map-look.ts';

type Data = Record<string, unknown>;

/** A record's location, when `lat` and `lon` are both numbers on the globe, not both 0. */
export function locationOf(s: Data): { lat: number; lon: number } | undefined {
  const { lat, lon } = s;
  if (typeof lat !== 'number' || typeof lon !== 'number' || !Number.isFinite(lat) || !Number.isFinite(lon)) return undefined;
  // 0, 0 (in the ocean off Africa) is what a record without a location holds: `lat` and `lon` cannot be removed.
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180 || (lat === 0 && lon === 0)) return undefined;
  return { lat, lon };
}

/** The hosts a style fetches from beyond its own: the built-in satellite style's imagery (web/static/map-satellite.json). */
const STYLE_HOSTS: Record<string, string[]> = { [MAP_STYLE_DEFAULTS.Satellite]: ['https://server.arcgisonline.com'] };

/** The origins a page showing `style` fetches from: the style's own (unless this one), its known hosts, MAP_CONNECT_ORIGINS. */
function mapOrigins(map: MapConfig, mapStyle: unknown, origin: string): string[] {
  const key = MAP_STYLES.find((k) => k === mapStyle) ?? 'Light';
  const style = new URL(styleUrl(map, key, origin));
  return [...new Set([...(style.origin !== origin ? [style.origin] : []), ...(STYLE_HOSTS[map.styles[key]] ?? []), ...map.origins])];
}

/** The style URL of a `mapStyle` (anything else: `Light`), absolute. */
export function styleUrl(map: MapConfig, mapStyle: unknown, origin: string): string {
  const key = MAP_STYLES.find((k) => k === mapStyle) ?? 'Light';
  return new URL(map.styles[key], origin).href;
}

/**
 * The console's Map tab (web/admin/screens/place.tsx): every style by `mapStyle`, absolute, and what the console's CSP
 * allows for them (each style's origin and hosts, MAP_CONNECT_ORIGINS; an http: host in img-src too).
 */
export function consoleMap(map: MapConfig, origin: string): { styles: Record<string, string>; connect: string[]; img: string[] } {
  const styles = Object.fromEntries(MAP_STYLES.map((k) => [k, styleUrl(map, k, origin)]));
  const hosts = [...new Set(MAP_STYLES.flatMap((k) => mapOrigins(map, k, origin)))];
  return { styles, connect: hosts, img: hosts.filter((h) => h.startsWith('http:')) };
}

/** The site plan's picture, its lots' SVG, their width and turn on the map. */
function layoutOf(s: Data, origin: string) {
  const image = safeHref(s.layoutImageUrl, origin);
  return image ? { image, width: layoutWidth(s.mapLayoutWidth), rotation: layoutRotation(s.mapLayoutRotation) } : undefined;
}

const WORDS = {
  en: { title: 'Location', view: 'View on map', directions: 'Directions', plan: 'Site plan', map: 'Map' },
  fr: { title: 'Emplacement', view: 'Voir sur la carte', directions: 'Itinéraire', plan: 'Plan du site', map: 'Carte' },
  es: { title: 'Ubicación', view: 'Ver en el mapa', directions: 'Cómo llegar', plan: 'Plano del sitio', map: 'Mapa' },
};
const words = (lang: string) => (lang === 'fr' || lang === 'es' ? WORDS[lang] : WORDS.en);

/** The flat site plan's section: the picture, its lots drawn over it by the page's script. */
function sitePlanSection(s: Data & { name: string }, layout: { image: string }, svg: string | undefined, lang: string): string {
  const w = words(lang);
  return `<section class="info-block wide place-block" id="site-plan" aria-labelledby="site-plan-title" data-plan="${escapeHtml(
    JSON.stringify({ image: layout.image, ...(svg ? { svg } : {}) }),
  )}"><h2 class="section-title" id="site-plan-title">${w.plan}</h2><div class="site-plan" id="site-plan-frame"><img src="${escapeHtml(layout.image)}" alt="${escapeHtml(
    `${w.plan}: ${s.name}`,
  )}" loading="lazy"></div></section>`;
}

/**
 * The map section (when `lat`/`lon` are set) and the flat site plan (a `layoutImageUrl` without a location, or with
 * one when `lotsLayout` is `plan`); '' when the project has neither. `worker` is MapLibre's worker script among the
 * built assets.
 */
export function placeSection(s: Data & { name: string }, map: MapConfig, worker: string, origin: string, lang: string, address: string | undefined): string {
  const at = locationOf(s);
  const layout = layoutOf(s, origin);
  const svg = safeHref(s.projectSVGUrl, origin);
  const flat = layout && lotsOnFlatPlan(s.lotsLayout, at !== undefined) ? sitePlanSection(s, layout, svg, lang) : '';
  if (!at) return flat;
  const w = words(lang);
  const zoom = mapZoom(s.zoomLevel);
  const image = safeHref(s.markerImageUrl, origin);
  const place = address ?? s.name;
  const onMap = layout && !flat ? layout : undefined;
  const data: MapData = {
    lat: at.lat,
    lon: at.lon,
    zoom,
    style: styleUrl(map, s.mapStyle, origin),
    worker: `/p/assets/${worker}`,
    label: `${s.name}${address ? `, ${address}` : ''}`,
    marker: { ...(image ? { image } : {}), color: pointColor(s.mapPointColor), shape: markerShape(s.targetMarker) },
    ...(str(s.perimeter) ? { perimeter: String(s.perimeter) } : {}),
    ...(onMap ? { layout: onMap } : {}),
    ...(svg && onMap ? { svg } : {}),
  };
  const coords = `${at.lat},${at.lon}`;
  const osm = `https://www.openstreetmap.org/?mlat=${at.lat}&mlon=${at.lon}#map=${Math.round(zoom)}/${at.lat}/${at.lon}`;
  // Google's cross-platform maps URL: the maps app on a phone (Google Maps, or the browser's maps where it has none), the site on a desktop.
  const directions = `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(coords)}`;
  return `<section class="info-block wide place-block" id="map-section" aria-labelledby="map-title" data-map="${escapeHtml(JSON.stringify(data))}">
<h2 class="section-title" id="map-title">${w.title}</h2>
<p class="map-text"><span class="map-address">${escapeHtml(place)}</span> · <a id="map-view-link" href="${escapeHtml(osm)}" target="_blank" rel="noopener">${w.view}</a>${
    s.mapDirections === true ? ` · <a id="map-directions" href="${escapeHtml(directions)}" target="_blank" rel="noopener">${w.directions}</a>` : ''
  }</p>
<div class="map-frame" id="map" role="region" aria-label="${escapeHtml(`${w.view}: ${place}`)}"></div>
</section>${flat ? `\n${flat}` : ''}`;
}

/**
 * What a page with a map adds to its CSP: the map hosts (style, tiles, glyphs, sprites) in connect-src and img-src, and
 * the site plan's picture host in connect-src (MapLibre fetches an image source). MapLibre's worker is a script of
 * this origin ('self'); no blob: and no eval.
 */
export function mapCspSources(s: Data, map: MapConfig, origin: string): { connect: string[]; img: string[] } {
  const located = locationOf(s) !== undefined;
  // The flat site plan shows its picture as an <img> (img-src allows https: already) and reads the lots' SVG with fetch.
  const hosts = located ? mapOrigins(map, s.mapStyle, origin) : [];
  const extra = new Set(hosts);
  if (!located && !safeHref(s.layoutImageUrl, origin)) return { connect: [], img: [] };
  for (const v of located ? [s.layoutImageUrl, s.projectSVGUrl] : [s.projectSVGUrl]) {
    const href = safeHref(v, origin);
    if (href && new URL(href).origin !== origin) extra.add(new URL(href).origin);
  }
  return { connect: [...extra], img: [...hosts].filter((h) => h.startsWith('http:')) };
}

/** A project on its group's page, as the group map needs it. */
interface GroupProject {
  name: string;
  namespace: string;
  website?: string | undefined;
  location?: { lat: number; lon: number } | undefined;
}

/**
 * The group page's map (docs/map.md): a marker per project with a location, each opening the project as the group's
 * `linkBehavior` says (`Service`: its page here; `NewTab`: its page in a new tab; `Website`: its `websiteURL` in a new
 * tab, its page where it has none), and the group's `perimeter`; centred on the group's `lat`/`lon` at its
 * `zoomLevel` when it has a location, else fitted to its projects. The projects' markers are the group's
 * `markerImageUrl` where it has one (else pins); with `targetMarker` `pin` or `dot`, the group's own location has a
 * marker of that shape too, named by its address.
 * Empty when no project has a location; otherwise the section, the script that starts it, and the CSP's additions.
 */
export function groupMap(
  g: Data,
  projects: GroupProject[],
  map: { config: MapConfig; worker: string; script: string } | undefined,
  origin: string,
  lang: string,
  name = '',
): { html: string; script: string; connect: string[] } | undefined {
  const points = projects.flatMap((p) => {
    if (!p.location) return [];
    const site = g.linkBehavior === 'Website' ? safeHref(p.website, origin) : undefined;
    return [
      {
        name: p.name,
        lat: p.location.lat,
        lon: p.location.lon,
        href: site ?? `/p/${encodeURIComponent(p.namespace)}`,
        newTab: !!site || g.linkBehavior === 'NewTab',
      },
    ];
  });
  if (!map || !points.length) return undefined;
  const w = words(lang);
  const style = styleUrl(map.config, g.mapStyle, origin);
  const color = pointColor(g.mapPointColor);
  const at = locationOf(g);
  const image = safeHref(g.markerImageUrl, origin);
  // The group's own place gets a marker only when `targetMarker` asks for one (a pin or a dot); unset, its location only centres the map.
  const own = at && (g.targetMarker === 'pin' || g.targetMarker === 'dot') ? g.targetMarker : undefined;
  const data: GroupMapData = {
    style,
    worker: `/p/assets/${map.worker}`,
    label: w.map,
    color,
    ...(image ? { image } : {}),
    ...(at ? { center: [at.lon, at.lat] } : {}),
    ...(own ? { own: { shape: own, name: str(g.address) ?? name } } : {}),
    zoom: mapZoom(g.zoomLevel, 14),
    ...(str(g.perimeter) ? { perimeter: String(g.perimeter) } : {}),
    points,
  };
  const html = `<section class="group-map" id="group-map" aria-labelledby="group-map-title" data-map="${escapeHtml(JSON.stringify(data))}">
<h2 class="section-title" id="group-map-title">${w.title}</h2>
<div class="map-frame" id="map" role="region" aria-label="${escapeHtml(`${w.view}: ${points.map((p) => p.name).join(', ')}`)}"></div>
</section>`;
  return { html, script: `/p/assets/${map.script}`, connect: mapOrigins(map.config, g.mapStyle, origin) };
}
