/**
 * The Map tab's location (web/admin/screens/place.tsx): the marker (`lat`, `lon`) placed, the `perimeter` and each
 * unit's lot (its `perimeter`) drawn on a map (MapLibre, loaded with the tab: web/admin/map-draw.ts), and the map's
 * settings shown on it as the page will show them (web/admin/screens/map-settings.tsx). Every save is a PATCH with
 * If-Match. docs/console.md.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { all, api, ApiError, etagOf } from '../api.ts';
import { useOutline, type Outline, type Pt } from '../drawing.tsx';
import { MAP_SETTINGS } from '../features.ts';
import type { DrawMap, LonLat, ShownLot } from '../map-draw.ts';
import type { Project, Unit } from '../types.ts';
import { ErrorNotice, Loading, Notice, useLoad } from '../ui.tsx';
import { parsePerimeter } from '../../../src/modules/shared/perimeter.ts';
import { layoutRotation, layoutWidth, lotsOnFlatPlan, mapZoom, markerShape, pointColor } from '../../../src/modules/shared/map-look.ts';
import { statusColour } from '../../status-colours.ts';
import { MapSettings, type MapDraft, type MapKey } from './map-settings.tsx';

export type SetProject = (p: Project) => void;

/** PATCH /projects/<id> with If-Match; a 412 reloads the project and says so. */
export async function patchProject(project: Project, onProject: SetProject, body: Record<string, unknown>) {
  try {
    onProject(await api.patch(`/projects/${project._id}`, { body, ifMatch: etagOf(project) }));
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 412)) throw err;
    onProject(await api.get(`/projects/${project._id}`));
    throw new Error('Someone else changed this project meanwhile; it is reloaded — do it again.', { cause: err });
  }
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
const located = (p: Project): LonLat | undefined =>
  typeof p.lat === 'number' && typeof p.lon === 'number' && (p.lat !== 0 || p.lon !== 0) ? [p.lon, p.lat] : undefined;

/** The saved perimeter's first outline as corners ([lon, lat]); a GeoJSON or `lat,lon` text alike. */
function ringOf(perimeter: string | undefined): LonLat[] {
  if (!perimeter?.trim()) return [];
  const parsed = parsePerimeter(perimeter);
  const ring = typeof parsed === 'string' ? [] : (parsed[0]?.[0] ?? []);
  const open = ring.length > 1 && ring[0]?.[0] === ring.at(-1)?.[0] && ring[0]?.[1] === ring.at(-1)?.[1] ? ring.slice(0, -1) : ring;
  return open.map(([lon, lat]) => [lon, lat]);
}

/** Corners as the `perimeter` text: `lat,lon` pairs, six decimals (about 10 cm). */
const perimeterText = (ring: LonLat[]) => ring.map(([lon, lat]) => `${round6(lat)},${round6(lon)}`).join(' ');

type Mode = 'marker' | 'perimeter' | 'lot';

/** What a click on the map does now (read by the map's handlers, made once). */
interface MapState {
  mode: Mode;
  /** Whose outline is being drawn: 'project', a unit's id, or '' (no unit chosen yet). */
  drawing: string;
  points: Pt[];
  change: (pts: Pt[]) => void;
  setMarker: (at: LonLat) => void;
}

