/**
 * The project's Map tab: where it is and what is drawn over its pictures, each drawn rather than typed. The marker
 * (`lat`, `lon`) placed, the `perimeter` and the units' lots drawn on a map and the map's settings (location.tsx), the
 * lots (units' `lotPath`) over the site plan (`layoutImageUrl`), the floors (`path`, `alternativePaths`) over the
 * building's picture (`projectImageUrl`). Every save is a PATCH with If-Match. docs/console.md.
 */
import { useState } from 'preact/hooks';
import { all, api, ApiError, etagOf } from '../api.ts';
import type { Floor, Project, Unit } from '../types.ts';
import { ErrorNotice, Loading, PageTitle, useLoad } from '../ui.tsx';
import { MediaField } from '../upload.tsx';
import { statusColour } from '../../status-colours.ts';
import { LocationEditor, patchProject, type SetProject } from './location.tsx';
import { PictureDrawing, type PictureItem } from './picture-draw.tsx';

export function Place({ project, onProject }: { project: Project; onProject: SetProject }) {
  return (
    <section class="place">
      <PageTitle>Map and pictures</PageTitle>
      <LocationEditor project={project} onProject={onProject} />
      <LotsEditor project={project} onProject={onProject} />
      <FloorsEditor project={project} />
    </section>
  );
}

/**
 * An item's shapes saved by `patch` (a PATCH with If-Match), its answer put in the list; a 412 reloads the list (the
 * drawing says so) and the error goes on to the drawing.
 */
function savesInto<R extends { _id: string }>(
  list: R[],
  loaded: { set: (l: R[]) => void; reload: () => Promise<void> },
  patch: (r: R, shapes: string[]) => Promise<R>,
) {
  return async (item: PictureItem, shapes: string[]) => {
    const record = list.find((r) => r._id === item.id);
    if (!record) return;
    try {
      const saved = await patch(record, shapes);
      loaded.set(list.map((r) => (r._id === saved._id ? saved : r)));
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) void loaded.reload();
      throw err;
    }
  };
}

const unitItems = (project: Project, units: Unit[]): PictureItem[] =>
  units.map((u) => ({ id: u._id, name: u.name, fill: statusColour(project, u.availability), shapes: u.lotPath ? [u.lotPath] : [] }));

function LotsEditor({ project, onProject }: { project: Project; onProject: SetProject }) {
  const units = useLoad(() => all('/units', { query: { project: project._id } }), [project._id]);
  const [error, setError] = useState<unknown>();
  const image = project.layoutImageUrl;
  const setImage = (url: string) => {
    setError(undefined);
    patchProject(project, onProject, { layoutImageUrl: url }).catch(setError);
  };
  const list = (units.data ?? []).slice().sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
  const save = savesInto(list, units, (unit, shapes) => api.patch(`/units/${unit._id}`, { body: { lotPath: shapes[0] ?? '' }, ifMatch: etagOf(unit) }));
  return (
    <fieldset class="group" id="place-lots">
      <legend>Site plan and lots</legend>
      <p class="muted">The site plan's picture, placed on the map at the location; each unit's lot is drawn over it.</p>
      <MediaField label="Site plan picture" kind="image" value={image} onValue={setImage} />
      <ErrorNotice error={error} />
      {units.error ? <ErrorNotice error={units.error} /> : null}
      {image && units.loading && !units.data ? <Loading what="Loading the units" /> : null}
      {image && units.data ? (
        list.length ? (
          <PictureDrawing image={image} label="Site plan" noun="lot" items={unitItems(project, list)} several={false} save={save} />
        ) : (
          <p class="muted">Add units to draw their lots.</p>
        )
      ) : null}
    </fieldset>
  );
}

function FloorsEditor({ project }: { project: Project }) {
  const floors = useLoad(() => all('/floors', { query: { project: project._id } }), [project._id, project.__v]);
  const image = project.projectImageUrl;
  const list: Floor[] = floors.data ?? [];
  const items: PictureItem[] = list.map((f) => ({
    id: f._id,
    name: f.name,
    fill: '#1a56db',
    shapes: [f.path ?? '', ...(f.alternativePaths ?? [])].filter((d) => d),
  }));
  const save = savesInto(list, floors, (floor, shapes) =>
    api.patch(`/floors/${floor._id}`, { body: { path: shapes[0] ?? '', alternativePaths: shapes.slice(1) }, ifMatch: etagOf(floor) }),
  );
  return (
    <fieldset class="group" id="place-floors">
      <legend>Floors on the building's picture</legend>
      <p class="muted">
        On the page's Building view a visitor picks a floor on the hero picture (Settings › Pictures): draw each floor's shape over it, one or several.
      </p>
      {floors.error ? <ErrorNotice error={floors.error} /> : null}
      {!image ? (
        <p class="muted">Add a hero picture in the settings first.</p>
      ) : floors.loading && !floors.data ? (
        <Loading what="Loading the floors" />
      ) : list.length ? (
        <PictureDrawing image={image} label="Building" noun="floor" items={items} several save={save} />
      ) : (
        <p class="muted">Add floors to draw them.</p>
      )}
    </fieldset>
  );
}
