/** The unit list: cards with an image, status, facts and price. Cards are kept by unit and content, so a refresh that
 * changes one unit redraws one card (and never reloads the others' images). */
import { fillInTasks, h, sized, type Later } from '../dom.ts';
import { t } from '../i18n.ts';
import { allUnits, floorUnits, listedUnits, settings, settingsRev, shownStatus, showsStatus, state } from '../state.ts';
import { factsLine, perArea, priceText } from '../format.ts';
import type { Unit } from '../types.ts';
import { favButton } from './shortlist.ts';
import { isSaved } from './saved.ts';
import { badge, featuredMark, layoutName, unitImage } from './unit-parts.ts';
import { myHold } from '../holds.ts';
import { isHome, spaceKind, type SpaceKind } from '../counting.ts';
import { u as words } from '../unit-words.ts';

const cards = new Map<string, { key: string; el: HTMLElement }>();

function card(u: Unit, eager: boolean, open: (id: string) => void): HTMLElement {
  const img = unitImage(u, settings().unitImageOnGrid === 'Unit Plan' ? 'plan' : 'photo');
  const price = priceText(u);
  const per = perArea(u);
  const key = JSON.stringify([u, settingsRev(), showsStatus(), img, eager, document.documentElement.lang, isSaved(u._id), !!myHold(u._id)]);
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
        featuredMark(u),
        badge(u),
        u.allocated ? h('span', { class: 'badge mine-badge' }, t().yours) : undefined,
      ),
      layoutName(u) ? h('span', { class: 'unit-type' }, layoutName(u)) : undefined,
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

/** The cards drawn with the first screen; on the first draw the rest follow, CARDS_PER_TASK to a task (`later`). */
const FIRST_CARDS = 6;
const CARDS_PER_TASK = 12;

export function listView(open: (id: string) => void, later?: Later): HTMLElement {
  const units = listedUnits();
  // The first two cards' pictures load at once (the first screen's), the others as they scroll near.
  const homes = units.length
    ? fillInTasks(h('ul', { class: 'grid', 'aria-label': t().units }), units, (u, i) => card(u, i < 2, open), later, FIRST_CARDS, CARDS_PER_TASK)
    : h('p', { class: 'empty', id: 'no-units' }, anyHomes() ? t().noUnits : t().noHomesYet);
  const others = otherSpaces(open);
  return others.length ? h('div', { class: 'list-parts' }, homes, ...others) : homes;
}

/** Whether the chosen floor (or the project) has any home at all, before the filters: "none match" needs some. */
function anyHomes(): boolean {
  const floor = state.bundle?.floors.find((f) => f._id === state.view.floor);
  return (floor ? floorUnits(floor) : allUnits()).some((u) => u.stub !== true && isHome(u));
}

const HEADINGS: Exclude<SpaceKind, 'home'>[] = ['amenities', 'parking', 'storage', 'other'];

/**
 * Amenities, parking and storage (`specificType` other than `unit`) of the chosen floor (or all), each kind under its
 * own heading below the homes: never counted as homes, and the homes' filters do not apply to them.
 */
function otherSpaces(open: (id: string) => void): HTMLElement[] {
  const floor = state.bundle?.floors.find((f) => f._id === state.view.floor);
  const all = (floor ? floorUnits(floor) : allUnits()).filter((x): x is Unit => x.stub !== true);
  return HEADINGS.flatMap((kind) => {
    const list = all.filter((x) => spaceKind(x.specificType) === kind);
    if (!list.length) return [];
    return [
      h(
        'section',
        { class: 'other-spaces', id: `spaces-${kind}`, 'data-kind': kind },
        h('h2', { class: 'section-title' }, words()[kind]),
        h('ul', { class: 'grid' }, ...list.map((x) => card(x, false, open))),
      ),
    ];
  });
}
