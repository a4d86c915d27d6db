/**
 * The building's 3D models in the Building view, behind `enable3d`: `_3dBuildingModelUrl` ("View the building in
 * 3D", turnable) and `_3dFloorSelectorModelUrl` ("Choose a floor in 3D"), a model whose parts are named by floor: a
 * tap or click on a part opens the floor whose name or id is the part's node name, its mesh's name or its material's
 * name (compared without regard to case or surrounding spaces); a part whose material is named by a floor is coloured
 * by it (available, sold, or one neutral colour without statuses). Each loads only when its button is pressed, and
 * stays loaded while the page redraws.
 */
import { h } from '../dom.ts';
import { floorUnits, loaded, settings, showsStatus } from '../state.ts';
import { isHome } from '../counting.ts';
import { bw } from '../building-words.ts';
import { isGltf, modelBlock, safeModelUrls, shows3d } from './model.ts';

let built: { key: string; el: HTMLElement } | undefined;
let pick: (floorId: string) => void = () => {};
/** The floor selector, once loaded: its parts are coloured again at each redraw (a sale while it is open). */
let selectorViewer: Picker | undefined;

export function building3d(pickFloor: (floorId: string) => void): HTMLElement | undefined {
  pick = pickFloor;
  if (!shows3d()) return undefined;
  const [building] = safeModelUrls([settings()._3dBuildingModelUrl]);
  const [selector] = safeModelUrls([settings()._3dFloorSelectorModelUrl]).filter(isGltf);
  if (!building && !selector) return undefined;
  const key = JSON.stringify([building, selector, document.documentElement.lang]);
  if (built?.key === key) {
    if (selectorViewer) colourParts(selectorViewer);
    return built.el;
  }
  const name = loaded().project.name;
  const el = h(
    'div',
    { class: 'building-3d' },
    building ? modelBlock(building, name, 'building-3d', bw().building3d) : undefined,
    selector ? modelBlock(selector, name, 'floors-3d', bw().floors3d, (viewer) => pickFromModel(viewer, selector)) : undefined,
  );
  built = { key, el };
  return el;
}

/** The names each glTF mesh answers to: its own and those of the nodes that hold it, by the mesh's index. */
async function meshNames(url: string): Promise<string[][]> {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const view = new DataView(bytes.buffer);
  // A GLB: a 12-byte header, then the JSON chunk (its length, its type, its text).
  const text =
    bytes.length > 20 && view.getUint32(0, true) === 0x46546c67
      ? new TextDecoder().decode(bytes.subarray(20, 20 + view.getUint32(12, true)))
      : new TextDecoder().decode(bytes);
  const gltf = JSON.parse(text) as { meshes?: { name?: string }[]; nodes?: { name?: string; mesh?: number }[] };
  return (gltf.meshes ?? []).map((m, i) => [m.name ?? '', ...(gltf.nodes ?? []).filter((n) => n.mesh === i).map((n) => n.name ?? '')]);
}

type Material = { name?: string; pbrMetallicRoughness?: { setBaseColorFactor?: (c: string) => void } };
type Picker = HTMLElement & {
  surfaceFromPoint?: (x: number, y: number) => string | null;
  materialFromPoint?: (x: number, y: number) => Material | null;
  model?: { materials?: Material[] };
};

const named = (said: string[]) => loaded().floors.find((f) => said.includes(f.name.trim().toLowerCase()) || said.includes(f._id.toLowerCase()));

/** Parts whose material is named by a floor take its colour: available where it has a home available, else sold (one neutral colour without statuses). */
function colourParts(viewer: Picker) {
  const css = getComputedStyle(document.documentElement);
  for (const m of viewer.model?.materials ?? []) {
    const floor = named([(m.name ?? '').trim().toLowerCase()]);
    if (!floor) continue;
    const free = floorUnits(floor).some((u) => u.availability === 'available' && isHome(u));
    const colour = css.getPropertyValue(!showsStatus() ? '--neutral' : free ? '--available' : '--sold').trim();
    if (colour) m.pbrMetallicRoughness?.setBaseColorFactor?.(colour);
  }
}

/** A tap on a part of the floor selector opens its floor; a drag (turning the model) opens nothing. */
function pickFromModel(viewer: Picker, url: string) {
  viewer.before(h('p', { class: 'model-hint', id: 'floors-3d-hint' }, bw().floorsHint));
  const names = meshNames(url).catch(() => [] as string[][]);
  selectorViewer = viewer;
  viewer.addEventListener('load', () => colourParts(viewer));
  let down: [number, number] | undefined;
  viewer.addEventListener('pointerdown', (e) => (down = [e.clientX, e.clientY]));
  viewer.addEventListener('click', (e) => {
    if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 8) return;
    void names.then((meshes) => {
      const mesh = Number(viewer.surfaceFromPoint?.(e.clientX, e.clientY)?.split(' ')[0]);
      const said = [...(meshes[mesh] ?? []), viewer.materialFromPoint?.(e.clientX, e.clientY)?.name ?? ''].map((n) => n.trim().toLowerCase());
      const floor = named(said);
      if (floor) pick(floor._id);
    });
  });
}
