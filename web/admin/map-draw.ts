/**
 * The console's map to place a project's marker and draw its perimeter and its units' lots on
 * (web/admin/screens/place.tsx): MapLibre, in a chunk of its own imported only when the Map tab opens. The marker and
 * the corners are elements of the page and the outline, the lots and the site plan are layers added on every style
 * load, so they draw on the blank ground too when the style cannot load; a click anywhere on the map still says where
 * it was. The map shows the map settings as the buyer's page does: style, zoom, marker, colour, the site plan placed.
 * With the map focused by the keyboard a cross marks its centre: the arrow keys move the map under it, Enter (or
 * Space) is a click there.
 */
import { Marker, type GeoJSONSource, type ImageSource, type Map as MapLibre } from 'maplibre-gl';
import { addLotLayers, baseMap } from '../map/base-map.ts';
import { layoutFrame } from '../map/layout-frame.ts';
import { imageSize } from '../map/lots.ts';
import { drawMarker, markerAnchor, type MarkerLook } from '../map/marker.ts';

export type LonLat = [number, number];

export interface DrawMapOptions {
  style: string;
  worker: string;
  center: LonLat;
  zoom: number;
  label: string;
  color: string;
}

export interface DrawMapEvents {
  /** A click (or a tap) on the map, at this place. */
  click(at: LonLat): void;
  /** A corner dragged, or moved with the arrow keys. */
  moveCorner(index: number, at: LonLat): void;
  /** A corner's Delete key. */
  removeCorner(index: number): void;
  /** The map's zoom once it has moved. */
  zoomed?(zoom: number): void;
}

/** The site plan's picture as the page places it: centred on `at`, `width` metres wide, turned `rotation` degrees. */
export interface LayoutPlacement {
  image: string;
  at: LonLat;
  width: number;
  rotation: number;
}

/** A unit's lot shown under the drawing: its outline (a ring of [lon, lat]) or its point, in its status colour. */
export interface ShownLot {
  name: string;
  colour: string;
  ring?: LonLat[];
  point?: LonLat;
}

export interface DrawMap {
  map: MapLibre;
  setMarker(at: LonLat | undefined): void;
  setRing(points: LonLat[]): void;
  /** The marker's look (`markerImageUrl`, `targetMarker`, `mapPointColor`; the outline takes the colour too). */
  setLook(look: MarkerLook): void;
  setStyle(url: string): void;
  setZoom(zoom: number): void;
  zoom(): number;
  setLayout(layout: LayoutPlacement | undefined): void;
  setLots(lots: ShownLot[]): void;
  /** The map's centre: where the keyboard's "at the centre" buttons put things. */
  centre(): LonLat;
  flyTo(at: LonLat): void;
  remove(): void;
}

const ARROWS: Partial<Record<string, [number, number]>> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** The marker as the page draws it; with `targetMarker` `none` (the page shows none) a faint dot, so the location still shows here. */
function markerElement(el: HTMLElement, look: MarkerLook) {
  drawMarker(el, look);
  el.setAttribute('aria-hidden', 'true');
  el.classList.toggle('map-marker-ghost', !look.image && look.shape === 'none');
  el.dataset.look = look.image ? 'image' : look.shape;
}

type LotFeature = {
  type: 'Feature';
  properties: { name: string; colour: string };
  geometry: { type: 'Polygon'; coordinates: LonLat[][] } | { type: 'Point'; coordinates: LonLat };
};

const EMPTY = { type: 'FeatureCollection' as const, features: [] };