/** The map in `frameRef`, made once the map's chunk has loaded; `ready` once it is there. */
function useDrawMap(project: Project, frameRef: { current: HTMLDivElement | null }, latest: { current: MapState }) {
  const handle = useRef<DrawMap>();
  const [ready, setReady] = useState(false);
  const [zoom, setZoom] = useState<number>();
  useEffect(() => {
    const frame = frameRef.current;
    const settings = MAP_SETTINGS;
    if (!frame || !settings) return;
    let gone = false;
    const at = located(project);
    const round = (p: LonLat): LonLat => [round6(p[0]), round6(p[1])];
    void import('../map-draw.ts').then(({ drawMap }) => {
      if (gone) return;
      const options = {
        style: settings.styles[String(project.mapStyle)] ?? settings.styles.Light ?? '',
        worker: settings.worker,
        center: at ?? ringOf(project.perimeter).at(0) ?? ([0, 20] as LonLat),
        zoom: at ? mapZoom(project.zoomLevel) : 1.5,
        label: `Map of ${project.name}`,
        color: pointColor(project.mapPointColor),
      };
      handle.current = drawMap(frame, options, {
        click(p) {
          const now = latest.current;
          if (now.mode === 'marker') now.setMarker(round(p));
          else if (now.drawing) now.change([...now.points, round(p)]);
        },
        moveCorner: (i, p) => latest.current.change(latest.current.points.map((q, j) => (j === i ? round(p) : q))),
        removeCorner: (i) => latest.current.change(latest.current.points.filter((_, j) => j !== i)),
        zoomed: setZoom,
      });
      setZoom(options.zoom);
      setReady(true);
    });
    return () => {
      gone = true;
      handle.current?.remove();
      handle.current = undefined;
    };
  }, [project._id]);
  /** The map's centre, rounded as saved. */
  const atCentre = (): LonLat | undefined => {
    const c = handle.current?.centre();
    return c ? [round6(c[0]), round6(c[1])] : undefined;
  };
  return { handle, ready, atCentre, zoom };
}

/** A unit's own place (`lon`, `lat`), when it has one (not 0, 0). */
const unitPoint = (u: Unit): LonLat | undefined =>
  typeof u.lat === 'number' && typeof u.lon === 'number' && (u.lat !== 0 || u.lon !== 0) ? [u.lon, u.lat] : undefined;

/** The map settings' draft, its preview on the map, and its save (one PATCH with If-Match; a 412 keeps the draft). */
function useMapDraft(project: Project, onProject: SetProject) {
  const [draft, setDraft] = useState<MapDraft>({});
  const [busy, setBusy] = useState(false);
  const [conflict, setConflict] = useState(false);
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState('');
  const set = (key: MapKey, value: unknown) => {
    setSaved('');
    setDraft((d) => {
      const next: Record<string, unknown> = { ...d };
      const was: unknown = project[key];
      if (value === was || (value === '' && was === undefined) || (value === 0 && was === undefined)) delete next[key];
      else next[key] = value;
      return next;
    });
  };
  const save = async () => {
    const n = Object.keys(draft).length;
    setBusy(true);
    setError(undefined);
    setConflict(false);
    try {
      await patchProject(project, onProject, draft);
      setDraft({});
      setSaved(`Saved ${n} map setting${n === 1 ? '' : 's'}.`);
    } catch (err) {
      if (err instanceof Error && err.cause instanceof ApiError && err.cause.status === 412) setConflict(true);
      else setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { draft, set, busy, conflict, error, saved, save, discard: () => setDraft({}) };
}

type Handle = { current: DrawMap | undefined };

/** The map settings' draft on the map, as the page will draw it: style, zoom, the marker's look, the site plan placed. */
function useMapPreview(handle: Handle, ready: boolean, project: Project, draft: MapDraft, placeAt: LonLat | undefined) {
  const shown: Project = { ...project, ...draft };
  const style = MAP_SETTINGS?.styles[String(shown.mapStyle)] ?? MAP_SETTINGS?.styles.Light;
  useEffect(() => {
    if (style) handle.current?.setStyle(style);
  }, [style, ready]);
  useEffect(() => {
    if (draft.zoomLevel) handle.current?.setZoom(mapZoom(draft.zoomLevel));
  }, [draft.zoomLevel, ready]);
  const image = typeof shown.markerImageUrl === 'string' && shown.markerImageUrl ? shown.markerImageUrl : undefined;
  const look = { color: pointColor(shown.mapPointColor), shape: markerShape(shown.targetMarker), ...(image ? { image } : {}) };
  useEffect(() => handle.current?.setLook(look), [look.color, look.shape, look.image, ready]);
  const plan = project.layoutImageUrl;
  const onMap = plan && placeAt && !lotsOnFlatPlan(shown.lotsLayout, true);
  const width = layoutWidth(shown.mapLayoutWidth);
  const rotation = layoutRotation(shown.mapLayoutRotation);
  useEffect(
    () => handle.current?.setLayout(onMap ? { image: plan, at: placeAt, width, rotation } : undefined),
    [onMap, plan, placeAt?.[0], placeAt?.[1], width, rotation, ready],
  );
}

/** The units' lots on the map under the drawing, in their status colours; `hidden` (the one being drawn) left out. */
function useShownLots(handle: Handle, ready: boolean, project: Project, list: Unit[], hidden: string | undefined) {
  const lots = list.flatMap((u): ShownLot[] => {
    if (u._id === hidden) return [];
    const ring = ringOf(u.perimeter);
    const point = unitPoint(u);
    const colour = statusColour(project, u.availability);
    return ring.length >= 3 ? [{ name: u.name, colour, ring }] : point ? [{ name: u.name, colour, point }] : [];
  });
  useEffect(() => handle.current?.setLots(lots), [list.map((u) => `${u._id}.${u.__v}`).join(), hidden, ready]);
}

type Say = { news: (s: string) => void; error: (e: unknown) => void };

/** Saves a unit's lot (its `perimeter`) with If-Match; a 412 reloads the units, says so and keeps the corners. */
function lotSaver(unit: Unit | undefined, units: { data?: Unit[] | undefined; set: (l: Unit[]) => void; reload: () => Promise<void> }, say: Say) {
  return async (text: string, done: string) => {
    if (!unit) return false;
    say.error(undefined);
    try {
      const saved = await api.patch(`/units/${unit._id}`, { body: { perimeter: text }, ifMatch: etagOf(unit) });
      units.set((units.data ?? []).map((u) => (u._id === saved._id ? saved : u)));
      say.news(`${unit.name}: ${done.toLowerCase()}`);
      return true;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 412)) throw err;
      await units.reload();
      say.error(new Error(`${unit.name} was changed by someone else meanwhile; it is reloaded and your corners are kept: save again.`, { cause: err }));
      return false;
    }
  };
}

