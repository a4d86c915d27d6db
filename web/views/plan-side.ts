/**
 * On a desktop, the floor's units listed beside its plan, kept in step with it: pointing at a row lights its shape
 * and pointing at a shape lights (and scrolls to) its row; the open unit is marked in both. On a phone the list is
 * not drawn beside the plan (the List view is one tap away).
 */
import { byId, h } from '../dom.ts';
import { t } from '../i18n.ts';
import { floorUnits, matches, settingsRev, showsStatus, state } from '../state.ts';
import { factsLine, priceText } from '../format.ts';
import type { Floor, Unit } from '../types.ts';
import { badge } from './unit-parts.ts';

let wrap: HTMLElement | undefined;
let main: HTMLElement | undefined;
let side: HTMLElement;
let key = '';

function light(id: string | undefined, scroll: boolean) {
  for (const el of document.querySelectorAll('.lit')) el.classList.remove('lit');
  if (!id) return;
  byId(`shape-${id}`)?.classList.add('lit');
  const row = byId(`side-${id}`);
  row?.classList.add('lit');
  if (scroll && row) row.scrollIntoView({ block: 'nearest' });
}

export function planWithList(plan: HTMLElement, floor: Floor, open: (id: string) => void): HTMLElement {
  if (!wrap || !main) {
    side = h('ul', { class: 'side-list', id: 'side-list', 'aria-label': t().units });
    main = h('div', { class: 'plan-main' });
    wrap = h('div', { class: 'plan-split', id: 'plan-split' }, main, side);
    // Shapes are redrawn with the bundle: listen on the plan, not on each shape.
    wrap.addEventListener('mouseover', (e) => {
      const shape = e.target instanceof Element ? e.target.closest('path.shape[data-unit]') : null;
      if (shape) light((shape as SVGElement).dataset.unit, true);
    });
    wrap.addEventListener('mouseleave', () => light(state.view.unit, false));
  }
  if (main.firstChild !== plan) main.replaceChildren(plan);
  const units = floorUnits(floor).filter((u): u is Unit => u.stub !== true && matches(u));
  const next = JSON.stringify([
    floor._id,
    units.map((u) => [u._id, u.name, u.availability, u.price, u.bedrooms, u.squareFeet]),
    document.documentElement.lang,
    state.view.unit,
    showsStatus(),
    settingsRev(),
  ]);
  if (next !== key) {
    key = next;
    side.replaceChildren(
      ...units.map((u) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: `side-row${state.view.unit === u._id ? ' current' : ''}`,
              id: `side-${u._id}`,
              'data-unit': u._id,
              'aria-current': state.view.unit === u._id ? 'true' : undefined,
              onclick: () => open(u._id),
              onmouseenter: () => light(u._id, false),
              onfocus: () => light(u._id, false),
            },
            h('span', { class: 'side-head' }, h('strong', {}, u.name), badge(u)),
            h('span', { class: 'facts' }, [factsLine(u), priceText(u)].filter(Boolean).join(' · ')),
          ),
        ),
      ),
    );
  }
  for (const el of wrap.querySelectorAll('path.shape.current')) el.classList.remove('current');
  if (state.view.unit) byId(`shape-${state.view.unit}`)?.classList.add('current');
  return wrap;
}