export function drawMap(frame: HTMLElement, opts: DrawMapOptions, events: DrawMapEvents): DrawMap {
  // The console is a tool: one finger or a plain wheel moves the map.
  const map = baseMap(frame, opts.worker, opts.style, opts.center, opts.zoom, opts.label, false);
  map.doubleClickZoom.disable();
  frame.dataset.styleUrl = opts.style;
  let look: MarkerLook = { color: opts.color, shape: 'pin' };
  let layout: LayoutPlacement | undefined;
  let layoutCorners: [LonLat, LonLat, LonLat, LonLat] | undefined;
  let lots: ShownLot[] = [];
  let marker: Marker | undefined;
  let ring: LonLat[] = [];
  let corners: Marker[] = [];
  const ringData = () => ({
    type: 'FeatureCollection' as const,
    features:
      ring.length >= 2
        ? [
            ring.length >= 3
              ? { type: 'Feature' as const, properties: {}, geometry: { type: 'Polygon' as const, coordinates: [[...ring, ring[0]]] } }
              : { type: 'Feature' as const, properties: {}, geometry: { type: 'LineString' as const, coordinates: ring } },
          ]
        : [],
  });
  const lotsData = () => ({
    type: 'FeatureCollection' as const,
    features: lots.flatMap((l): LotFeature[] => {
      const properties = { name: l.name, colour: l.colour };
      if (l.ring && l.ring.length >= 3)
        return [{ type: 'Feature' as const, properties, geometry: { type: 'Polygon' as const, coordinates: [[...l.ring, l.ring[0]]] } }];
      return l.point ? [{ type: 'Feature' as const, properties, geometry: { type: 'Point' as const, coordinates: l.point } }] : [];
    }),
  });
  /** The site plan's image layer, placed (or moved) where its settings say; under the lots and the outline. */
  const placeLayout = () => {
    const source = map.getSource<ImageSource>('layout');
    if (!layout || !layoutCorners) {
      if (map.getLayer('layout')) map.removeLayer('layout');
      if (source) map.removeSource('layout');
      delete frame.dataset.layout;
      return;
    }
    if (source && source.url === layout.image) source.setCoordinates(layoutCorners);
    else {
      if (map.getLayer('layout')) map.removeLayer('layout');
      if (source) map.removeSource('layout');
      map.addSource('layout', { type: 'image', url: layout.image, coordinates: layoutCorners });
      map.addLayer({ id: 'layout', type: 'raster', source: 'layout', paint: { 'raster-fade-duration': 0, 'raster-opacity': 0.9 } }, 'lots-fill');
    }
    frame.dataset.layout = `${layout.width} ${layout.rotation}`;
  };
  map.on('style.load', () => {
    if (map.getSource('ring')) return;
    map.addSource('lots', { type: 'geojson', data: lotsData() });
    // Lighter than on the buyer's page, so the outline being drawn stands out.
    addLotLayers(map, 0.45, 7);
    map.addSource('ring', { type: 'geojson', data: ringData() });
    map.addLayer({ id: 'ring-fill', type: 'fill', source: 'ring', paint: { 'fill-color': look.color, 'fill-opacity': 0.15 } });
    map.addLayer({ id: 'ring-line', type: 'line', source: 'ring', paint: { 'line-color': look.color, 'line-width': 3, 'line-dasharray': [2, 1] } });
    placeLayout();
  });
  map.on('click', (e) => events.click([e.lngLat.lng, e.lngLat.lat]));
  map.on('zoomend', () => events.zoomed?.(map.getZoom()));
  // The keyboard's cross: the map's centre, where Enter or Space clicks (the arrow keys, MapLibre's, move the map under it).
  const cross = document.createElement('div');
  cross.className = 'map-cross';
  cross.setAttribute('aria-hidden', 'true');
  frame.append(cross);
  map.getCanvas().addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    const c = map.getCenter();
    events.click([c.lng, c.lat]);
  });

  const cornerLabel = (i: number, at: LonLat, count: number) =>
    `Corner ${i + 1} of ${count} at ${at[1].toFixed(6)}, ${at[0].toFixed(6)}: arrow keys move it, Delete removes it`;
  const corner = (i: number, at: LonLat) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'map-corner';
    const m = new Marker({ element: b, draggable: true }).setLngLat(at).addTo(map);
    b.addEventListener('click', (e) => e.stopPropagation());
    b.addEventListener('keydown', (e) => {
      if (e.key === 'Delete' || e.key === 'Backspace') {
        e.preventDefault();
        events.removeCorner(i);
        return;
      }
      const arrow = ARROWS[e.key];
      if (!arrow) return;
      e.preventDefault();
      e.stopPropagation();
      // A few screen pixels a press (ten times more with Shift), whatever the zoom.
      const step = e.shiftKey ? 20 : 2;
      const p = map.project(m.getLngLat());
      const next = map.unproject([p.x + arrow[0] * step, p.y + arrow[1] * step]);
      events.moveCorner(i, [next.lng, next.lat]);
    });
    m.on('dragend', () => {
      const l = m.getLngLat();
      events.moveCorner(i, [l.lng, l.lat]);
    });
    return m;
  };

  return {
    map,
    setMarker(at) {
      if (!at) {
        marker?.remove();
        marker = undefined;
      } else if (marker) marker.setLngLat(at);
      else {
        const el = document.createElement('div');
        markerElement(el, look);
        marker = new Marker({ element: el, anchor: markerAnchor(look) }).setLngLat(at).addTo(map);
      }
      frame.dataset.marker = at ? `${at[1]},${at[0]}` : '';
    },
    setLook(next) {
      look = next;
      if (marker) {
        // A marker's anchor is fixed when it is made (a pin's point, a dot's middle): made again in the new look.
        const at = marker.getLngLat();
        marker.remove();
        const el = document.createElement('div');
        markerElement(el, look);
        marker = new Marker({ element: el, anchor: markerAnchor(look) }).setLngLat(at).addTo(map);
      }
      if (map.getLayer('ring-fill')) map.setPaintProperty('ring-fill', 'fill-color', look.color);
      if (map.getLayer('ring-line')) map.setPaintProperty('ring-line', 'line-color', look.color);
      frame.dataset.colour = look.color;
    },
    setStyle(url) {
      if (frame.dataset.styleUrl === url) return;
      frame.dataset.styleUrl = url;
      delete frame.dataset.style;
      map.setStyle(url, { diff: false });
    },
    setZoom(zoom) {
      map.easeTo({ zoom, duration: 0 });
    },
    zoom: () => map.getZoom(),
    setLayout(next) {
      layout = next;
      const placed = next;
      layoutCorners = undefined;
      if (!placed) {
        placeLayout();
        return;
      }
      void imageSize(placed.image).then((size) => {
        if (layout !== placed) return;
        layoutCorners = size ? layoutFrame(placed.at, placed.width, placed.rotation, size).corners : undefined;
        if (map.getSource('ring')) placeLayout();
      });
    },
    setLots(next) {
      lots = next;
      void map.getSource<GeoJSONSource>('lots')?.setData(lots.length ? lotsData() : EMPTY);
      frame.dataset.lots = String(lotsData().features.length);
    },
    setRing(points) {
      ring = points;
      void map.getSource<GeoJSONSource>('ring')?.setData(ringData());
      // Focus stays on the corner being moved: the corners are made again only when their number changes.
      if (corners.length === points.length) corners.forEach((m, i) => m.setLngLat(points[i]));
      else {
        const focused = corners.findIndex((m) => m.getElement() === document.activeElement);
        for (const m of corners) m.remove();
        corners = points.map((p, i) => corner(i, p));
        if (focused >= 0) corners[Math.min(focused, corners.length - 1)]?.getElement().focus();
      }
      corners.forEach((m, i) => m.getElement().setAttribute('aria-label', cornerLabel(i, points[i], points.length)));
      frame.dataset.corners = String(points.length);
    },
    centre() {
      const c = map.getCenter();
      return [c.lng, c.lat];
    },
    flyTo(at) {
      map.easeTo({ center: at, zoom: Math.max(map.getZoom(), 15) });
    },
    remove() {
      map.remove();
    },
  };
}