const MODES: [Mode, string][] = [
  ['marker', 'Marker'],
  ['perimeter', 'Outline (perimeter)'],
  ['lot', "A unit's lot"],
];

function ModeChoice({ mode, choose }: { mode: Mode; choose: (m: Mode) => void }) {
  return (
    <div class="row wrap" role="radiogroup" aria-label="What a click on the map does">
      {MODES.map(([m, words]) => (
        <button key={m} type="button" role="radio" aria-checked={mode === m} class={mode === m ? '' : 'secondary'} onClick={() => choose(m)}>
          {words}
        </button>
      ))}
    </div>
  );
}

/**
 * What a click on the map does (`mode`) and whose outline is drawn (`drawing`: 'project', a unit's id, '' before a unit
 * is chosen), with the outline's corners; choosing starts the outline from what is saved.
 */
function useDrawingTarget(project: Project, say: Say) {
  const [mode, setMode] = useState<Mode>('marker');
  const [drawing, setDrawing] = useState('project');
  const outline = useOutline(mode !== 'marker');
  const chooseMode = (m: Mode) => {
    setMode(m);
    say.news('');
    if (m === 'perimeter' && drawing !== 'project') {
      outline.start(ringOf(project.perimeter));
      setDrawing('project');
    } else if (m === 'lot' && drawing === 'project') {
      outline.start([]);
      setDrawing('');
    }
  };
  const chooseUnit = (u: Unit) => {
    outline.start(ringOf(u.perimeter));
    setDrawing(u._id);
    say.error(undefined);
    say.news(`Drawing ${u.name}'s lot: click its corners on the map.`);
  };
  return { mode, drawing, outline, chooseMode, chooseUnit };
}

