/**
 * The console's one outline-drawing tool, over any picture: a unit on its floor plan (web/admin/screens/plan.tsx), a lot
 * on the site plan and a floor on the building's picture (web/admin/screens/place.tsx). Click to add a corner, drag a
 * corner (or focus it and use the arrow keys) to move it, Delete removes it, Undo (Ctrl/Cmd+Z) steps back. With the
 * drawing focused, the arrow keys move a cross and Enter adds a corner there, so an outline can be drawn without a
 * mouse. Corners snap to a grid and to the other shapes' corners.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Toggle } from './ui.tsx';

export type Pt = [number, number];

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

/** The outline being drawn: its corners, the undo history (100 steps), Ctrl/Cmd+Z while `drawing`. */
export function useOutline(drawing: boolean) {
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

export type Outline = ReturnType<typeof useOutline>;

const ROUND_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500];
/** The grid a drawing `width` wide snaps to: 10 on the 600-wide plan, a round step near the same share of any picture. */
export const gridOf = (width: number) =>
  ROUND_STEPS.reduce((best, g) => (Math.abs(Math.log(g / (width / 60))) < Math.abs(Math.log(best / (width / 60))) ? g : best), 10);

/** Where the corner at (x, y) lands: a neighbour's or this outline's own corner within reach, else the grid (or a whole point). */
function snapped([x, y]: Pt, snap: boolean, grid: number, candidates: Pt[]): Pt {
  if (!snap) return [Math.round(x), Math.round(y)];
  let best: Pt | undefined;
  let dist = grid * 0.8;
  for (const c of candidates) {
    const d = Math.hypot(c[0] - x, c[1] - y);
    if (d <= dist) {
      dist = d;
      best = c;
    }
  }
  if (best) return [best[0], best[1]];
  return [Math.round(x / grid) * grid, Math.round(y / grid) * grid];
}

const ARROWS: Partial<Record<string, Pt>> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

export interface DrawCanvasProps {
  /** The drawing's space: `0 0 width height` (the plan's 600 × 300, a picture's own pixels). */
  width: number;
  height: number;
  /** What the drawing is, for screen readers ("Plan of Level 1"). */
  label: string;
  /** What is being drawn ("A1's outline"), or undefined while nothing is. */
  drawing: string | undefined;
  outline: Outline;
  snap: boolean;
  /** The other shapes' corners, which a corner snaps to. */
  snapTo: Pt[];
  /** The fill of the shape being drawn. */
  fill: string;
  /** The other shapes, drawn under the one being drawn. */
  children?: ComponentChildren;
}

/** The keyboard's way to add corners: the arrows move a cross over the drawing (Shift: ten grid steps), Enter or Space adds a corner there. */
function useCross(W: number, H: number, grid: number, inside: (p: Pt) => Pt, add: (p: Pt) => void) {
  const [cross, setCross] = useState<Pt | undefined>();
  const middle: Pt = [Math.round(W / 2 / grid) * grid, Math.round(H / 2 / grid) * grid];
  const onKey = (e: KeyboardEvent) => {
    const arrow = ARROWS[e.key];
    const at = cross ?? middle;
    if (arrow) {
      e.preventDefault();
      const s = e.shiftKey ? grid * 10 : grid;
      setCross(inside([at[0] + arrow[0] * s, at[1] + arrow[1] * s]));
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      setCross(at);
      add(at);
    }
  };
  // The cross shows for the keyboard only: a click that focuses the drawing adds its corner where it was.
  const onFocus = (e: FocusEvent) => (e.currentTarget as Element).matches(':focus-visible') && setCross((c) => c ?? middle);
  return { cross, onKey, onFocus, onBlur: () => setCross(undefined) };
}

/** The SVG to draw on, over a picture of the same frame. */
export function DrawCanvas({ width: W, height: H, label, drawing, outline, snap, snapTo, fill, children }: DrawCanvasProps) {
  const svgRef = useRef<SVGSVGElement>(null);
  const drag = useRef<number | null>(null);
  const grid = gridOf(W);
  const { points } = outline;
  const snapPoint = (p: Pt, skip?: number) => snapped(p, snap, grid, [...snapTo, ...points.filter((_, i) => i !== skip)]);
  const inside = ([x, y]: Pt): Pt => [Math.max(0, Math.min(W, x)), Math.max(0, Math.min(H, y))];
  const keys = useCross(W, H, grid, inside, (at) => outline.change([...points, snapPoint(at)]));
  /** A pointer's place in the drawing's coordinates, kept inside the drawing. */
  const toSvg = (e: PointerEvent | MouseEvent): Pt | undefined => {
    const svg = svgRef.current;
    const matrix = svg?.getScreenCTM();
    if (!svg || !matrix) return undefined;
    const pt = svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const p = pt.matrixTransform(matrix.inverse());
    return inside([p.x, p.y]);
  };
  const onCanvasClick = (e: MouseEvent) => {
    const p = toSvg(e);
    if (!drawing || drag.current !== null || !p) return;
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
    const at = toSvg(e);
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
    e.stopPropagation();
    const s = (e.shiftKey ? 10 : 1) * (W > 600 ? grid : 1);
    outline.change(points.map((q, j) => (j === i ? inside([q[0] + arrow[0] * s, q[1] + arrow[1] * s]) : q)));
  };

  return (
    <svg
      ref={svgRef}
      viewBox={`0 0 ${W} ${H}`}
      role="application"
      tabindex={drawing ? 0 : undefined}
      aria-label={drawing ? `${label}: click to add a corner to ${drawing}; or use the arrow keys to move the cross and Enter to add a corner there` : label}
      onClick={onCanvasClick}
      onKeyDown={(e) => drawing && e.target === svgRef.current && keys.onKey(e)}
      onFocus={(e) => drawing && keys.onFocus(e)}
      onBlur={keys.onBlur}
      onPointerMove={onMove}
      onPointerUp={onUp}
      class={drawing ? 'drawing' : ''}
    >
      {children}
      {drawing && <CurrentShape points={points} fill={fill} scale={W / 600} onHandleDown={onHandleDown} onHandleKey={onHandleKey} />}
      {drawing && keys.cross && <Cross at={keys.cross} size={12 * (W / 600)} />}
    </svg>
  );
}

