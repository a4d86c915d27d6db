import { useState } from 'preact/hooks';
import { all, api, ApiError, etagOf } from '../api.ts';
import type { Floor, Project, Unit } from '../types.ts';
import { availabilityLabel } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, useLoad } from '../ui.tsx';
import { sized } from '../media.ts';
import { statusColour } from '../../status-colours.ts';
import { DrawCanvas, DrawingCard, DrawnShape, parsePath, toPath, useOutline, type Outline } from '../drawing.tsx';
import { SuggestBar, SuggestedShapes, useSuggestions } from './plan-suggest.tsx';

const W = 600;
const H = 300;
/** The coordinate space unit shapes are drawn in (the plan editor's, the insights map's). */
export const PLAN_VIEWBOX = `0 0 ${W} ${H}`;

/** The page's colour for an availability: the project's own where it has one (one definition: web/status-colours.ts). */
export const colourFor = (project: Project, availability: string): string => statusColour(project, availability);

export function PlanEditor({ project, floorId }: { project: Project; floorId: string }) {
  const floor = useLoad(() => api.get(`/floors/${floorId}`), [floorId]);
  const units = useLoad(() => all('/units', { query: { project: project._id, floor: floorId } }), [floorId]);
  if ((floor.loading && !floor.data) || (units.loading && !units.data)) return <Loading what="Loading the plan" />;
  if (floor.error || units.error || !floor.data) return <ErrorNotice error={floor.error || units.error} />;
  const list = (units.data ?? []).slice().sort((a, b) => a.position - b.position || a.name.localeCompare(b.name));
  return <PlanWorkspace project={project} floor={floor.data} list={list} setUnits={units.set} reloadUnits={units.reload} />;
}

interface WorkspaceProps {
  project: Project;
  floor: Floor;
  /** The floor's units in plan order. */
  list: Unit[];
  setUnits: (units: Unit[]) => void;
  reloadUnits: () => void;
}

function PlanWorkspace({ project, floor: f, list, setUnits, reloadUnits }: WorkspaceProps) {
  const [selected, setSelected] = useState<string>();
  const [snap, setSnap] = useState(true);
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const outline = useOutline(selected !== undefined);
  const unit = list.find((u) => u._id === selected);
  const suggested = useSuggestions({ floor: f, list, setUnits, reloadUnits, setNews, setError });

  const choose = (u: Unit) => {
    const pts = parsePath(u.path);
    setSelected(u._id);
    outline.start(pts ?? []);
    setError(undefined);
    setNews(pts === undefined ? `${u.name}'s outline uses curves; drawing a new one replaces it.` : `Drawing ${u.name}: click on the plan to add corners.`);
  };
  const save = async () => {
    if (!unit) return;
    if (outline.points.length < 3) {
      setError(new Error('An outline needs at least three corners.'));
      return;
    }
    setError(undefined);
    try {
      const saved = await api.patch(`/units/${unit._id}`, { body: { path: toPath(outline.points) }, ifMatch: etagOf(unit) });
      setUnits(list.map((u) => (u._id === saved._id ? saved : u)));
      setNews(`${unit.name}'s outline saved.`);
      setSelected(undefined);
      outline.start([]);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error(`${unit.name} was changed by someone else meanwhile; reloaded — draw again.`) : err);
      if (err instanceof ApiError && err.status === 412) reloadUnits();
    }
  };
  const added = (u: Unit) => {
    setUnits([...list, u]);
    choose(u);
  };

  return (
    <section class="plan-editor">
      <p class="crumbs">
        <a href={`/admin/projects/${project._id}/floors`}>Floors</a> › {f.name}
      </p>
      <PageTitle>Plan of {f.name}</PageTitle>
      <div class="plan-layout">
        <div>
          <div class="plan-frame" data-drawing={unit ? 'true' : 'false'}>
            {f.floorplanUrl && <img {...sized(f.floorplanUrl, '(max-width: 720px) 100vw, 66vw')} src={f.floorplanUrl} alt="" />}
            <PlanCanvas project={project} floor={f} others={list.filter((u) => u._id !== selected)} unit={unit} outline={outline} snap={snap} choose={choose} />
            <SuggestedShapes viewBox={PLAN_VIEWBOX} suggested={suggested} picking={unit !== undefined} onPick={(d) => outline.change(parsePath(d) ?? [])} />
          </div>
          <Legend project={project} />
        </div>
        <div class="plan-side">
          <Notice kind="info">{news}</Notice>
          <ErrorNotice error={error} />
          {unit ? (
            <DrawingCard
              title={`Drawing ${unit.name}`}
              where="on the plan"
              outline={outline}
              snap={snap}
              setSnap={setSnap}
              save={save}
              cancel={() => {
                setSelected(undefined);
                setNews('');
              }}
            />
          ) : (
            <p class="muted">Choose a unit to draw its outline.</p>
          )}
          <SuggestBar floor={f} list={list} suggested={suggested} />
          <UnitPicks project={project} floor={f} list={list} selected={selected} choose={choose} added={added} failed={setError} />
        </div>
      </div>
    </section>
  );
}

