/**
 * The flat site plan (a project with `layoutImageUrl` and no location): the picture with its lots drawn over it in its
 * own pixels (`lotPath`, or `svgLotId` in `projectSVGUrl`), coloured as the floor plans colour units, each opening its
 * unit. A chunk of its own, imported when the section scrolls into view (web/views/places.ts).
 */
import { imageSize, lotOutlines } from './lots.ts';
import type { Lot, PlaceHandle, PlanData } from './types.ts';

const NS = 'http://www.w3.org/2000/svg';

export function showSitePlan(frame: HTMLElement, data: PlanData, lots: Lot[], open: (id: string) => void): PlaceHandle {
  const svg = document.createElementNS(NS, 'svg');
  svg.classList.add('site-plan-lots');
  let current = lots;
  const size = imageSize(data.image);
  async function draw() {
    const s = await size;
    if (!s) return;
    svg.setAttribute('viewBox', `0 0 ${s.w} ${s.h}`);
    const outlines = await lotOutlines(current, data.svg);
    const shapes = current.flatMap((lot) => {
      const d = outlines.get(lot.id);
      if (!d) return [];
      const p = document.createElementNS(NS, 'path');
      p.setAttribute('d', d);
      p.setAttribute('fill', lot.colour);
      p.setAttribute('class', 'lot');
      p.setAttribute('tabindex', '0');
      p.setAttribute('role', 'button');
      p.setAttribute('aria-label', lot.label);
      p.dataset.unit = lot.id;
      p.addEventListener('click', () => open(lot.id));
      p.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          open(lot.id);
        }
      });
      return [p];
    });
    svg.replaceChildren(...shapes);
    frame.dataset.lots = String(shapes.length);
  }
  frame.append(svg);
  void draw();
  frame.dataset.ready = 'true';
  return {
    update(next) {
      current = next;
      void draw();
    },
  };
}
