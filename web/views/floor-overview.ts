/**
 * `showFloorOverview`: every floor in one glance above the homes, lowest first: its name, how many of its homes are on
 * offer ("3 of 4 available"; "4 homes" where the project hides availability) and its lowest price on offer (where prices
 * are shown). A floor opens its plan. Homes only (amenities, parking, storage are not counted); a sold home the project
 * hides (`hideSold`) is not counted either, so the figures say nothing the page does not.
 */
import { h } from '../dom.ts';
import { bw } from '../building-words.ts';
import { isHome } from '../counting.ts';
import { lowestPrice } from '../format.ts';
import { flag, loaded, showsStatus, state } from '../state.ts';

export function floorOverview(openFloor: (floorId: string) => void): HTMLElement | undefined {
  if (!flag('showFloorOverview')) return undefined;
  const floors = [...loaded().floors].sort((a, b) => a.position - b.position);
  const lines = floors.map((f) => ({ f, homes: f.units.filter(isHome) })).filter((l) => l.homes.length);
  if (!lines.length) return undefined;
  const w = bw();
  return h(
    'section',
    { class: 'floor-overview', id: 'floor-overview', 'aria-labelledby': 'floor-overview-title' },
    h('h2', { class: 'section-title', id: 'floor-overview-title' }, w.overview),
    h(
      'ul',
      { class: 'fo-list' },
      ...lines.map(({ f, homes }) => {
        const count = showsStatus() ? w.onOffer(homes.filter((u) => u.availability === 'available').length, homes.length) : w.homes(homes.length);
        return h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'fo-floor',
              id: `fo-${f._id}`,
              'aria-current': state.view.view === 'plan' && state.view.floor === f._id ? 'true' : undefined,
              onclick: () => openFloor(f._id),
            },
            h('span', { class: 'fo-name' }, f.name),
            h('span', { class: 'fo-count' }, count),
            h('span', { class: 'fo-from' }, lowestPrice(homes)),
          ),
        );
      }),
    ),
  );
}
