/** The building: the picture of it with the floors drawn over it (building-picture.ts) and its 3D models
 * (building-3d.ts) when the project has them; then floors as rows (top floor first), units as cells coloured by
 * status, available count per floor (one neutral colour and no count where the project hides availability). */
import { fillInTasks, h, type Later } from '../dom.ts';
import { t } from '../i18n.ts';
import { floorUnits, matches, loaded, showsStatus, shownStatus } from '../state.ts';
import { fromPrice, priceText, statusText } from '../format.ts';
import { legend, mark } from './legend.ts';
import { isHome } from '../counting.ts';
import { buildingPicture } from './building-picture.ts';
import { building3d } from './building-3d.ts';

/** The floors drawn with the first screen; on the first draw the rest follow, as many to a task (`later`). */
const FIRST_ROWS = 3;

export function buildingView(open: (unitId: string) => void, pickFloor: (floorId: string) => void, later?: Later): HTMLElement {
  const floors = [...loaded().floors].sort((a, b) => b.position - a.position);
  const statuses = floors.flatMap((f) => floorUnits(f).map((u) => u.availability));
  const shows = showsStatus();
  const rows = fillInTasks(h('ol', { class: 'floor-rows', 'aria-label': t().building }), floors, row, later, FIRST_ROWS, FIRST_ROWS);
  return h(
    'div',
    { class: 'building', id: 'building' },
    h('div', { class: 'building-head' }, h('h2', { class: 'section-title' }, t().chooseFloor), shows ? legend(statuses, 'building-legend') : undefined),
    buildingPicture(pickFloor),
    building3d(pickFloor),
    rows,
  );
  function openCell(e: Event) {
    const cell = (e.target as Element).closest('button.cell');
    if (cell) open(cell.id.slice('cell-'.length));
  }
  function row(f: (typeof floors)[number]) {
    const units = floorUnits(f);
    const free = units.filter((u) => u.availability === 'available' && isHome(u) && matches(u)).length;
    return h(
      'li',
      { class: 'floor-row' },
      h(
        'button',
        { type: 'button', class: 'floor-name', id: `bfloor-${f._id}`, onclick: () => pickFloor(f._id) },
        h('span', { class: 'fname' }, f.name),
        shows ? h('span', { class: 'fcount' }, t().floorAvailable(free)) : undefined,
        h('span', { class: 'ffrom', id: `bfrom-${f._id}` }, fromPrice(units)),
      ),
      h(
        'div',
        // One listener for the row's cells (a cell's id is `cell-<unit id>`), not one per cell.
        { class: 'cells', onclick: openCell },
        ...units.map((u) => {
          // A hidden sold unit's room: without statuses, a neutral cell that says nothing.
          if (u.stub && !shows) return h('span', { class: 'cell s-none stub', 'aria-hidden': 'true' });
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
              class: `cell s-${shownStatus(u.availability)}${matches(u) ? '' : ' dim'}`,
              id: `cell-${u._id}`,
              'data-availability': shows ? u.availability : undefined,
              'aria-label': [u.name, shows ? `: ${statusText(u.availability)}` : '', price ? `, ${price}` : ''].join(''),
            },
            shows ? h('span', { class: 'mark', 'aria-hidden': 'true' }, mark(u.availability)) : undefined,
            h('span', { class: 'cname' }, u.name),
          );
        }),
      ),
    );
  }
}
