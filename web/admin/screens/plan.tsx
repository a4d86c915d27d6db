import { useEffect, useRef, useState } from 'preact/hooks';
import { all, api, ApiError, etagOf } from '../api.ts';
import type { Floor, Project, Unit } from '../types.ts';
import { availabilityLabel } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Toggle, useLoad } from '../ui.tsx';
import { sized } from '../media.ts';
import { statusColour } from '../../status-colours.ts';
import { SuggestBar, SuggestedShapes, useSuggestions } from './plan-suggest.tsx';

type Pt = [number, number];
const W = 600;
const H = 300;
/** The coordinate space unit shapes are drawn in (the plan editor's, the insights map's). */
export const PLAN_VIEWBOX = `0 0 ${W} ${H}`;
const GRID = 10;
const MAGNET = 8;

/** The page's colour for an availability: the project's own where it has one (one definition: web/status-colours.ts). */
export const colourFor = (project: Project, availability: string): string => statusColour(project, availability);

/** `M x y L x y … Z` (absolute moves and lines only) → points; anything else cannot be edited point by point. */
export function parsePath(d: string | undefined): Pt[] | undefined {
  if (!d) return [];
  if (!/^\s*M[\d\s.,LZ-]*$/i.test(d) || /[a-y]/.test(d.replace(/[MLZ]/gi, ''))) return undefined;
  if (/[ml]/.test(d)) return undefined; // relative commands
  const nums = d.match(/-?\d+(\.\d+)?/g)?.map(Number) ?? [];
  if (nums.length % 2) return undefined;
  const pts: Pt[] = [];
  for (let i = 0; i < nums.length; i += 2) pts.push([nums[i], nums[i + 1]]);
  return pts;
}

export const toPath = (pts: Pt[]) => (pts.length ? `M${pts.map(([x, y]) => `${x} ${y}`).join(' L')} Z` : '');
export const centre = (pts: Pt[]): Pt => [pts.reduce((s, p) => s + p[0], 0) / pts.length, pts.reduce((s, p) => s + p[1], 0) / pts.length];

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

/** The outline being drawn: its corners, the undo history (100 steps), Ctrl/Cmd+Z. */
function useOutline(drawing: boolean) {
  const [points, setPoints] = useState<Pt[]>([]);
  const [history, setHistory] = useState<Pt[][]>([]);
  const change = (next: Pt[]) => {
    setHistory((h) => [...h.slice(-99), points]);
    setPoints(next);
  };
  const undo = () => {
    const last = history.at(-1);
    if (!last) return;
    setPoints(last);
    setHistory((h) => h.slice(0, -1));
  };
  const start = (pts: Pt[]) => {
    setHistory([]);
    setPoints(pts);
  };
  /** Before a drag: the corners as they were, to undo the whole drag at once. */
  const remember = () => setHistory((h) => [...h.slice(-99), points]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 'z' && drawing) {
        e.preventDefault();
        undo();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });
  return { points, setPoints, canUndo: history.length > 0, change, undo, start, remember };
}

type Outline = ReturnType<typeof useOutline>;

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
              unit={unit}
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

interface CanvasProps {
  project: Project;
  floor: Floor;
  /** The floor's units other than the one being drawn. */
  others: Unit[];
  unit: Unit | undefined;
  outline: Outline;
  snap: boolean;
  choose: (u: Unit) => void;
}

/** Where the corner at (x, y) lands: a neighbour's or this outline's own corner within reach, else the grid (or a whole point). */
function snapped([x, y]: Pt, snap: boolean, candidates: Pt[]): Pt {
  if (!snap) return [Math.round(x), Math.round(y)];
  let best: Pt | undefined;
  let dist = MAGNET;
  for (const c of candidates) {
    const d = Math.hypot(c[0] - x, c[1] - y);
    if (d <= dist) {
      dist = d;
      best = c;
    }
  }
  if (best) return [best[0], best[1]];
  return [Math.round(x / GRID) * GRID, Math.round(y / GRID) * GRID];
}

/** A pointer's place in the drawing's coordinates, kept inside the drawing. */
function toSvg(svg: SVGSVGElement | null, e: PointerEvent | MouseEvent): Pt | undefined {
  const matrix = svg?.getScreenCTM();
  if (!svg || !matrix) return undefined;
  const pt = svg.createSVGPoint();
  pt.x = e.clientX;
  pt.y = e.clientY;
  const p = pt.matrixTransform(matrix.inverse());
  return [Math.max(0, Math.min(W, p.x)), Math.max(0, Math.min(H, p.y))];
}

const ARROWS: Partial<Record<string, Pt>> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

