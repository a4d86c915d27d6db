/**
 * The map's settings on the Map tab (web/admin/screens/place.tsx): zoom, style, the marker (its shape, its picture,
 * its colour, which the outline takes too), Directions, and the site plan's width and turn on the map and what the
 * lots are drawn over. Each change shows on the tab's map at once, as the buyer's page will draw it; the changes are a
 * draft saved together by one PATCH with If-Match (a 412 reloads the project and keeps the draft). docs/map.md.
 */
import { MAP_STYLES, mapZoom, pointColor } from '../../../src/modules/shared/map-look.ts';
import type { Project } from '../types.ts';
import { ErrorNotice, Field, Notice, Select, Toggle, useId } from '../ui.tsx';
import { MediaField } from '../upload.tsx';

export const MAP_KEYS = [
  'zoomLevel',
  'mapStyle',
  'mapPointColor',
  'targetMarker',
  'markerImageUrl',
  'mapDirections',
  'mapLayoutWidth',
  'mapLayoutRotation',
  'lotsLayout',
] as const;
export type MapKey = (typeof MAP_KEYS)[number];
export type MapDraft = Partial<Pick<Project, MapKey>>;

interface Props {
  project: Project;
  draft: MapDraft;
  set: (key: MapKey, value: unknown) => void;
  /** The map's zoom now, to take as the page's. */
  mapZoomNow: number | undefined;
  busy: boolean;
  conflict: boolean;
  error: unknown;
  saved: string;
  save: () => void;
  discard: () => void;
}

const STYLE_WORDS: Record<(typeof MAP_STYLES)[number], string> = {
  Light: 'Light',
  Dark: 'Dark',
  Streets: 'Streets',
  Satellite: 'Satellite (aerial photographs)',
};

/** A number input: '' (cleared) is 0, which the page reads as its default. */
const numberOf = (v: string) => (v.trim() === '' ? 0 : Number(v));

export function MapSettings({ project, draft, set, mapZoomNow, busy, conflict, error, saved, save, discard }: Props) {
  const v = { ...project, ...draft };
  const id = useId();
  const address = typeof project.address === 'string' && project.address ? project.address : project.name;
  return (
    <div class="card map-settings" role="group" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>The map on the page</h2>
      <p class="muted small">Each change shows on the map above as the buyer's page will show it; save to put it on the page.</p>
      <LookFields v={v} set={set} mapZoomNow={mapZoomNow} />
      <MediaField label="Marker picture" kind="image" value={v.markerImageUrl} onValue={(url) => set('markerImageUrl', url)} />
      <Toggle label="Directions link" checked={v.mapDirections === true} onChange={(x) => set('mapDirections', x)} />
      <p class="muted small" aria-live="polite">
        Under the map's heading the page reads: {address} · View on map{v.mapDirections === true ? ' · Directions' : ''}
      </p>
      <SitePlanFields v={v} set={set} hasPlan={typeof project.layoutImageUrl === 'string' && project.layoutImageUrl !== ''} />
      {conflict && (
        <Notice kind="warn">Someone else changed this project meanwhile, so nothing was saved. It is reloaded and your changes are kept: save again.</Notice>
      )}
      <ErrorNotice error={error} />
      <Notice kind="ok">{saved}</Notice>
      <div class="row wrap">
        <span class="muted" aria-live="polite">
          {Object.keys(draft).length ? `${Object.keys(draft).length} unsaved change${Object.keys(draft).length === 1 ? '' : 's'}` : 'No unsaved changes'}
        </span>
        <button type="button" disabled={!Object.keys(draft).length || busy} onClick={save}>
          {busy ? 'Saving…' : 'Save map settings'}
        </button>
        <button type="button" class="secondary" disabled={!Object.keys(draft).length} onClick={discard}>
          Discard
        </button>
      </div>
    </div>
  );
}

type FieldsProps = { v: Project; set: (key: MapKey, value: unknown) => void };

