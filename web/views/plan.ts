/**
 * One floor's plan: the drawing with each unit's shape over it, coloured by status and named; it fits the
 * viewport, zooms with the wheel, a pinch or the buttons, pans when zoomed, and shows a card for the unit under
 * the pointer (hover), under the finger (tap) or with focus (keyboard); a click, "View details" or Enter opens it.
 */
import { h, s, safeUrl, sized } from '../dom.ts';
import { t } from '../i18n.ts';
import { floorUnits, matches, settingsRev, showsStatus, shownStatus } from '../state.ts';
import { factsLine, priceText, statusText } from '../format.ts';
import { badge, unitImage } from './unit-parts.ts';
import { myHold } from '../holds.ts';
import { statusFor } from './hold.ts';
import { legend, mark } from './legend.ts';
import type { Floor, Room } from '../types.ts';

let root: HTMLElement | undefined;
let floorId = '';
let shapesKey = '';
let svg: SVGSVGElement;
let canvas: HTMLElement;
let viewport: HTMLElement;
let cardEl: HTMLElement;
let cardUnit: string | undefined;
let openUnit: (id: string) => void = () => {};
const zoom = { scale: 1, x: 0, y: 0 };
let lastPointer = 'mouse';

export function planView(floor: Floor, open: (id: string) => void): HTMLElement {
  openUnit = open;
  let current = root;
  if (!current || floorId !== floor._id) {
    floorId = floor._id;
    shapesKey = '';
    current = build(floor);
  }
  drawShapes(floor);
  return current;
}

function build(floor: Floor): HTMLElement {
  Object.assign(zoom, { scale: 1, x: 0, y: 0 });
  cardUnit = undefined;
  const [, , w = 600, hgt = 300] = (typeof floor.viewBox === 'string' ? floor.viewBox : '0 0 600 300').split(/\s+/).map(Number);
  svg = s('svg', { viewBox: typeof floor.viewBox === 'string' ? floor.viewBox : '0 0 600 300', role: 'group', 'aria-label': floor.name, class: 'shapes' });
  const img = safeUrl(floor.floorplanUrl);
  canvas = h(
    'div',
    { class: 'plan-canvas' },
    img ? h('img', { src: img, alt: '', width: String(w), height: String(hgt), class: 'plan-img', draggable: 'false' }) : undefined,
    svg,
  );
  // The drawing's proportions, so the plan fits the width and the height of the screen alike.
  canvas.style.setProperty('--ratio', String(w / hgt));
  cardEl = h('div', { class: 'plan-card', id: 'plan-card', hidden: true, role: 'dialog', 'aria-live': 'polite' });
  viewport = h('div', { class: 'plan-viewport', id: 'plan-viewport' }, canvas);
  wireZoom();
  const button = (id: string, label: string, text: string, act: () => void) =>
    h('button', { type: 'button', id, class: 'zoom-btn', 'aria-label': label, title: label, onclick: act }, text);
  root = h(
    'figure',
    { class: 'plan', id: 'plan' },
    h(
      'div',
      { class: 'plan-tools' },
      h('figcaption', {}, floor.name),
      h('ul', { class: 'legend' }),
      h(
        'div',
        { class: 'zoom', role: 'group', 'aria-label': t().zoomReset },
        button('zoom-out', t().zoomOut, '−', () => zoomBy(1 / 1.4)),
        button('zoom-reset', t().zoomReset, '⤢', () => setZoom(1, 0, 0)),
        button('zoom-in', t().zoomIn, '+', () => zoomBy(1.4)),
      ),
    ),
    viewport,
    // Outside the zoomed frame: beside the shape on a desktop, under the plan on a phone (never over the finger).
    cardEl,
  );
  return root;
}

