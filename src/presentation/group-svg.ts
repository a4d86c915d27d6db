/**
 * A project's `svgGroupId` on its group's page (docs/building.md): the element with that id inside the group's
 * `groupSVGUrl` is the project's shape on the picture. The page has no script, so the server reads the SVG: only one
 * uploaded to this service (`/media/<hash>.svg`, sanitised on upload), never an address elsewhere (a page view fetches
 * nothing from outside). Its shapes are kept with the transforms that place them and mapped from the SVG's `viewBox`
 * to the group picture's `0 0 1000 1000`. Parsed once per file: a media name is its content's hash.
 */
import { LRUCache } from 'lru-cache';
import { SaxesParser } from 'saxes';
import { readAll } from '../modules/media/media.store.ts';
import type { MediaStore } from '../modules/media/store.types.ts';

/** One drawable element of the SVG: its path data and the transform list that places it in the group picture's space. */
export interface SvgShape {
  d: string;
  transform: string;
  /** The middle of its box in the picture's space (label placement), translations and the viewBox applied. */
  middle: [number, number];
}

/** An uploaded SVG on this service: the media name, from an address of any of the service's own origins or a path. */
const MEDIA_SVG = /^\/media\/([0-9a-f]{32}\.svg)$/;
/** Bigger than any site picture; a larger file is not read. */
const MAX_BYTES = 2_000_000;

const cache = new LRUCache<string, Map<string, SvgShape[]>>({ max: 100 });

const num = (v: string | undefined) => {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
};

/** A drawable element as path data (`path`, `rect`, `polygon`, `polyline`, `circle`, `ellipse`), or undefined. */
function pathOf(name: string, a: Record<string, string>): string | undefined {
  switch (name) {
    case 'path':
      return a.d?.trim() || undefined;
    case 'polygon':
    case 'polyline': {
      const pts = (a.points ?? '').trim();
      return pts ? `M${pts}${name === 'polygon' ? 'Z' : ''}` : undefined;
    }
    case 'rect': {
      const [x, y, w, h] = [a.x, a.y, a.width, a.height].map(num);
      return w && h ? `M${x} ${y}H${(x ?? 0) + w}V${(y ?? 0) + h}H${x}Z` : undefined;
    }
    case 'circle':
    case 'ellipse': {
      const [cx, cy] = [a.cx, a.cy].map(num);
      const rx = num(name === 'circle' ? a.r : a.rx);
      const ry = num(name === 'circle' ? a.r : a.ry);
      return rx && ry ? `M${(cx ?? 0) - rx} ${cy}a${rx} ${ry} 0 1 0 ${2 * rx} 0a${rx} ${ry} 0 1 0 ${-2 * rx} 0Z` : undefined;
    }
    default:
      return undefined;
  }
}

/** The sum of the `translate(x y)` steps of a transform list (labels only: a turn or a scale is not followed). */
function translation(transforms: string[]): [number, number] {
  let x = 0;
  let y = 0;
  for (const t of transforms)
    for (const m of t.matchAll(/translate\(\s*([-+\d.eE]+)(?:[\s,]+([-+\d.eE]+))?\s*\)/g)) {
      x += num(m[1]);
      y += num(m[2]);
    }
  return [x, y];
}

/**
 * Every element with an id in the SVG text, with the shapes drawn inside it (itself, or its descendants), in the
 * `0 0 1000 1000` space. `middleOf` places labels (the same rule as a `path`'s).
 */
export function svgShapesById(text: string, middleOf: (d: string) => [number, number]): Map<string, SvgShape[]> {
  const out = new Map<string, SvgShape[]>();
  const parser = new SaxesParser({ xmlns: false });
  const stack: { id?: string | undefined; transform?: string | undefined }[] = [];
  let view: [number, number, number, number] | undefined;
  const found: { ids: string[]; d: string; chain: string[] }[] = [];
  parser.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    const name = tag.name.replace(/^.*:/, '');
    if (!stack.length && name === 'svg') {
      const box = (a.viewBox ?? '')
        .trim()
        .split(/[\s,]+/)
        .map(Number);
      const [x = 0, y = 0, w = 0, h = 0] = box;
      view = box.length === 4 && box.every(Number.isFinite) && w > 0 && h > 0 ? [x, y, w, h] : undefined;
      view ??= num(a.width) > 0 && num(a.height) > 0 ? [0, 0, num(a.width), num(a.height)] : undefined;
    }
    stack.push({ id: a.id || undefined, transform: a.transform || undefined });
    const d = pathOf(name, a);
    if (d && /^[\sMmLlHhVvCcSsQqTtAaZz0-9.,eE+-]*$/.test(d)) {
      found.push({
        ids: stack.flatMap((s) => (s.id ? [s.id] : [])),
        d,
        chain: stack.flatMap((s) => (s.transform && /^[\w\s(),.+-]*$/.test(s.transform) ? [s.transform] : [])),
      });
    }
  });
  parser.on('closetag', () => void stack.pop());
  parser.write(text).close();
  if (!view) return out;
  const [vx, vy, vw, vh] = view;
  const sx = 1000 / vw;
  const sy = 1000 / vh;
  const toPicture = `scale(${sx} ${sy}) translate(${-vx} ${-vy})`;
  for (const f of found) {
    const [mx, my] = middleOf(f.d);
    const [tx, ty] = translation(f.chain);
    const shape: SvgShape = { d: f.d, transform: [toPicture, ...f.chain].join(' '), middle: [(mx + tx - vx) * sx, (my + ty - vy) * sy] };
    for (const id of f.ids) out.set(id, [...(out.get(id) ?? []), shape]);
  }
  return out;
}

/**
 * The shapes by id of the group's `groupSVGUrl` when it is an SVG uploaded here (an address on one of `origins`, or a
 * path); undefined for anything else, or a file that is missing, too large or not SVG.
 */
export async function groupSvgShapes(
  store: MediaStore,
  url: unknown,
  origins: string[],
  middleOf: (d: string) => [number, number],
): Promise<Map<string, SvgShape[]> | undefined> {
  if (typeof url !== 'string' || !url.trim()) return undefined;
  let name: string | undefined;
  try {
    const at = new URL(url.trim(), origins[0]);
    if (origins.some((o) => new URL(o).origin === at.origin)) name = MEDIA_SVG.exec(at.pathname)?.[1];
  } catch {
    return undefined;
  }
  if (!name) return undefined;
  const kept = cache.get(name);
  if (kept) return kept;
  try {
    const file = await store.get(name);
    if (!file || file.size > MAX_BYTES) {
      file?.body.destroy();
      return undefined;
    }
    const shapes = svgShapesById((await readAll(file.body)).toString('utf8'), middleOf);
    cache.set(name, shapes);
    return shapes;
  } catch {
    // Not readable as SVG, or the store did not answer: the page is drawn without these shapes.
    return undefined;
  }
}
