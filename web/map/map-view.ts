/**
 * The map (MapLibre GL): a chunk of its own, imported only when the map section scrolls into view (web/views/places.ts)
 * or the group page's map does (web/group-map.ts). The marker is a DOM element and the perimeter, the site plan and the
 * lots are layers added on every style load, so they draw whatever the style does: a style that cannot load is replaced
 * by a blank one (a background layer), and they draw on that. docs/map.md.
 */
import { Marker, type GeoJSONSource, type Map as MapLibre } from 'maplibre-gl';
import { addLotLayers, baseMap } from './base-map.ts';
import { parsePerimeter, type Polygons } from '../../src/modules/shared/perimeter.ts';
import { imageSize, lotOutlines, pathPoints } from './lots.ts';
import { layoutFrame } from './layout-frame.ts';
import { drawMarker, markerAnchor, type MarkerLook } from './marker.ts';
import type { GroupMapData, GroupPoint, Lot, MapData, PlaceHandle } from './types.ts';

const EMPTY = { type: 'FeatureCollection', features: [] } as const;

const polygonFeature = <P extends Record<string, unknown>>(polygons: Polygons, properties: P) => ({
  type: 'Feature' as const,
  properties,
  geometry: { type: 'MultiPolygon' as const, coordinates: polygons },
});

/** The perimeter's layers (once per style), in `color`. */
function addPerimeter(map: MapLibre, frame: HTMLElement, perimeter: Polygons | string, color: string) {
  if (map.getSource('perimeter')) return;
  map.addSource('perimeter', { type: 'geojson', data: typeof perimeter === 'string' || !perimeter.length ? EMPTY : polygonFeature(perimeter, {}) });
  map.addLayer({ id: 'perimeter-fill', type: 'fill', source: 'perimeter', paint: { 'fill-color': color, 'fill-opacity': 0.12 } });
  map.addLayer({ id: 'perimeter-line', type: 'line', source: 'perimeter', paint: { 'line-color': color, 'line-width': 3 } });
  if (typeof perimeter !== 'string' && perimeter.length) frame.dataset.perimeter = 'drawn';
}

/** The marker's element: a button (Tab reaches it, its name is the place) holding the image, a pin or a dot. */
function markerButton(marker: MarkerLook, label: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  drawMarker(b, marker);
  b.setAttribute('aria-label', label);
  b.title = label;
  b.addEventListener('click', onClick);
  return b;
}

