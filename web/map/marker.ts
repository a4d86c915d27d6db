/**
 * A map marker's look, as the buyer's page, the group page and the console draw it: the marker's picture
 * (`markerImageUrl`, 40 px, round), else a pin (its point on the place) or a dot (centred on it) in `mapPointColor`.
 */
import type { MarkerLook } from '../../src/modules/shared/map-look.ts';

export type { MarkerLook };
const NS = 'http://www.w3.org/2000/svg';

/** Fills `el` with the marker's picture or shape (class `map-marker map-marker-<image|pin|dot|none>`). */
export function drawMarker(el: HTMLElement, marker: MarkerLook): void {
  el.className = `map-marker map-marker-${marker.image ? 'image' : marker.shape}`;
  el.replaceChildren();
  if (marker.image) {
    const img = document.createElement('img');
    img.src = marker.image;
    img.alt = '';
    img.width = 40;
    img.height = 40;
    el.append(img);
    return;
  }
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('aria-hidden', 'true');
  const dot = marker.shape !== 'pin';
  svg.setAttribute('viewBox', dot ? '0 0 20 20' : '0 0 28 40');
  svg.setAttribute('width', dot ? '20' : '28');
  svg.setAttribute('height', dot ? '20' : '40');
  const shape = document.createElementNS(NS, dot ? 'circle' : 'path');
  if (dot) {
    shape.setAttribute('cx', '10');
    shape.setAttribute('cy', '10');
    shape.setAttribute('r', '8');
  } else shape.setAttribute('d', 'M14 1C6.8 1 1 6.8 1 14c0 9.6 13 25 13 25s13-15.4 13-25C27 6.8 21.2 1 14 1z');
  shape.setAttribute('fill', marker.color);
  shape.setAttribute('stroke', '#fff');
  shape.setAttribute('stroke-width', '2');
  svg.append(shape);
  if (!dot) {
    const hole = document.createElementNS(NS, 'circle');
    hole.setAttribute('cx', '14');
    hole.setAttribute('cy', '14');
    hole.setAttribute('r', '5');
    hole.setAttribute('fill', '#fff');
    svg.append(hole);
  }
  el.append(svg);
}

/** Where the marker's element sits on its place: a pin's point at the bottom, a picture or a dot centred. */
export const markerAnchor = (marker: MarkerLook): 'bottom' | 'center' => (marker.image || marker.shape !== 'pin' ? 'center' : 'bottom');
