/**
 * The building as a picture to pick a floor from: the project's `projectImageUrl` with each floor's `path` (and each
 * of its `alternativePaths`, a floor seen in two places) drawn over it. The paths are in the picture's own pixels:
 * the shapes' space is `0 0 <natural width> <natural height>` of the image as the browser decodes it (for an SVG
 * picture, its width and height). A shape is coloured by its floor (any home available: the available colour; none:
 * the sold colour; one neutral colour where the project hides availability), named, lit under the pointer, the
 * finger or the keyboard's focus, and opens the floor's plan on a click, a tap, Enter or Space.
 */
import { h, s, safeUrl } from '../dom.ts';
import { t } from '../i18n.ts';
import { floorUnits, loaded, matches, settings, showsStatus } from '../state.ts';
import { fromPrice } from '../format.ts';
import { isHome } from '../counting.ts';
import { bw } from '../building-words.ts';
import type { Floor } from '../types.ts';

/** The natural size of each picture decoded, by address: drawn again without waiting for the image. */
const sizes = new Map<string, [number, number]>();

/** A floor's shapes on the picture: its `path`, then its `alternativePaths`, the empty ones left out. */
export function floorPaths(f: Floor): string[] {
  const alternatives = Array.isArray(f.alternativePaths) ? f.alternativePaths : [];
  return [f.path, ...alternatives].filter((p): p is string => typeof p === 'string' && p.trim() !== '');
}

/** What a floor says on the picture: its name, the homes available (unless hidden), its lowest price (`pricesStartingAt`). */
function floorFacts(f: Floor): { free: number; words: string[]; from: string | undefined } {
  const units = floorUnits(f);
  const free = units.filter((u) => u.availability === 'available' && isHome(u) && matches(u)).length;
  const from = fromPrice(units);
  return { free, from, words: [f.name, showsStatus() ? t().floorAvailable(free) : ''].filter(Boolean) };
}

/**
 * The picture's proportions before it comes, from the hero, which shows the same picture (a smaller variant, drawn by
 * the server and usually decoded by now): the space below keeps still when it comes.
 */
function heroProportions(src: string): [number, number] | undefined {
  const hero = document.querySelector<HTMLImageElement>('#hero .hero-img');
  if (
    !hero?.naturalWidth ||
    hero.getAttribute('src') === null ||
    new URL(hero.getAttribute('src') ?? '', location.href).href !== new URL(src, location.href).href
  )
    return undefined;
  return [1600, Math.round((1600 * hero.naturalHeight) / hero.naturalWidth)];
}

/** The picture with the floors drawn over it, or nothing when the project has no picture or no floor has a path. */
export function buildingPicture(pickFloor: (floorId: string) => void): HTMLElement | undefined {
  const src = safeUrl(settings().projectImageUrl);
  const floors = [...loaded().floors].sort((a, b) => b.position - a.position).filter((f) => floorPaths(f).length);
  if (!src || !floors.length) return undefined;
  const svg = s('svg', { class: 'bpic-shapes', role: 'group', 'aria-label': bw().picture, preserveAspectRatio: 'none' });
  const labels = h('div', { class: 'bpic-labels', 'aria-hidden': 'true' });
  // Its size, where known, else a landscape guess: the space is kept before the picture comes (no layout shift for
  // the usual proportions). Never a smaller variant (srcset): the paths are in the original's pixels.
  const [w0, h0] = sizes.get(src) ?? heroProportions(src) ?? [1600, 900];
  const img = h('img', { src, alt: '', class: 'bpic-img', draggable: 'false', decoding: 'async', width: String(w0), height: String(h0) });
  const frame = h('div', { class: 'bpic-frame' }, img, svg, labels);
  const figure = h('figure', { class: 'bpic', id: 'building-picture' }, frame);
  const place = ([w, hgt]: [number, number]) => {
    svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
    frame.classList.add('sized');
    requestAnimationFrame(() => placeLabels(svg, labels, w, hgt));
  };
  const known = sizes.get(src);
  if (known) place(known);
  img.addEventListener('load', () => {
    const size: [number, number] = [img.naturalWidth || 1, img.naturalHeight || 1];
    sizes.set(src, size);
    img.width = size[0];
    img.height = size[1];
    place(size);
  });
  // No picture after all: the rows below still choose a floor.
  img.addEventListener('error', () => figure.remove());
  svg.replaceChildren(...floors.map((f) => floorShapes(f, pickFloor, labels)));
  return figure;
}

function floorShapes(f: Floor, pickFloor: (floorId: string) => void, labels: HTMLElement): SVGGElement {
  const { free, words, from } = floorFacts(f);
  const tone = !showsStatus() ? 'none' : free > 0 ? 'available' : 'sold';
  // The price is left out of the label on a narrow screen (the shapes are small there); the shape's name keeps it.
  const label = h(
    'span',
    { class: `bpic-label b-${tone}`, 'data-floor': f._id },
    words.join(' · '),
    from ? h('span', { class: 'bpic-from' }, ` · ${from}`) : undefined,
  );
  labels.append(label);
  const light = (on: boolean) => {
    group.classList.toggle('lit', on);
    label.classList.toggle('lit', on);
  };
  const group = s(
    'g',
    {
      class: 'bfloor',
      'data-floor': f._id,
      onpointerenter: () => light(true),
      onpointerleave: () => light(false),
      onclick: () => pickFloor(f._id),
    },
    ...floorPaths(f).map((d, i) =>
      s('path', {
        d,
        id: i === 0 ? `bpic-${f._id}` : `bpic-${f._id}-${i}`,
        class: `bshape b-${tone}`,
        'data-availability': showsStatus() ? (free > 0 ? 'available' : 'none') : undefined,
        // One stop per floor for the keyboard and one name for a screen reader: the other shapes of the floor are its echo.
        ...(i === 0
          ? {
              tabindex: '0',
              role: 'button',
              'aria-label': [...words, from].filter(Boolean).join(', '),
              onfocus: () => light(true),
              onblur: () => light(false),
              onkeydown: (e: KeyboardEvent) => {
                if (e.key !== 'Enter' && e.key !== ' ') return;
                e.preventDefault();
                pickFloor(f._id);
              },
            }
          : { 'aria-hidden': 'true' }),
      }),
    ),
  );
  return group;
}

/** Each floor's words at the middle of its first shape, as a share of the picture (so they follow its size). */
function placeLabels(svg: SVGSVGElement, labels: HTMLElement, w: number, hgt: number) {
  for (const label of labels.children) {
    const path = svg.querySelector<SVGPathElement>(`#bpic-${(label as HTMLElement).dataset.floor}`);
    if (!path?.isConnected) continue;
    const box = path.getBBox();
    (label as HTMLElement).style.left = `${((box.x + box.width / 2) / w) * 100}%`;
    (label as HTMLElement).style.top = `${((box.y + box.height / 2) / hgt) * 100}%`;
    (label as HTMLElement).classList.add('placed');
  }
}