/** The project's map: marker, perimeter, site plan and lots. */
export function showMap(frame: HTMLElement, data: MapData, lots: Lot[], open: (id: string) => void): PlaceHandle {
  const center: [number, number] = [data.lon, data.lat];
  const map = baseMap(frame, data.worker, data.style, center, data.zoom, data.label);
  if (data.marker.shape !== 'none' || data.marker.image) {
    const el = markerButton(data.marker, data.label, () => map.easeTo({ center, zoom: Math.max(map.getZoom(), data.zoom) }));
    new Marker({ element: el, anchor: markerAnchor(data.marker) }).setLngLat(center).addTo(map);
  }
  const perimeter = data.perimeter ? parsePerimeter(data.perimeter) : [];
  let current = lots;
  let frameOf: ReturnType<typeof layoutFrame> | undefined;
  const size = data.layout ? imageSize(data.layout.image) : Promise.resolve(undefined);

  async function lotFeatures() {
    const outlines = frameOf ? await lotOutlines(current, data.svg) : new Map<string, string>();
    const features = [];
    for (const lot of current) {
      const props = { id: lot.id, colour: lot.colour, label: lot.label };
      const own = lot.perimeter ? parsePerimeter(lot.perimeter) : [];
      const d = outlines.get(lot.id);
      const at = frameOf?.at;
      const ring = d && at ? pathPoints(d).map(([x, y]) => at(x, y)) : [];
      const start = ring.at(0);
      if (typeof own !== 'string' && own.length) features.push(polygonFeature(own, props));
      else if (start && ring.length >= 3) features.push(polygonFeature([[[...ring, start]]], props));
      // A unit placed by its `lat`/`lon` alone is a point: a dot in its colour.
      else if (lot.point) features.push({ type: 'Feature' as const, properties: props, geometry: { type: 'Point' as const, coordinates: lot.point } });
    }
    return { type: 'FeatureCollection' as const, features };
  }

  // Each lot is also a button at its middle, named as the lot is (Tab reaches them after the marker; Enter opens the
  // unit): the lots' layer itself is pixels, which neither the keyboard nor a screen reader can reach.
  let lotButtons: Marker[] = [];
  function lotKeys(features: Awaited<ReturnType<typeof lotFeatures>>['features']) {
    for (const m of lotButtons) m.remove();
    lotButtons = features.map((f) => {
      const ring = f.geometry.type === 'Point' ? [f.geometry.coordinates] : (f.geometry.coordinates[0]?.[0] ?? []);
      const corners = ring.length > 1 ? ring.slice(0, -1) : ring;
      const middle: [number, number] = [
        corners.reduce((s, p) => s + p[0], 0) / Math.max(1, corners.length),
        corners.reduce((s, p) => s + p[1], 0) / Math.max(1, corners.length),
      ];
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'map-lot';
      b.setAttribute('aria-label', f.properties.label);
      b.dataset.unit = f.properties.id;
      b.addEventListener('click', () => open(f.properties.id));
      // A lot out of view comes into it when the keyboard reaches it.
      b.addEventListener('focus', () => {
        if (!map.getBounds().contains(middle)) map.easeTo({ center: middle });
      });
      return new Marker({ element: b }).setLngLat(middle).addTo(map);
    });
  }

  async function drawLots() {
    const source = map.getSource<GeoJSONSource>('lots');
    if (!source) return;
    const collection = await lotFeatures();
    void source.setData(collection);
    lotKeys(collection.features);
    frame.dataset.lots = String(collection.features.length);
  }

  // Added on every style load (a fallback style replaces the layers): what the project draws, whatever the tiles.
  map.on('style.load', () => {
    void size.then((s) => {
      if (data.layout && s && !map.getSource('layout')) {
        frameOf = layoutFrame(center, data.layout.width, data.layout.rotation, s);
        map.addSource('layout', { type: 'image', url: data.layout.image, coordinates: frameOf.corners });
        map.addLayer(
          { id: 'layout', type: 'raster', source: 'layout', paint: { 'raster-fade-duration': 0 } },
          map.getLayer('perimeter-fill') ? 'perimeter-fill' : undefined,
        );
        frame.dataset.layout = 'drawn';
      }
      addPerimeter(map, frame, perimeter, data.marker.color);
      if (!map.getSource('lots')) {
        map.addSource('lots', { type: 'geojson', data: EMPTY });
        addLotLayers(map, 0.75, 9);
      }
      void drawLots();
    });
  });
  for (const layer of ['lots-fill', 'lots-point']) {
    map.on('click', layer, (e) => {
      const id: unknown = e.features?.[0]?.properties.id;
      if (typeof id === 'string') open(id);
    });
    map.on('mouseenter', layer, () => (map.getCanvas().style.cursor = 'pointer'));
    map.on('mouseleave', layer, () => (map.getCanvas().style.cursor = ''));
  }
  frame.dataset.ready = 'true';
  return {
    update(next) {
      current = next;
      void drawLots();
    },
  };
}

/** A marker's name beside it, for the eyes (the button's name already says it). */
function nameTag(text: string) {
  const name = document.createElement('span');
  name.className = 'map-marker-name';
  name.setAttribute('aria-hidden', 'true');
  name.textContent = text;
  return name;
}

/**
 * The group page's map: a marker per project, each opening it as the group's `linkBehavior` says, and the group's
 * perimeter. Centred on the group's own location and zoom when it has one, else fitted to its projects.
 */
export function showGroupMap(frame: HTMLElement, data: GroupMapData, points: GroupPoint[]) {
  const first = points.at(0);
  if (!first) return;
  const map = baseMap(frame, data.worker, data.style, data.center ?? [first.lon, first.lat], data.zoom, data.label);
  const perimeter = data.perimeter ? parsePerimeter(data.perimeter) : [];
  map.on('style.load', () => addPerimeter(map, frame, perimeter, data.color));
  for (const p of points) {
    const look: MarkerLook = { color: data.color, shape: 'pin', ...(data.image ? { image: data.image } : {}) };
    const el = markerButton(look, p.name, () => {
      if (p.newTab) window.open(p.href, '_blank', 'noopener');
      else location.assign(p.href);
    });
    el.dataset.href = p.href;
    el.append(nameTag(p.name));
    new Marker({ element: el, anchor: markerAnchor(look) }).setLngLat([p.lon, p.lat]).addTo(map);
  }
  const { own, center } = data;
  if (own && center) {
    // The group's own place (its `targetMarker`), named by its address; a click brings it back into view.
    const look: MarkerLook = { color: data.color, shape: own.shape };
    const el = markerButton(look, own.name, () => map.easeTo({ center, zoom: Math.max(map.getZoom(), data.zoom) }));
    el.classList.add('map-marker-own');
    el.append(nameTag(own.name));
    new Marker({ element: el, anchor: markerAnchor(look) }).setLngLat(center).addTo(map);
  }
  if (points.length > 1 && !data.center) {
    const lons = points.map((p) => p.lon);
    const lats = points.map((p) => p.lat);
    map.fitBounds(
      [
        [Math.min(...lons), Math.min(...lats)],
        [Math.max(...lons), Math.max(...lats)],
      ],
      { padding: 60, maxZoom: 15, duration: 0 },
    );
  }
  frame.dataset.ready = 'true';
}
