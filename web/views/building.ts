/** The building: floors as rows (top floor first), units as cells coloured by status, available count per floor. */
import { h } from '../dom.ts';
import { t } from '../i18n.ts';
import { floorUnits, matches, loaded } from '../state.ts';
import { priceText, statusText } from '../format.ts';
import { legend, mark } from './legend.ts';

export function buildingView(open: (unitId: string) => void, pickFloor: (floorId: string) => void): HTMLElement {
  const floors = [...loaded().floors].sort((a, b) => b.position - a.position);
  const statuses = floors.flatMap((f) => floorUnits(f).map((u) => u.availability));
  return h(
    'div',
    { class: 'building', id: 'building' },
    h('div', { class: 'building-head' }, h('h2', { class: 'section-title' }, t().chooseFloor), legend(statuses, 'building-legend')),
    h(
      'ol',
      { class: 'floor-rows', 'aria-label': t().building },
      ...floors.map((f) => {
        const units = floorUnits(f);
        const free = units.filter((u) => u.availability === 'available' && matches(u)).length;
        return h(
          'li',
          { class: 'floor-row' },
          h(
            'button',
            { type: 'button', class: 'floor-name', id: `bfloor-${f._id}`, onclick: () => pickFloor(f._id) },
            h('span', { class: 'fname' }, f.name),
            h('span', { class: 'fcount' }, t().floorAvailable(free)),
          ),
          h(
            'div',
            { class: 'cells' },
            ...units.map((u) => {
              if (u.stub)
                return h(
                  'span',
                  { class: 'cell s-sold stub', 'data-availability': 'sold', role: 'img', 'aria-label': statusText('sold') },
                  h('span', { class: 'mark', 'aria-hidden': 'true' }, mark('sold')),
                );
              const price = priceText(u);
              return h(
                'button',
                {
                  type: 'button',
                  class: `cell s-${u.availability}${matches(u) ? '' : ' dim'}`,
                  id: `cell-${u._id}`,
                  'data-availability': u.availability,
                  'aria-label': `${u.name}: ${statusText(u.availability)}${price ? `, ${price}` : ''}`,
                  onclick: () => open(u._id),
                },
                h('span', { class: 'mark', 'aria-hidden': 'true' }, mark(u.availability)),
                h('span', { class: 'cname' }, u.name),
              );
            }),
          ),
        );
      }),
    ),
  );
}
