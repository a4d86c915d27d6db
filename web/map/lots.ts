/** Lots in the site plan's pixel space: an SVG path's outline (`lotPath`) or an element of the project's SVG (`svgLotId`). */
import type { Lot } from './types.ts';

export type Point = [number, number];

/**
 * The outline of an SVG path's first figure as points: straight segments exactly, curves and arcs by their end
 * points (a lot is a polygon; its corners are what matter).
 */
export function pathPoints(d: string): Point[] {
  const tokens = d.match(/[a-zA-Z]|-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/g) ?? [];
  const out: Point[] = [];
  let x = 0;
  let y = 0;
  let cmd = '';
  let i = 0;
  const num = () => Number(tokens[i++]);
  const ARGS: Record<string, number> = { m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, a: 7, z: 0 };
  while (i < tokens.length) {
    const tok = tokens[i] ?? '';
    if (/[a-zA-Z]/.test(tok)) {
      cmd = tok;
      i++;
      if (cmd.toLowerCase() === 'z') {
        if (out.length) break;
        continue;
      }
    } else if (cmd === 'M') cmd = 'L';
    else if (cmd === 'm') cmd = 'l';
    const lower = cmd.toLowerCase();
    const n = ARGS[lower];
    if (!n || i + n > tokens.length) break;
    const rel = cmd === lower;
    const args = Array.from({ length: n }, num);
    if (args.some((a) => !Number.isFinite(a))) break;
    if (lower === 'h') x = (rel ? x : 0) + (args[0] ?? 0);
    else if (lower === 'v') y = (rel ? y : 0) + (args[0] ?? 0);
    else {
      x = (rel ? x : 0) + (args[n - 2] ?? 0);
      y = (rel ? y : 0) + (args[n - 1] ?? 0);
    }
    if (lower === 'm' && out.length) break;
    out.push([x, y]);
  }
  return out;
}

/** An element of the project's SVG as a path: `path`, `polygon`/`polyline` and `rect` are read. */
function elementPath(el: Element): string | undefined {
  const a = (n: string) => el.getAttribute(n) ?? '';
  switch (el.localName) {
    case 'path':
      return a('d') || undefined;
    case 'polygon':
    case 'polyline':
      return a('points').trim() ? `M${a('points').trim()}Z` : undefined;
    case 'rect': {
      const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((n) => Number(a(n) || 0));
      return w && h ? `M${x} ${y}h${w}v${h}h${-w}Z` : undefined;
    }
    default: {
      // A group: its first drawable child.
      for (const child of el.children) {
        const d = elementPath(child);
        if (d) return d;
      }
      return undefined;
    }
  }
}

/** The project's SVG, read once: its elements by id and its frame (viewBox). */
let svgRead: Promise<Document | undefined> | undefined;
function projectSvg(url: string): Promise<Document | undefined> {
  svgRead ??= fetch(url)
    .then((r) => (r.ok ? r.text() : ''))
    .then((text) => (text ? new DOMParser().parseFromString(text, 'image/svg+xml') : undefined))
    .catch(() => undefined);
  return svgRead;
}

/** Each lot's outline in the plan's pixels (`lotPath`, else `svgLotId` in the project's SVG); lots with neither are left out. */
export async function lotOutlines(lots: Lot[], svgUrl: string | undefined): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const doc = svgUrl && lots.some((l) => !l.lotPath && l.svgLotId) ? await projectSvg(svgUrl) : undefined;
  for (const lot of lots) {
    const found = lot.svgLotId && doc ? [...doc.querySelectorAll('[id]')].find((el) => el.id === lot.svgLotId) : undefined;
    const d = lot.lotPath ?? (found ? elementPath(found) : undefined);
    if (d) out.set(lot.id, d);
  }
  return out;
}

/** The picture's size in pixels (its natural size), or undefined when it cannot be loaded. */
export function imageSize(src: string): Promise<{ w: number; h: number } | undefined> {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve(img.naturalWidth && img.naturalHeight ? { w: img.naturalWidth, h: img.naturalHeight } : undefined);
    img.onerror = () => resolve(undefined);
    img.src = src;
  });
}
