/**
 * Where the homes are: the map section and the flat site plan the server wrote (src/presentation/map-section.ts) come
 * alive when they scroll into view, each from a chunk of its own (MapLibre is about 1 MB: never in the first load).
 * Lots are coloured here, as the floor plans colour units (web/status-colours.ts; one neutral colour without
 * `showAvailability`). docs/map.md.
 */
import { statusText } from '../format.ts';
import { allUnits, settings, showsStatus } from '../state.ts';
import { statusColour } from '../status-colours.ts';
import type { Lot, MapData, PlaceHandle, PlanData } from '../map/types.ts';

const handles: PlaceHandle[] = [];

/** A unit's own place (`lon`, `lat`): numbers on the globe, not both 0 (what a unit without one holds). */
function pointOf(u: { lat?: unknown; lon?: unknown }): [number, number] | undefined {
  const { lat, lon } = u;
  if (typeof lat !== 'number' || typeof lon !== 'number' || Math.abs(lat) > 90 || Math.abs(lon) > 180 || (lat === 0 && lon === 0)) return undefined;
  return [lon, lat];
}

/** The units that are lots (a `lotPath`, an `svgLotId`, a `perimeter` or a place of their own), with their colour and name. */
function lots(): Lot[] {
  const s = settings();
  const shows = showsStatus();
  const neutral = getComputedStyle(document.documentElement).getPropertyValue('--neutral').trim() || '#5f6368';
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  return allUnits().flatMap((u) => {
    if (u.stub) return [];
    const lotPath = str(u.lotPath);
    const svgLotId = str(u.svgLotId);
    const perimeter = str(u.perimeter);
    const point = pointOf(u);
    if (!lotPath && !svgLotId && !perimeter && !point) return [];
    return [
      {
        id: u._id,
        label: shows ? `${u.name}: ${statusText(u.availability)}` : u.name,
        colour: shows ? statusColour(s, u.availability) : neutral,
        ...(lotPath ? { lotPath } : {}),
        ...(svgLotId ? { svgLotId } : {}),
        ...(perimeter ? { perimeter } : {}),
        ...(point ? { point } : {}),
      },
    ];
  });
}

/**
 * Starts the map and the site plan (a page can have both: `lotsLayout` `plan`), each when its section first comes
 * into view; `open` opens a unit as the plans do.
 */
export function watchPlaces(open: (id: string) => void) {
  if (!('IntersectionObserver' in window)) return;
  for (const id of ['map-section', 'site-plan']) {
    const section = document.getElementById(id);
    if (!section) continue;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        observer.disconnect();
        void start(section, open);
      },
      { rootMargin: '200px' },
    );
    observer.observe(section);
  }
}

async function start(section: HTMLElement, open: (id: string) => void) {
  if (section.id === 'map-section') {
    const frame = document.getElementById('map');
    const data = JSON.parse(section.dataset.map ?? '{}') as MapData;
    if (!frame) return;
    const { showMap } = await import('../map/map-view.ts');
    handles.push(showMap(frame, data, lots(), open));
  } else {
    const frame = document.getElementById('site-plan-frame');
    const data = JSON.parse(section.dataset.plan ?? '{}') as PlanData;
    if (!frame) return;
    const { showSitePlan } = await import('../map/site-plan.ts');
    handles.push(showSitePlan(frame, data, lots(), open));
  }
}

/** The lots follow the bundle (a sale while the page is open). */
export function refreshPlaces() {
  for (const h of handles) h.update(lots());
}