/** The plan: the other units (a click chooses one while nothing is drawn) under the outline being drawn. */
function PlanCanvas({
  project,
  floor: f,
  others,
  unit,
  outline,
  snap,
  choose,
}: {
  project: Project;
  floor: Floor;
  others: Unit[];
  unit: Unit | undefined;
  outline: Outline;
  snap: boolean;
  choose: (u: Unit) => void;
}) {
  return (
    <DrawCanvas
      width={W}
      height={H}
      label={`Plan of ${f.name}`}
      drawing={unit ? `${unit.name}'s outline` : undefined}
      outline={outline}
      snap={snap}
      // Corners of neighbouring units attract first, so shared walls line up.
      snapTo={others.flatMap((u) => parsePath(u.path) ?? [])}
      fill={unit ? colourFor(project, unit.availability) : ''}
    >
      {others.map((u) =>
        u.path ? (
          <DrawnShape key={u._id} d={u.path} name={u.name} fill={colourFor(project, u.availability)} faint={unit !== undefined} onChoose={() => choose(u)} />
        ) : null,
      )}
    </DrawCanvas>
  );
}

function Legend({ project }: { project: Project }) {
  return (
    <ul class="legend" aria-label="Colours">
      {['available', 'reserved', 'sold', 'on_hold'].map((a) => (
        <li key={a}>
          <span class="swatch" style={{ background: colourFor(project, a) }} aria-hidden="true" />
          {availabilityLabel(a)}
        </li>
      ))}
    </ul>
  );
}

interface UnitPicksProps {
  project: Project;
  floor: Floor;
  list: Unit[];
  selected: string | undefined;
  choose: (u: Unit) => void;
  added: (u: Unit) => void;
  failed: (err: unknown) => void;
}

/** The floor's units to choose from, and a new one to add and draw. */
function UnitPicks({ project, floor: f, list, selected, choose, added, failed }: UnitPicksProps) {
  const [newName, setNewName] = useState('');
  const addUnit = async (e: Event) => {
    e.preventDefault();
    try {
      const u = await api.post('/units', { query: { project: project._id, floor: f._id, name: newName, position: list.length } });
      setNewName('');
      added(u);
    } catch (err) {
      failed(err);
    }
  };
  return (
    <>
      <ul class="unit-picks" aria-label={`Units on ${f.name}`}>
        {list.map((u) => (
          <li key={u._id}>
            <button type="button" class="secondary" aria-pressed={u._id === selected} onClick={() => choose(u)}>
              <span class="swatch" style={{ background: colourFor(project, u.availability) }} aria-hidden="true" />
              {u.name} <span class="muted small">{u.path ? 'drawn' : 'not drawn'}</span>
            </button>
          </li>
        ))}
      </ul>
      <form class="row wrap" onSubmit={addUnit} aria-label={`Add a unit to ${f.name}`}>
        <div class="grow">
          <Field label="New unit on this floor" required value={newName} onValue={setNewName} />
        </div>
        <button type="submit" class="secondary align-end">
          Add and draw
        </button>
      </form>
    </>
  );
}
