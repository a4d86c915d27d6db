/**
 * The gallery's lightbox: one picture at a time over everything (a modal <dialog>, so focus stays inside it and
 * the page behind is inert), with previous/next buttons, the arrow keys and a swipe; Escape, × or a tap beside
 * the picture closes it, and focus goes back to the thumbnail that opened it.
 */
import { h, requireById, sized } from '../dom.ts';
import { t } from '../i18n.ts';
import { x } from '../extra-words.ts';

let box: HTMLDialogElement | undefined;
let pictures: { src: string; alt: string }[] = [];
let index = 0;
let opener: HTMLElement | undefined;

function build(): HTMLDialogElement {
  const img = h('img', { id: 'lightbox-img', alt: '', width: '1280', height: '960', draggable: 'false' });
  const dialog = h(
    'dialog',
    { id: 'lightbox', class: 'lightbox', 'aria-label': t().gallery },
    h('figure', { class: 'lb-figure' }, img, h('figcaption', { id: 'lightbox-count', 'aria-live': 'polite' })),
    h('button', { type: 'button', class: 'lb-btn lb-prev', id: 'lightbox-prev', 'aria-label': x().previous, onclick: () => go(-1) }, '‹'),
    h('button', { type: 'button', class: 'lb-btn lb-next', id: 'lightbox-next', 'aria-label': x().next, onclick: () => go(1) }, '›'),
    h('button', { type: 'button', class: 'lb-btn lb-close', id: 'lightbox-close', 'aria-label': t().close, onclick: () => dialog.close() }, '×'),
  );
  dialog.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowLeft') go(-1);
    else if (e.key === 'ArrowRight') go(1);
    else if (e.key === 'Tab') {
      // Focus goes round the lightbox's buttons, never out of it (a modal dialog alone lets Tab reach the browser).
      e.preventDefault();
      const buttons = [...dialog.querySelectorAll<HTMLButtonElement>('button:not([hidden])')];
      const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
      buttons[(at + (e.shiftKey ? -1 : 1) + buttons.length) % buttons.length]?.focus();
    }
  });
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog || (e.target as Element).classList.contains('lb-figure')) dialog.close();
  });
  // A swipe: a horizontal drag of more than 40 px goes to the neighbour.
  let start: { x: number; y: number } | undefined;
  dialog.addEventListener('pointerdown', (e) => (start = { x: e.clientX, y: e.clientY }));
  dialog.addEventListener('pointerup', (e) => {
    if (!start) return;
    const [dx, dy] = [e.clientX - start.x, e.clientY - start.y];
    start = undefined;
    if (Math.abs(dx) > 40 && Math.abs(dx) > Math.abs(dy)) go(dx < 0 ? 1 : -1);
  });
  dialog.addEventListener('close', () => {
    document.body.classList.remove('lightbox-open');
    opener?.focus({ preventScroll: true });
  });
  document.body.append(dialog);
  return dialog;
}

function go(step: number) {
  if (!pictures.length) return;
  index = (index + step + pictures.length) % pictures.length;
  show();
}

function show() {
  const p = pictures[index];
  const img = document.getElementById('lightbox-img') as HTMLImageElement;
  const s = sized(p.src, '100vw', 2560);
  if (s.srcset) img.setAttribute('srcset', s.srcset);
  else img.removeAttribute('srcset');
  if (s.sizes) img.setAttribute('sizes', s.sizes);
  img.src = p.src;
  img.alt = p.alt;
  requireById('lightbox-count').textContent = x().photo(index + 1, pictures.length);
  const many = pictures.length > 1;
  requireById('lightbox-prev').hidden = !many;
  requireById('lightbox-next').hidden = !many;
}

export function openLightbox(list: { src: string; alt: string }[], at: number, from: HTMLElement) {
  box ??= build();
  pictures = list;
  index = Math.max(0, Math.min(at, list.length - 1));
  opener = from;
  show();
  box.showModal();
  document.body.classList.add('lightbox-open');
  document.getElementById(pictures.length > 1 ? 'lightbox-next' : 'lightbox-close')?.focus();
}

/** Thumbnails that open the lightbox (buttons: a keyboard reaches them, a screen reader hears what they are). */
export function thumbnails(list: { src: string; alt: string }[], cls: string, sizes: string, id: string): HTMLElement {
  return h(
    'div',
    { class: cls, id },
    ...list.map((p, i) =>
      h(
        'button',
        { type: 'button', class: 'thumb', 'aria-label': p.alt, onclick: (e: Event) => openLightbox(list, i, e.currentTarget as HTMLElement) },
        h('img', { ...sized(p.src, sizes, 960), src: p.src, alt: '', loading: 'lazy', width: '320', height: '240' }),
      ),
    ),
  );
}