interface CurrentShapeProps {
  points: Pt[];
  fill: string;
  /** The drawing's width over the plan's 600: handles keep their size on screen. */
  scale: number;
  onHandleDown: (i: number) => (e: PointerEvent) => void;
  onHandleKey: (i: number) => (e: KeyboardEvent) => void;
}

/** The shape being drawn, and a handle at each corner (a button: the arrow keys move it, Delete removes it). */
function CurrentShape({ points, fill, scale, onHandleDown, onHandleKey }: CurrentShapeProps) {
  if (!points.length) return null;
  return (
    <g class="current">
      <path d={toPath(points)} fill={fill} fill-opacity={0.55} stroke="#1a56db" stroke-width={2} stroke-dasharray="6 3" vector-effect="non-scaling-stroke" />
      {points.map(([x, y], i) => (
        <circle
          key={i}
          class="handle"
          cx={x}
          cy={y}
          r={7 * scale}
          tabindex={0}
          role="button"
          aria-label={`Corner ${i + 1} of ${points.length} at ${x}, ${y}: arrow keys move it, Delete removes it`}
          onPointerDown={onHandleDown(i)}
          onKeyDown={onHandleKey(i)}
          onClick={(e) => e.stopPropagation()}
        />
      ))}
    </g>
  );
}

function Cross({ at: [x, y], size }: { at: Pt; size: number }) {
  return (
    <g class="cross" aria-hidden="true">
      <path d={`M${x - size} ${y} H${x + size} M${x} ${y - size} V${y + size}`} vector-effect="non-scaling-stroke" />
    </g>
  );
}

/** A shape drawn already, named at its middle; a click chooses it while nothing is being drawn. */
export function DrawnShape({
  d,
  name,
  fill,
  faint,
  fontSize = 14,
  onChoose,
}: {
  d: string;
  name: string;
  fill: string;
  faint: boolean;
  fontSize?: number;
  onChoose?: () => void;
}) {
  const pts = parsePath(d);
  const c = pts?.length ? centre(pts) : undefined;
  const onClick = (e: MouseEvent) => {
    if (faint || !onChoose) return;
    e.stopPropagation();
    onChoose();
  };
  return (
    <g class="other" onClick={onClick}>
      <path d={d} fill={fill} fill-opacity={faint ? 0.45 : 0.75} stroke="#fff" stroke-width={2} vector-effect="non-scaling-stroke" />
      {c && (
        <text x={c[0]} y={c[1]} text-anchor="middle" dominant-baseline="middle" class="shape-label" style={{ fontSize: `${fontSize}px` }}>
          {name}
        </text>
      )}
    </g>
  );
}

interface DrawingCardProps {
  /** What is being drawn ("Drawing A1", "Drawing Level 2, shape 1"). */
  title: string;
  /** Where to click ("on the plan"). */
  where: string;
  outline: Outline;
  snap: boolean;
  setSnap: (on: boolean) => void;
  save: () => Promise<void>;
  cancel: () => void;
  /** The save button's words. */
  saveLabel?: string;
  /** Saving no corners at all clears the shape (a lot or a floor's shape); else three are needed. */
  clearable?: boolean;
  children?: ComponentChildren;
}

/** The drawing's buttons: save, undo, start again, cancel; and the snap switch. */
export function DrawingCard({ title, where, outline, snap, setSnap, save, cancel, saveLabel = 'Save outline', clearable = false, children }: DrawingCardProps) {
  const { points } = outline;
  const savable = points.length >= 3 || (clearable && points.length === 0);
  return (
    <div class="card">
      <h2>{title}</h2>
      <p class="muted small">
        Click {where} to add corners; drag a corner (or focus it and use the arrow keys) to move it. {points.length} corner
        {points.length === 1 ? '' : 's'}.
      </p>
      <Toggle label="Snap to grid and to neighbours' corners" checked={snap} onChange={setSnap} />
      {children}
      <div class="row wrap">
        <button type="button" onClick={save} disabled={!savable}>
          {clearable && points.length === 0 ? 'Save without a shape' : saveLabel}
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
