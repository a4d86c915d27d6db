/** The unit list: cards with an image, status, facts and price. Cards are kept by unit and content, so a refresh that
 * changes one unit redraws one card (and never reloads the others' images). */
import { h, sized } from '../dom.ts';
import { t } from '../i18n.ts';
import { listedUnits, settings, shownStatus, showsStatus } from '../state.ts';
import { factsLine, perArea, priceText } from '../format.ts';
import type { Unit } from '../types.ts';
import { favButton, isSaved } from './shortlist.ts';
import { badge, unitImage } from './unit-parts.ts';
import { myHold } from '../holds.ts';

const cards = new Map<string, { key: string; el: HTMLElement }>();

function card(u: Unit, eager: boolean, open: (id: string) => void): HTMLElement {
  const img = unitImage(u, settings().unitImageOnGrid === 'Unit Plan' ? 'plan' : 'photo');
  const price = priceText(u);
  const per = perArea(u);
  const key = JSON.stringify([u, showsStatus(), img, eager, document.documentElement.lang, isSaved(u._id), !!myHold(u._id)]);
  const hit = cards.get(u._id);
  if (hit?.key === key) return hit.el;
  const el = h(
    'li',
    { class: 'card-item' },
    h(
      'button',
      {
        type: 'button',
        class: `card s-${shownStatus(u.availability)}${u.allocated ? ' mine' : ''}${img ? '' : ' bare'}`,
        id: `unit-${u._id}`,
        'data-unit': u._id,
        'data-availability': showsStatus() ? u.availability : undefined,
        'data-allocated': u.allocated ? 'true' : undefined,
        onclick: () => open(u._id),
      },
      img
        ? h('img', {
            ...sized(img, '(max-width: 720px) 100vw, 400px', 1280),
            src: img,
            alt: '',
            width: '400',
            height: '300',
            loading: eager ? 'eager' : 'lazy',
            decoding: 'async',
          })
        : undefined,
      h(
        'span',
        { class: 'card-head' },
        h('span', { class: 'name' }, u.name),
        badge(u),
        u.allocated ? h('span', { class: 'badge mine-badge' }, t().yours) : undefined,
      ),
      h('span', { class: 'facts' }, factsLine(u)),
      price ? h('span', { class: 'price' }, price) : undefined,
      per ? h('span', { class: 'per-area' }, per) : undefined,
    ),
    // Beside the card's button, not in it (a button in a button is invalid): over the card's corner.
    favButton(u, `fav-${u._id}`, 'on-card'),
  );
  cards.set(u._id, { key, el });
  return el;
}

export function listView(open: (id: string) => void): HTMLElement {
  const units = listedUnits();
  if (!units.length) return h('p', { class: 'empty', id: 'no-units' }, t().noUnits);
  return h('ul', { class: 'grid', 'aria-label': t().units }, ...units.map((u, i) => card(u, i < 2, open)));
}