function drawShapes(floor: Floor) {
  const units = floorUnits(floor).filter((u) => u.path);
  const key = JSON.stringify([
    units.map((u) => [u._id, u.availability, u.path, u.price, matches(u), u.allocated, !!myHold(u._id)]),
    document.documentElement.lang,
    showsStatus(),
    settingsRev(),
  ]);
  if (key === shapesKey) return;
  shapesKey = key;
  const focused = document.activeElement?.id;
  const shows = showsStatus();
  svg.replaceChildren(
    // Sold rooms are hatched as well as coloured: plainly unavailable whatever the eyes.
    s(
      'defs',
      {},
      s(
        'pattern',
        { id: 'hatch', patternUnits: 'userSpaceOnUse', width: '10', height: '10', patternTransform: 'rotate(45)' },
        s('rect', { width: '10', height: '10', class: 'hatch-bg' }),
        s('line', { x1: '0', y1: '0', x2: '0', y2: '10', class: 'hatch-line' }),
      ),
    ),
    ...units.map((u) => {
      // A hidden sold unit's room: drawn as sold (or neutral, without statuses), nothing to open, no name to say.
      if (u.stub && !shows) return s('path', { d: u.path, class: 'shape s-none stub', 'aria-hidden': 'true' });
      if (u.stub)
        return s('path', {
          d: u.path,
          class: 'shape s-sold stub',
          'data-availability': 'sold',
          'data-mark': mark('sold'),
          role: 'img',
          'aria-label': statusText('sold'),
        });
      const p = s('path', {
        d: u.path,
        class: `shape s-${shownStatus(u.availability)}${matches(u) ? '' : ' dim'}${u.allocated ? ' mine' : ''}`,
        tabindex: '0',
        role: 'button',
        id: `shape-${u._id}`,
        'data-unit': u._id,
        'data-name': u.name,
        'data-mark': shows ? mark(u.availability) : undefined,
        'data-availability': shows ? u.availability : undefined,
        'data-allocated': u.allocated ? 'true' : undefined,
        'aria-label': [u.name, shows ? `: ${statusFor(u, statusText(u.availability))}` : '', priceText(u) ? `, ${priceText(u)}` : ''].join(''),
      });
      p.addEventListener('click', (e) => {
        e.stopPropagation();
        // A finger first shows the card (there is no hover on glass); a mouse click opens the unit at once.
        if (lastPointer === 'touch' && cardUnit !== u._id) showCard(u, p);
        else openUnit(u._id);
      });
      p.addEventListener('mouseenter', () => lastPointer !== 'touch' && showCard(u, p));
      // Keyboard focus shows the card; a tap's focus does not (the tap itself decides).
      p.addEventListener('focus', () => p.matches(':focus-visible') && showCard(u, p));
      p.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          openUnit(u._id);
        }
      });
      return p;
    }),
  );
  // Colour is never the only cue (WCAG 1.4.1): a legend names each colour and mark, shapes carry the name and mark.
  root?.querySelector('.legend')?.replaceWith(shows ? legend(units.map((u) => u.availability)) : h('ul', { class: 'legend', hidden: true }));
  if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  if (cardUnit) {
    const u = units.find((x) => x._id === cardUnit);
    const p = document.getElementById(`shape-${cardUnit}`);
    if (u && p) showCard(u, p as unknown as SVGPathElement);
    else hideCard();
  }
}

/** Names inside the shapes: measured once the drawing is in the document. */
export function labelShapes() {
  if (!root?.isConnected) return;
  for (const old of svg.querySelectorAll('text')) old.remove();
  for (const shape of svg.querySelectorAll<SVGPathElement>('path.shape')) {
    // A hidden sold unit's room carries no name.
    if (!shape.dataset.name && !shape.dataset.mark) continue;
    const box = shape.getBBox();
    if (!box.width || !box.height) continue;
    const label = s('text', {
      class: 'shape-label',
      x: box.x + box.width / 2,
      y: box.y + box.height / 2,
      'font-size': Math.max(9, Math.min(15, box.height / 5, box.width / 5)),
      'aria-hidden': 'true',
    });
    label.textContent = shape.dataset.name ?? '';
    // The status's mark above the name (or alone, for a hidden sold room): colour is not the only cue.
    const size = Number(label.getAttribute('font-size'));
    const markText = s('text', {
      class: 'shape-mark',
      x: box.x + box.width / 2,
      y: box.y + box.height / 2 - (shape.dataset.name && shape.dataset.mark ? size * 1.1 : 0),
      'font-size': size,
      'aria-hidden': 'true',
    });
    markText.textContent = shape.dataset.mark ?? '';
    shape.after(...[shape.dataset.mark ? markText : undefined, shape.dataset.name ? label : undefined].filter((x) => x !== undefined));
  }
}

