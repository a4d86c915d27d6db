import { useEffect, useRef, useState } from 'preact/hooks';
import { all, api, ApiError, query, etagOf } from '../api.ts';
import type { Floor, Project, Unit } from '../types.ts';
import { availabilityLabel } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Toggle, useLoad } from '../ui.tsx';
import { sized } from '../media.ts';

type Pt = [number, number];
const W = 600;
const H = 300;
/** The coordinate space unit shapes are drawn in (the plan editor's, the insights map's). */
export const PLAN_VIEWBOX = `0 0 ${W} ${H}`;
const GRID = 10;
const MAGNET = 8;

const DEFAULT_COLOURS: Record<string, string> = {
  available: '#2e7d32',
  on_hold: '#8a5a00',
  reserved: '#b45309',
  sold: '#b71c1c',
  leased: '#5b3f8c',
  unavailable: '#5f6368',
};
const COLOUR_KEY: Record<string, string> = { available: 'colorAvailable', reserved: 'colorReserved', sold: 'colorSold' };

/** The page's colour for an availability: the project's own where it has one. */
export function colourFor(project: Project, availability: string): string {
  const own = project[COLOUR_KEY[availability] ?? ''];
  return typeof own === 'string' && /^#[0-9a-f]{3,8}$/i.test(own) ? own : (DEFAULT_COLOURS[availability] ?? DEFAULT_COLOURS.unavailable);
}

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
  const floor = useLoad(() => api.get<Floor>(`/floors/${floorId}`), [floorId]);
  const units = useLoad(() => all<Unit>(`/units${query({ project: project._id, floor: floorId })}`), [floorId]);
  const [selected, setSelected] = useState<string>();
  const [points, setPoints] = useState<Pt[]>([]);
  const [history, setHistory] = useState<Pt[][]>([]);
  const [snap, setSnap] = useState(true);
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const [newName, setNewName] = useState('');
  const svgRef = useRef<SVGSVGElement>(null);
  const drag = useRef<number | null>(null);

  const list = (units.data ?? []).slice().sort((a, b) => a.position - b.position || a.name.localeCompare(b.name));
  const unit = list.find((u) => u._id === selected);

  useEffect(() => {
    // Ctrl/Cmd+Z undoes the last point change while drawing.
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 'z' && selected) {
        e.preventDefault();
        undo();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  if ((floor.loading && !floor.data) || (units.loading && !units.data)) return <Loading what="Loading the plan" />;
  if (floor.error || units.error) return <ErrorNotice error={floor.error || units.error} />;
  const f = floor.data!;

  const choose = (u: Unit) => {
    const pts = parsePath(u.path);
    setSelected(u._id);
    setHistory([]);
    setPoints(pts ?? []);
    setError(undefined);
    setNews(pts === undefined ? `${u.name}'s outline uses curves; drawing a new one replaces it.` : `Drawing ${u.name}: click on the plan to add corners.`);
  };
  const change = (next: Pt[]) => {
    setHistory((h) => [...h.slice(-99), points]);
    setPoints(next);
  };
  const undo = () => {
    if (!history.length) return;
    setPoints(history[history.length - 1]);
    setHistory((h) => h.slice(0, -1));
  };

  const others = list.filter((u) => u._id !== selected);
  const otherVertices = others.flatMap((u) => parsePath(u.path) ?? []);
  const snapPoint = ([x, y]: Pt, skip?: number): Pt => {
    if (!snap) return [Math.round(x), Math.round(y)];
    // Corners of neighbouring units (and this outline's own) attract first, so shared walls line up.
    const candidates = [...otherVertices, ...points.filter((_, i) => i !== skip)];
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
  };
  const toSvg = (e: PointerEvent | MouseEvent): Pt => {
    const svg = svgRef.current!;
    const pt = svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM()!.inverse());
    return [Math.max(0, Math.min(W, p.x)), Math.max(0, Math.min(H, p.y))];
  };
  const onCanvasClick = (e: MouseEvent) => {
    if (!unit || drag.current !== null) return;
    const p = snapPoint(toSvg(e));
    change([...points, p]);
  };
  const onHandleDown = (i: number) => (e: PointerEvent) => {
    e.stopPropagation();
    (e.target as Element).setPointerCapture(e.pointerId);
    drag.current = i;
    setHistory((h) => [...h.slice(-99), points]);
  };
  const onMove = (e: PointerEvent) => {
    if (drag.current === null) return;
    const i = drag.current;
    const p = snapPoint(toSvg(e), i);
    setPoints((pts) => pts.map((q, j) => (j === i ? p : q)));
  };
  const onUp = () => {
    // The click that ends a drag must not add a point.
    setTimeout(() => (drag.current = null), 0);
  };
  const onHandleKey = (i: number) => (e: KeyboardEvent) => {
    const step = e.shiftKey ? 10 : 1;
    const d: Record<string, Pt> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      change(points.filter((_, j) => j !== i));
      return;
    }
    const delta = d[e.key];
    if (!delta) return;
    e.preventDefault();
    change(points.map((q, j) => (j === i ? [Math.max(0, Math.min(W, q[0] + delta[0])), Math.max(0, Math.min(H, q[1] + delta[1]))] : q)));
  };

  const save = async () => {
    if (!unit) return;
    if (points.length < 3) {
      setError(new Error('An outline needs at least three corners.'));
      return;
    }
    setError(undefined);
    try {
      const saved = await api.patch<Unit>(`/units/${unit._id}`, { path: toPath(points) }, { ifMatch: etagOf(unit) });
      units.set(list.map((u) => (u._id === saved._id ? saved : u)));
      setNews(`${unit.name}'s outline saved.`);
      setSelected(undefined);
      setPoints([]);
      setHistory([]);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error(`${unit.name} was changed by someone else meanwhile; reloaded — draw again.`) : err);
      if (err instanceof ApiError && err.status === 412) units.reload();
    }
  };
  const addUnit = async (e: Event) => {
    e.preventDefault();
    try {
      const u = await api.post<Unit>(`/units${query({ project: project._id, floor: floorId, name: newName, position: list.length })}`);
      setNewName('');
      units.set([...list, u]);
      choose(u);
    } catch (err) {
      setError(err);
    }
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
              {others.map((u) => {
                const pts = parsePath(u.path);
                if (!u.path) return null;
                const c = pts?.length ? centre(pts) : undefined;
                return (
                  <g key={u._id} class="other" onClick={(e) => (!unit ? (e.stopPropagation(), choose(u)) : undefined)}>
                    <path d={u.path} fill={colourFor(project, u.availability)} fill-opacity={unit ? 0.45 : 0.75} stroke="#fff" stroke-width={2} />
                    {c && (
                      <text x={c[0]} y={c[1]} text-anchor="middle" dominant-baseline="middle" class="shape-label">
                        {u.name}
                      </text>
                    )}
                  </g>
                );
              })}
              {unit && points.length > 0 && (
                <g class="current">
                  <path
                    d={toPath(points)}
                    fill={colourFor(project, unit.availability)}
                    fill-opacity={0.55}
                    stroke="#1a56db"
                    stroke-width={2}
                    stroke-dasharray="6 3"
                  />
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
          </div>
          <ul class="legend" aria-label="Colours">
            {['available', 'reserved', 'sold', 'on_hold'].map((a) => (
              <li key={a}>
                <span class="swatch" style={{ background: colourFor(project, a) }} aria-hidden="true" />
                {availabilityLabel(a)}
              </li>
            ))}
          </ul>
        </div>
        <div class="plan-side">
          <Notice kind="info">{news}</Notice>
          <ErrorNotice error={error} />
          {unit ? (
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
                <button type="button" class="secondary" onClick={undo} disabled={!history.length}>
                  Undo
                </button>
                <button type="button" class="secondary" onClick={() => change([])} disabled={!points.length}>
                  Start again
                </button>
                <button
                  type="button"
                  class="secondary"
                  onClick={() => {
                    setSelected(undefined);
                    setNews('');
                  }}
                >
                  Cancel
                </button>
              </div>
            </div>
          ) : (
            <p class="muted">Choose a unit to draw its outline.</p>
          )}
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
        </div>
      </div>
    </section>
  );
}