export function LocationEditor({ project, onProject }: { project: Project; onProject: SetProject }) {
  const frameRef = useRef<HTMLDivElement>(null);
  const [marker, setMarker] = useState<LonLat | undefined>(located(project));
  const [news, setNews] = useState('');
  const [error, setError] = useState<unknown>();
  const say: Say = { news: setNews, error: setError };
  const { mode, drawing, outline, chooseMode, chooseUnit } = useDrawingTarget(project, say);
  const units = useLoad(() => all('/units', { query: { project: project._id } }), [project._id]);
  const settings = useMapDraft(project, onProject);
  // The map's clicks read what the screen holds now, not what it held when the map was made.
  const latest = useRef<MapState>({ mode, drawing, points: outline.points, change: outline.change, setMarker });
  latest.current = { mode, drawing, points: outline.points, change: outline.change, setMarker };
  const { handle, ready, atCentre, zoom } = useDrawMap(project, frameRef, latest);
  useEffect(() => outline.start(ringOf(project.perimeter)), [project._id]);
  useEffect(() => handle.current?.setMarker(marker), [marker, ready]);
  useEffect(
    () => handle.current?.setRing(mode === 'marker' && drawing !== 'project' ? ringOf(project.perimeter) : outline.points),
    [outline.points, ready, mode],
  );
  useMapPreview(handle, ready, project, settings.draft, marker ?? located(project));
  const list = (units.data ?? []).slice().sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
  useShownLots(handle, ready, project, list, mode === 'marker' ? undefined : drawing);

  const run = async (body: Record<string, unknown>, done: string) => {
    setError(undefined);
    try {
      await patchProject(project, onProject, body);
      setNews(done);
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  };
  const unit = list.find((u) => u._id === drawing);
  const hint: Record<Mode, string> = {
    marker: 'a click places the marker',
    perimeter: 'a click adds a corner to the outline',
    lot: unit ? `a click adds a corner to ${unit.name}'s lot` : 'choose a unit to draw its lot',
  };
  const card = { outline, ready, atCentre };

  return (
    <fieldset class="group" id="place-location">
      <legend>Location</legend>
      <p class="muted">
        The page shows the project on a map with its marker and outline, and each unit's lot. Click the map to place the marker, or choose “Outline” or “A
        unit's lot” and click its corners. With the map focused, the arrow keys move the map under the cross at its middle and Enter adds a corner there.
      </p>
      {!MAP_SETTINGS && <Notice kind="warn">This server names no map style, so the map cannot be shown.</Notice>}
      <ModeChoice mode={mode} choose={chooseMode} />
      <div class="map-draw" ref={frameRef} data-mode={mode} role="region" aria-label={`Map of ${project.name}: ${hint[mode]}`} />
      <Notice kind="info">{news}</Notice>
      <ErrorNotice error={error} />
      {mode === 'marker' ? (
        <MarkerCard marker={marker} savedAt={located(project)} ready={ready} setMarker={setMarker} atCentre={atCentre} run={run} />
      ) : mode === 'perimeter' ? (
        <OutlineCard {...card} saved={project.perimeter} save={(text, done) => run({ perimeter: text }, done)} noun="outline" />
      ) : (
        <div class="plan-layout">
          {unit ? (
            <OutlineCard {...card} saved={unit.perimeter} save={lotSaver(unit, units, say)} noun="lot" title={`Drawing ${unit.name}'s lot`} />
          ) : (
            <p class="muted">Choose a unit to draw its lot on the map.</p>
          )}
          <UnitPicks units={list} drawing={drawing} choose={chooseUnit} loading={units.loading && !units.data} />
        </div>
      )}
      <MapSettings {...settings} project={project} mapZoomNow={zoom} save={() => void settings.save()} />
    </fieldset>
  );
}

/** The units to draw a lot for, each saying whether its lot is on the map. */
function UnitPicks({ units, drawing, choose, loading }: { units: Unit[]; drawing: string; choose: (u: Unit) => void; loading: boolean }) {
  if (loading) return <Loading what="Loading the units" />;
  if (!units.length) return <p class="muted">Add units to draw their lots.</p>;
  return (
    <ul class="unit-picks" aria-label="Units: lots on the map">
      {units.map((u) => (
        <li key={u._id}>
          <button type="button" class="secondary" aria-pressed={u._id === drawing} onClick={() => choose(u)}>
            {u.name} <span class="muted small">{ringOf(u.perimeter).length >= 3 ? 'drawn' : unitPoint(u) ? 'a point' : 'not drawn'}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

type Run = (body: Record<string, unknown>, done: string) => Promise<boolean>;

interface MarkerCardProps {
  marker: LonLat | undefined;
  savedAt: LonLat | undefined;
  ready: boolean;
  setMarker: (at: LonLat | undefined) => void;
  atCentre: () => LonLat | undefined;
  run: Run;
}

function MarkerCard({ marker, savedAt, ready, setMarker, atCentre, run }: MarkerCardProps) {
  const changed = (marker?.[0] ?? 0) !== (savedAt?.[0] ?? 0) || (marker?.[1] ?? 0) !== (savedAt?.[1] ?? 0);
  return (
    <div class="card">
      <p aria-live="polite">{marker ? `Marker at ${marker[1]}, ${marker[0]}${changed ? ' (not saved)' : ''}.` : 'No location yet.'}</p>
      <div class="row wrap">
        <button type="button" class="secondary" disabled={!ready} onClick={() => setMarker(atCentre())}>
          Put the marker at the map's centre
        </button>
        <button type="button" disabled={!marker || !changed} onClick={() => marker && void run({ lat: marker[1], lon: marker[0] }, 'Location saved.')}>
          Save location
        </button>
        <button type="button" class="secondary" disabled={!changed} onClick={() => setMarker(savedAt)}>
          Undo
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!savedAt}
          onClick={() => void run({ lat: 0, lon: 0 }, 'Location removed: the page shows no map.').then((ok) => ok && setMarker(undefined))}
        >
          Remove the location
        </button>
      </div>
    </div>
  );
}

interface OutlineCardProps {
  outline: Outline;
  saved: string | undefined;
  ready: boolean;
  atCentre: () => LonLat | undefined;
  /** Saves the corners' `perimeter` text ('' clears it); `done` says what was done. */
  save: (text: string, done: string) => Promise<boolean>;
  /** "outline", "lot". */
  noun: string;
  title?: string;
}

function OutlineCard({ outline, saved, ready, atCentre, save, noun, title }: OutlineCardProps) {
  const { points } = outline;
  const changed = perimeterText(points) !== perimeterText(ringOf(saved));
  const Noun = noun[0].toUpperCase() + noun.slice(1);
  return (
    <div class="card">
      {title && <h2>{title}</h2>}
      <p aria-live="polite">
        {points.length} corner{points.length === 1 ? '' : 's'}
        {changed ? ' (not saved)' : ''}. Drag a corner, or focus it and use the arrow keys; Delete removes it.
      </p>
      <div class="row wrap">
        <button
          type="button"
          class="secondary"
          disabled={!ready}
          onClick={() => {
            const c = atCentre();
            if (c) outline.change([...points, c]);
          }}
        >
          Add a corner at the map's centre
        </button>
        <button
          type="button"
          disabled={!changed || (points.length > 0 && points.length < 3)}
          onClick={() => void save(perimeterText(points), points.length ? `${Noun} saved.` : `${Noun} removed.`)}
        >
          {points.length ? `Save ${noun}` : `Save without ${noun === 'outline' ? 'an' : 'a'} ${noun}`}
        </button>
        <button type="button" class="secondary" onClick={outline.undo} disabled={!outline.canUndo}>
          Undo
        </button>
        <button type="button" class="secondary" onClick={() => outline.change([])} disabled={!points.length}>
          Clear
        </button>
      </div>
    </div>
  );
}