function showCard(u: Room, shape: SVGPathElement) {
  cardUnit = u._id;
  const price = priceText(u);
  const img = unitImage(u, 'plan');
  cardEl.replaceChildren(
    ...(img ? [h('img', { ...sized(img, '160px', 480), src: img, alt: '', width: '160', height: '120', loading: 'lazy' })] : []),
    h(
      'div',
      { class: 'pc-body' },
      h('p', { class: 'pc-head' }, h('strong', { id: 'plan-card-name' }, u.name), ' ', badge(u)),
      factsLine(u) ? h('p', { class: 'facts' }, factsLine(u)) : undefined,
      price ? h('p', { class: 'price' }, price) : undefined,
      h('button', { type: 'button', class: 'primary small', id: 'plan-card-view', onclick: () => openUnit(u._id) }, t().viewUnit),
    ),
    h('button', { type: 'button', class: 'pc-close', 'aria-label': t().close, onclick: hideCard }, '×'),
  );
  cardEl.hidden = false;
  // Beside the shape, inside the plan: to its right when there is room, else to its left; never off the plan.
  if (!root || getComputedStyle(cardEl).position !== 'absolute') return;
  const frame = root.getBoundingClientRect();
  const vp = viewport.getBoundingClientRect();
  const r = shape.getBoundingClientRect();
  const cw = cardEl.offsetWidth;
  const ch = cardEl.offsetHeight;
  let left = r.right - frame.left + 8;
  if (left + cw > frame.width) left = r.left - frame.left - cw - 8;
  left = Math.max(4, Math.min(left, frame.width - cw - 4));
  const top = Math.max(vp.top - frame.top + 4, Math.min(r.top - frame.top + r.height / 2 - ch / 2, vp.bottom - frame.top - ch - 4));
  cardEl.style.setProperty('left', `${left}px`);
  cardEl.style.setProperty('top', `${top}px`);
}

function hideCard() {
  cardUnit = undefined;
  cardEl.hidden = true;
}

// ---------- zoom and pan ----------

function setZoom(scale: number, x: number, y: number) {
  zoom.scale = Math.min(5, Math.max(1, scale));
  const w = viewport.clientWidth;
  const hgt = viewport.clientHeight;
  // Never pan the drawing away: its edges stay at or beyond the frame's.
  zoom.x = Math.min(0, Math.max(w - w * zoom.scale, x));
  zoom.y = Math.min(0, Math.max(hgt - hgt * zoom.scale, y));
  if (zoom.scale === 1) Object.assign(zoom, { x: 0, y: 0 });
  canvas.style.setProperty('transform', `translate(${zoom.x}px, ${zoom.y}px) scale(${zoom.scale})`);
  viewport.classList.toggle('zoomed', zoom.scale > 1);
  viewport.dataset.scale = zoom.scale.toFixed(2);
  hideCard();
}

function zoomAt(px: number, py: number, factor: number) {
  const next = Math.min(5, Math.max(1, zoom.scale * factor));
  const k = next / zoom.scale;
  setZoom(next, px - (px - zoom.x) * k, py - (py - zoom.y) * k);
}

const zoomBy = (factor: number) => zoomAt(viewport.clientWidth / 2, viewport.clientHeight / 2, factor);

function wireZoom() {
  viewport.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const r = viewport.getBoundingClientRect();
      zoomAt(e.clientX - r.left, e.clientY - r.top, Math.exp(-e.deltaY * 0.002));
    },
    { passive: false },
  );
  const pointers = new Map<number, { x: number; y: number }>();
  let pinch: { d: number; scale: number } | undefined;
  let pan: { x: number; y: number; zx: number; zy: number } | undefined;
  viewport.addEventListener('pointerdown', (e) => {
    lastPointer = e.pointerType;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), scale: zoom.scale };
      pan = undefined;
    } else if (zoom.scale > 1) pan = { x: e.clientX, y: e.clientY, zx: zoom.x, zy: zoom.y };
  });
  viewport.addEventListener('pointermove', (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pinch && pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const r = viewport.getBoundingClientRect();
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      zoomAt((a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top, (pinch.scale * (d / pinch.d)) / zoom.scale);
    } else if (pan && Math.hypot(e.clientX - pan.x, e.clientY - pan.y) > 4) {
      setZoom(zoom.scale, pan.zx + e.clientX - pan.x, pan.zy + e.clientY - pan.y);
    }
  });
  const end = (e: PointerEvent) => {
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = undefined;
    if (pointers.size === 0) pan = undefined;
  };
  viewport.addEventListener('pointerup', end);
  viewport.addEventListener('pointercancel', end);
  viewport.addEventListener('click', (e) => {
    if (e.target === viewport || e.target === svg || (e.target instanceof Element && e.target.classList.contains('plan-img'))) hideCard();
  });
}
