/**
 * Outlines suggested from a floor plan picture: the light areas enclosed by dark walls, found by flood fill on the
 * picture's grey pixels. Walls are thickened by a few pixels first, so a door drawn as a gap of up to about
 * 2 × WALL_GROW working pixels still closes its room; a wider opening lets the room run into its neighbour.
 */

export interface GreyImage {
  /** One byte per pixel, row by row, 0 black … 255 white. */
  data: Uint8Array;
  width: number;
  height: number;
}

export interface Suggestion {
  /** `M x y L x y … Z` in the plan editor's drawing space. */
  path: string;
  /** The area's bounding box in the drawing space. */
  box: { x: number; y: number; width: number; height: number };
  /** How much of its box the area fills (1: a rectangle). */
  fill: number;
}

/** The plan editor's drawing (web/admin/screens/plan.tsx): 600 × 300, the picture drawn whole and centred in it. */
export const DRAWING = { width: 600, height: 300 };
/** Working pixels of a picture's longer side. */
export const WORKING_SIZE = 400;
const LIGHT = 160;
const WALL_GROW = 2;
/** Areas smaller than this share of the picture are text, hatching or noise; larger ones are not one unit. */
const MIN_SHARE = 0.004;
const MAX_SHARE = 0.5;
/** An area filling this much of its box is offered as its box. */
const RECTANGLE_FILL = 0.9;

/** Dark pixels, grown by WALL_GROW in each direction (a square neighbourhood). */
function walls(img: GreyImage): Uint8Array {
  const { data, width: w, height: h } = img;
  const dark = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) dark[i] = (data[i] ?? 255) < LIGHT ? 1 : 0;
  const grown = new Uint8Array(w * h);
  // Rows, then columns: a square grow in two passes.
  const rows = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let any = 0;
      for (let d = -WALL_GROW; d <= WALL_GROW && !any; d++) {
        const xx = x + d;
        if (xx >= 0 && xx < w && dark[y * w + xx]) any = 1;
      }
      rows[y * w + x] = any;
    }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let any = 0;
      for (let d = -WALL_GROW; d <= WALL_GROW && !any; d++) {
        const yy = y + d;
        if (yy >= 0 && yy < h && rows[yy * w + x]) any = 1;
      }
      grown[y * w + x] = any;
    }
  return grown;
}

interface Area {
  pixels: number;
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
  /** Per row from minY: the leftmost and rightmost pixel. */
  spans: [number, number][];
  touchesEdge: boolean;
}

/** The light areas, each by a 4-connected flood fill. */
function areas(img: GreyImage, blocked: Uint8Array): Area[] {
  const { width: w, height: h } = img;
  const seen = new Uint8Array(w * h);
  const found: Area[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (blocked[start] || seen[start]) continue;
    const area: Area = { pixels: 0, minX: w, maxX: -1, minY: h, maxY: -1, spans: [], touchesEdge: false };
    const rows = new Map<number, [number, number]>();
    seen[start] = 1;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop() as number;
      const x = i % w;
      const y = (i - x) / w;
      area.pixels++;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) area.touchesEdge = true;
      area.minX = Math.min(area.minX, x);
      area.maxX = Math.max(area.maxX, x);
      area.minY = Math.min(area.minY, y);
      area.maxY = Math.max(area.maxY, y);
      const span = rows.get(y);
      if (span) {
        span[0] = Math.min(span[0], x);
        span[1] = Math.max(span[1], x);
      } else rows.set(y, [x, x]);
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1]) {
        if (j >= 0 && !blocked[j] && !seen[j]) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    for (let y = area.minY; y <= area.maxY; y++) area.spans.push(rows.get(y) ?? [area.minX, area.maxX]);
    found.push(area);
  }
  return found;
}

