/**
 * 3D models, all behind the project's `enable3d` (not true: no 3D control anywhere on the page). A glTF or GLB file
 * is shown in place with <model-viewer> (drag or the arrow keys to turn, pinch or the wheel to zoom), whose code
 * (about 1 MB) is fetched only when the visitor asks to see a model: a dynamic import, which the build puts in a
 * chunk of its own; the model itself is requested then too. Any other address (a hosted tour) stays a link. A
 * browser without WebGL gets a sentence instead, and the picture and the rows still choose a floor.
 */
import { h, safeUrl } from '../dom.ts';
import { t } from '../i18n.ts';
import { x } from '../extra-words.ts';
import { bw } from '../building-words.ts';
import { flag, settings } from '../state.ts';
import type { Room } from '../types.ts';

/** A glTF or GLB file, by its path's ending. */
export const isGltf = (url: string) => /\.(glb|gltf)$/i.test(new URL(url, location.href).pathname);

/** The http(s) or relative addresses of a list, the empty and the unsafe left out, each once. */
export const safeModelUrls = (list: unknown[]): string[] => [...new Set(list.map(safeUrl).filter((u): u is string => u !== undefined))];

/** Whether the page shows 3D at all (`enable3d`). */
export const shows3d = () => flag('enable3d');

let loading: Promise<unknown> | undefined;
const loadViewer = () => (loading ??= import('@google/model-viewer'));

/** Whether this browser can draw a model: a WebGL context can be had. */
export function webglWorks(): boolean {
  try {
    const canvas = document.createElement('canvas');
    return !!(canvas.getContext('webgl2') ?? canvas.getContext('webgl'));
  } catch {
    return false;
  }
}

/** The <model-viewer> element, its code loaded first; `undefined` (and a sentence in `box`) without WebGL. */
export async function viewerIn(box: HTMLElement, url: string, alt: string, id: string): Promise<HTMLElement | undefined> {
  if (!webglWorks()) {
    box.replaceChildren(h('p', { class: 'notice no-webgl', role: 'status', id: `${id}-no-webgl` }, bw().noWebgl));
    return undefined;
  }
  box.replaceChildren(h('p', { class: 'intro', role: 'status' }, x().loading3d));
  await loadViewer();
  const viewer = document.createElement('model-viewer');
  // Asked for: loaded at once, not when scrolled to.
  for (const [k, v] of Object.entries({ src: url, alt, 'camera-controls': '', 'touch-action': 'pan-y', loading: 'eager', id })) viewer.setAttribute(k, v);
  viewer.addEventListener('error', () => box.replaceChildren(h('p', { class: 'notice', role: 'alert' }, bw().failed)));
  box.replaceChildren(viewer);
  viewer.scrollIntoView({ block: 'nearest' });
  return viewer;
}

/** A model behind a button: `<id>-open` loads it into `<id>-box` as `<id>-viewer`. */
export function modelBlock(url: string, name: string, id = 'unit-3d', label = x().view3d, then?: (viewer: HTMLElement) => void): HTMLElement {
  if (!isGltf(url)) return h('p', { class: 'links' }, h('a', { href: url, target: '_blank', rel: 'noopener', id }, t().tour3d));
  const box = h('div', { class: 'model-box', id: `${id}-box` });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: `${id}-open`,
      onclick: async () => {
        button.disabled = true;
        const viewer = await viewerIn(box, url, bw().model3d(name), `${id}-viewer`);
        button.hidden = true;
        if (viewer) then?.(viewer);
      },
    },
    label,
  );
  return h('section', { class: 'model', 'aria-label': bw().model3d(name) }, button, box);
}

/** A unit sheet's models: the project's `_3dModelUrl`, then the unit's own `unitmodels`, each loaded on request. */
export function unitModels(u: Room): HTMLElement[] {
  if (!shows3d()) return [];
  const project = safeModelUrls([settings()._3dModelUrl]);
  const own = safeModelUrls(Array.isArray(u.unitmodels) ? u.unitmodels : []);
  return [
    ...project.map((url) => modelBlock(url, u.name)),
    ...own.map((url, i) => modelBlock(url, u.name, `unit-model-${i + 1}`, bw().unitModel(i + 1, own.length))),
  ];
}