/** Zoom, style, the marker's shape and its colour (the outline's too). */
function LookFields({ v, set, mapZoomNow }: FieldsProps & { mapZoomNow: number | undefined }) {
  const colourId = useId();
  const colour = typeof v.mapPointColor === 'string' ? v.mapPointColor : '';
  return (
    <div class="grid-fields">
      <div>
        <Field
          label="Zoom (1 to 22)"
          type="number"
          min={1}
          max={22}
          step={1}
          value={typeof v.zoomLevel === 'number' && v.zoomLevel > 0 ? v.zoomLevel : undefined}
          placeholder={`${mapZoom(undefined)} (the default)`}
          onValue={(x) => set('zoomLevel', numberOf(x))}
          hint="1 shows the world, 15 a neighbourhood, 18 a street."
        />
        <button type="button" class="secondary small" disabled={mapZoomNow === undefined} onClick={() => set('zoomLevel', Math.round(mapZoomNow ?? 0))}>
          Use the map's zoom now{mapZoomNow === undefined ? '' : ` (${Math.round(mapZoomNow)})`}
        </button>
      </div>
      <Select
        label="Map style"
        value={MAP_STYLES.find((s) => s === v.mapStyle) ?? 'Light'}
        options={MAP_STYLES.map((s) => [s, STYLE_WORDS[s]])}
        onValue={(x) => set('mapStyle', x)}
      />
      <Select
        label="Marker"
        value={v.targetMarker === 'dot' || v.targetMarker === 'none' ? v.targetMarker : 'pin'}
        options={[
          ['pin', 'A pin, its point on the place'],
          ['dot', 'A dot on the place'],
          ['none', 'No marker (the outline says where)'],
        ]}
        onValue={(x) => set('targetMarker', x)}
        hint={v.markerImageUrl ? 'The marker picture below is shown instead.' : undefined}
      />
      <div class="field colour">
        <label for={colourId}>Marker and outline colour</label>
        <div class="row">
          <input
            type="color"
            aria-label="Marker and outline colour picker"
            value={/^#[0-9a-f]{6}$/i.test(colour) ? colour : pointColor(undefined)}
            onInput={(e) => set('mapPointColor', (e.target as HTMLInputElement).value)}
          />
          <input
            id={colourId}
            value={colour}
            placeholder={`default ${pointColor(undefined)}`}
            pattern="#[0-9a-fA-F]{3,8}"
            onInput={(e) => set('mapPointColor', (e.target as HTMLInputElement).value)}
          />
        </div>
      </div>
    </div>
  );
}

/** The site plan's width and turn on the map, and what the lots are drawn over. */
function SitePlanFields({ v, set, hasPlan }: FieldsProps & { hasPlan: boolean }) {
  return (
    <>
      <h3>The site plan on the map</h3>
      {!hasPlan && <p class="muted small">Add the site plan's picture below to place it on the map.</p>}
      <div class="grid-fields">
        <Field
          label="Site plan width on the ground (metres)"
          type="number"
          min={1}
          step={1}
          value={typeof v.mapLayoutWidth === 'number' && v.mapLayoutWidth > 0 ? v.mapLayoutWidth : undefined}
          placeholder="200 (the default)"
          onValue={(x) => set('mapLayoutWidth', numberOf(x))}
          disabled={!hasPlan}
        />
        <Field
          label="Site plan turn (degrees clockwise)"
          type="number"
          step={1}
          value={typeof v.mapLayoutRotation === 'number' ? v.mapLayoutRotation : undefined}
          placeholder="0"
          onValue={(x) => set('mapLayoutRotation', numberOf(x))}
          disabled={!hasPlan}
        />
        <Select
          label="The lots are drawn over"
          value={v.lotsLayout === 'plan' ? 'plan' : 'map'}
          options={[
            ['map', 'The site plan placed on the map'],
            ['plan', 'The site plan, flat, in a section of its own'],
          ]}
          onValue={(x) => set('lotsLayout', x)}
          hint={v.lotsLayout === 'plan' ? 'The map keeps the marker, the outline and the lots drawn on it; the site plan is shown below it.' : undefined}
        />
      </div>
    </>
  );
}