function PlanCanvas({ project, floor: f, others, unit, outline, snap, choose }: CanvasProps) {
  const svgRef = useRef<SVGSVGElement>(null);
  const drag = useRef<number | null>(null);
  const { points } = outline;
  // Corners of neighbouring units (and this outline's own) attract first, so shared walls line up.
  const otherVertices = others.flatMap((u) => parsePath(u.path) ?? []);
  const snapPoint = (p: Pt, skip?: number) => snapped(p, snap, [...otherVertices, ...points.filter((_, i) => i !== skip)]);
  const onCanvasClick = (e: MouseEvent) => {
    const p = toSvg(svgRef.current, e);
    if (!unit || drag.current !== null || !p) return;
    outline.change([...points, snapPoint(p)]);
  };
  const onHandleDown = (i: number) => (e: PointerEvent) => {
    e.stopPropagation();
    if (e.target instanceof Element) e.target.setPointerCapture(e.pointerId);
    drag.current = i;
    outline.remember();
  };
  const onMove = (e: PointerEvent) => {
    const i = drag.current;
    const at = toSvg(svgRef.current, e);
    if (i === null || !at) return;
    const p = snapPoint(at, i);
    outline.setPoints((pts) => pts.map((q, j) => (j === i ? p : q)));
  };
  const onUp = () => {
    // The click that ends a drag must not add a point.
    setTimeout(() => (drag.current = null), 0);
  };
  const onHandleKey = (i: number) => (e: KeyboardEvent) => {
    if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      outline.change(points.filter((_, j) => j !== i));
      return;
    }
    const arrow = ARROWS[e.key];
    if (!arrow) return;
    e.preventDefault();
    const step = e.shiftKey ? 10 : 1;
    outline.change(points.map((q, j) => (j === i ? [Math.max(0, Math.min(W, q[0] + arrow[0] * step)), Math.max(0, Math.min(H, q[1] + arrow[1] * step))] : q)));
  };

  return (
    <svg
      ref={svgRef}
      viewBox={`0 0 ${W} ${H}`}
      role="application"
      aria-label={unit ? `Plan of ${f.name}: click to add a corner to ${unit.name}'s outline` : `Plan of ${f.name}`}
      onClick={onCanvasClick}
      onPointerMove={onMove}
      onPointerUp={onUp}
      class={unit ? 'drawing' : ''}
    >
      {others.map((u) => (
        <OtherShape key={u._id} project={project} unit={u} faint={unit !== undefined} choose={choose} />
      ))}
      {unit && points.length > 0 && (
        <g class="current">
          <path d={toPath(points)} fill={colourFor(project, unit.availability)} fill-opacity={0.55} stroke="#1a56db" stroke-width={2} stroke-dasharray="6 3" />
          {points.map(([x, y], i) => (
            <circle
              key={i}
              class="handle"
              cx={x}
              cy={y}
              r={7}
              tabindex={0}
              role="button"
              aria-label={`Corner ${i + 1} of ${points.length} at ${x}, ${y}: arrow keys move it, Delete removes it`}
              onPointerDown={onHandleDown(i)}
              onKeyDown={onHandleKey(i)}
              onClick={(e) => e.stopPropagation()}
            />
          ))}
        </g>
      )}
    </svg>
  );
}

/** A unit drawn already: chosen by a click while nothing is being drawn. */
function OtherShape({ project, unit: u, faint, choose }: { project: Project; unit: Unit; faint: boolean; choose: (u: Unit) => void }) {
  if (!u.path) return null;
  const pts = parsePath(u.path);
  const c = pts?.length ? centre(pts) : undefined;
  const onClick = (e: MouseEvent) => {
    if (faint) return;
    e.stopPropagation();
    choose(u);
  };
  return (
    <g class="other" onClick={onClick}>
      <path d={u.path} fill={colourFor(project, u.availability)} fill-opacity={faint ? 0.45 : 0.75} stroke="#fff" stroke-width={2} />
      {c && (
        <text x={c[0]} y={c[1]} text-anchor="middle" dominant-baseline="middle" class="shape-label">
          {u.name}
        </text>
      )}
    </g>
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

interface DrawingCardProps {
  unit: Unit;
  outline: Outline;
  snap: boolean;
  setSnap: (on: boolean) => void;
  save: () => Promise<void>;
  cancel: () => void;
}

function DrawingCard({ unit, outline, snap, setSnap, save, cancel }: DrawingCardProps) {
  const { points } = outline;
  return (
    <div class="card">
      <h2>Drawing {unit.name}</h2>
      <p class="muted small">
        Click on the plan to add corners; drag a corner (or focus it and use the arrow keys) to move it. {points.length} corner
        {points.length === 1 ? '' : 's'}.
      </p>
      <Toggle label="Snap to grid and to neighbours' corners" checked={snap} onChange={setSnap} />
      <div class="row wrap">
        <button type="button" onClick={save} disabled={points.length < 3}>
          Save outline
        </button>
        <button type="button" class="secondary" onClick={outline.undo} disabled={!outline.canUndo}>
          Undo
        </button>
        <button type="button" class="secondary" onClick={() => outline.change([])} disabled={!points.length}>
          Start again
        </button>
        <button type="button" class="secondary" onClick={cancel}>
          Cancel
        </button>
      </div>
    </div>
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
