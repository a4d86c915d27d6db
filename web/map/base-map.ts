/**
 * A MapLibre map as the page, the group page and the console draw it (web/map/map-view.ts, web/admin/map-draw.ts):
 * labelled, keyboard-usable (MapLibre's keys: arrows pan, + and − zoom), with zoom buttons, falling back to a blank
 * style when its own cannot load, so what is drawn over it (markers, layers added on every style load) still is.
 */
import { Map as MapLibre, NavigationControl, setWorkerUrl, type StyleSpecification } from 'maplibre-gl';

/** What draws when the style cannot load (no network, a blocked host): a plain ground. */
const BLANK: StyleSpecification = { version: 8, sources: {}, layers: [{ id: 'ground', type: 'background', paint: { 'background-color': '#eceee9' } }] };

/** A map in `frame`, labelled, keyboard-usable (MapLibre's keys: arrows pan, + and − zoom), that falls back to a blank style. */
export function baseMap(
  frame: HTMLElement,
  worker: string,
  style: string,
  center: [number, number],
  zoom: number,
  label: string,
  cooperative = true,
): MapLibre {
  setWorkerUrl(worker);
  const map = new MapLibre({
    container: frame,
    style,
    center,
    zoom,
    attributionControl: { compact: false },
    // One finger scrolls the page on a phone; two move the map (and Ctrl with the wheel on a desktop).
    cooperativeGestures: cooperative,
    locale: { 'Map.Title': label },
  });
  map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
  map.on('error', (e) => {
    // The style itself failed (its JSON unreachable or unreadable): draw on a blank ground instead. A tile that fails is
    // only a missing tile.
    if (frame.dataset.style === 'fallback' || map.isStyleLoaded()) return;
    if (!/style|fetch|Failed|NetworkError|JSON/i.test(e.error.message)) return;
    frame.dataset.style = 'fallback';
    map.setStyle(BLANK);
  });
  map.on('style.load', () => {
    frame.dataset.style ??= 'loaded';
  });
  // Exposed for the tests (test/presentation-map.e2e.test.ts, test/console-place.e2e.test.ts), which read what the map drew.
  Object.defineProperty(frame, 'maplibre', { value: map });
  return map;
}

/**
 * The lots' layers over the map's `lots` source (added by the caller): outlines filled in each lot's `colour` at
 * `fillOpacity` with a white edge, and a dot of `pointRadius` px for a unit placed by its lat/lon alone.
 */
export function addLotLayers(map: MapLibre, fillOpacity: number, pointRadius: number): void {
  const polygons = ['==', ['geometry-type'], 'Polygon'] as ['==', ['geometry-type'], string];
  map.addLayer({ id: 'lots-fill', type: 'fill', source: 'lots', filter: polygons, paint: { 'fill-color': ['get', 'colour'], 'fill-opacity': fillOpacity } });
  map.addLayer({ id: 'lots-line', type: 'line', source: 'lots', filter: polygons, paint: { 'line-color': '#ffffff', 'line-width': 1.5 } });
  map.addLayer({
    id: 'lots-point',
    type: 'circle',
    source: 'lots',
    filter: ['==', ['geometry-type'], 'Point'],
    paint: { 'circle-color': ['get', 'colour'], 'circle-radius': pointRadius, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 },
  });
}
