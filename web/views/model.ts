/**
 * A 3D model in the unit sheet: a glTF or GLB file is shown in place with <model-viewer> (drag to turn, pinch to
 * zoom), whose code (about 1 MB) is fetched only when the visitor asks to see the model: a dynamic import, which the
 * build puts in a chunk of its own. Any other address (a hosted tour) stays a link.
 */
import { h } from '../dom.ts';
import { t } from '../i18n.ts';
import { x } from '../extra-words.ts';

/** A glTF or GLB file, by its path's ending. */
export const isGltf = (url: string) => /\.(glb|gltf)$/i.test(new URL(url, location.href).pathname);

let loading: Promise<unknown> | undefined;
const loadViewer = () => (loading ??= import('@google/model-viewer'));

export function modelBlock(url: string, name: string): HTMLElement {
  if (!isGltf(url)) return h('p', { class: 'links' }, h('a', { href: url, target: '_blank', rel: 'noopener', id: 'unit-3d' }, t().tour3d));
  const box = h('div', { class: 'model-box', id: 'unit-3d-box' });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'unit-3d-open',
      onclick: async () => {
        button.disabled = true;
        box.replaceChildren(h('p', { class: 'intro', role: 'status' }, x().loading3d));
        await loadViewer();
        const viewer = document.createElement('model-viewer');
        // Asked for: loaded at once, not when scrolled to.
        for (const [k, v] of Object.entries({
          src: url,
          alt: `${x().model3d}: ${name}`,
          'camera-controls': '',
          'touch-action': 'pan-y',
          loading: 'eager',
          id: 'unit-3d-viewer',
        }))
          viewer.setAttribute(k, v);
        box.replaceChildren(viewer);
        button.hidden = true;
        viewer.scrollIntoView({ block: 'nearest' });
      },
    },
    x().view3d,
  );
  return h('section', { class: 'model', 'aria-label': x().model3d }, button, box);
}