/** The outline of an area whose every row is one run (rectangles, L and T shapes): its row ends, with straight runs merged. */
function outlineOf(a: Area): [number, number][] {
  const left: [number, number][] = [];
  const right: [number, number][] = [];
  let prev: [number, number] | undefined;
  a.spans.forEach(([l, r], k) => {
    const y = a.minY + k;
    // Runs that move by a pixel or two are the walls' antialiased ends, not corners.
    if (!prev || Math.abs(prev[0] - l) > 2) left.push([l - WALL_GROW, k === 0 ? y - WALL_GROW : y]);
    if (!prev || Math.abs(prev[1] - r) > 2) right.push([r + 1 + WALL_GROW, k === 0 ? y - WALL_GROW : y]);
    prev = [l, r];
  });
  // Steps: a change of run ends makes a corner pair (one at the row before, one at this row).
  const steps = (side: [number, number][], end: number): [number, number][] =>
    side.flatMap(([x, y], i) => {
      const next = side[i + 1];
      return [[x, y] as [number, number], [x, next ? next[1] : end] as [number, number]];
    });
  const bottom = a.maxY + 1 + WALL_GROW;
  return [...steps(left, bottom), ...steps(right, bottom).reverse()];
}

/** Drops corners on a straight line between their neighbours and repeated ones. */
function simplify(pts: [number, number][]): [number, number][] {
  const out = pts.filter((p, i) => {
    const before = pts[i - 1];
    return !before || p[0] !== before[0] || p[1] !== before[1];
  });
  return out.filter((p, i) => {
    const a = out[(i - 1 + out.length) % out.length] ?? p;
    const b = out[(i + 1) % out.length] ?? p;
    return (b[0] - a[0]) * (p[1] - a[1]) !== (b[1] - a[1]) * (p[0] - a[0]);
  });
}

/** The enclosed light areas of a plan, as outlines in the drawing space, in reading order (rows top to bottom, then left to right). */
export function suggestOutlines(img: GreyImage): Suggestion[] {
  const { width: w, height: h } = img;
  const scale = Math.min(DRAWING.width / w, DRAWING.height / h);
  const ox = (DRAWING.width - w * scale) / 2;
  const oy = (DRAWING.height - h * scale) / 2;
  const at = (x: number, y: number): [number, number] => [Math.round(ox + x * scale), Math.round(oy + y * scale)];
  const total = w * h;
  const kept = areas(img, walls(img)).filter((a) => !a.touchesEdge && a.pixels >= total * MIN_SHARE && a.pixels <= total * MAX_SHARE);
  const suggestions = kept.map((a) => {
    const boxW = a.maxX - a.minX + 1;
    const boxH = a.maxY - a.minY + 1;
    const fill = a.pixels / (boxW * boxH);
    // The walls were grown by WALL_GROW: the area reaches that far further, up to the wall's drawn edge.
    const g = WALL_GROW;
    const corners: [number, number][] =
      fill >= RECTANGLE_FILL
        ? [
            [a.minX - g, a.minY - g],
            [a.maxX + 1 + g, a.minY - g],
            [a.maxX + 1 + g, a.maxY + 1 + g],
            [a.minX - g, a.maxY + 1 + g],
          ]
        : outlineOf(a);
    const pts = simplify(corners.map(([x, y]) => at(x, y)));
    const [x0, y0] = at(a.minX - g, a.minY - g);
    const [x1, y1] = at(a.maxX + 1 + g, a.maxY + 1 + g);
    return {
      path: `M${pts.map(([x, y]) => `${x} ${y}`).join(' L')} Z`,
      box: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 },
      fill: Math.round(fill * 100) / 100,
    };
  });
  // Reading order: an area starts a new row when its top is below the middle of the row's first area.
  suggestions.sort((a, b) => a.box.y - b.box.y);
  const rows: Suggestion[][] = [];
  for (const s of suggestions) {
    const row = rows.at(-1);
    const first = row?.[0];
    if (row && first && s.box.y < first.box.y + first.box.height / 2) row.push(s);
    else rows.push([s]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.box.x - b.box.x));
}
