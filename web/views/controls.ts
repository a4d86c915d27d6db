/**
 * The toolbar (views, floors, count, sort, clear) and the filter panel. Built once; later changes update it in
 * place, so an input being typed in is never replaced (its caret and value stay where the visitor left them).
 */
import { byId, requireById, h, isPhone } from '../dom.ts';
import { t } from '../i18n.ts';
import { bound, FILTER_KEYS, filtersActive, flag, listedUnits, settings, state, type FilterKey, type Sort, type View, loaded } from '../state.ts';
import { areaUnit, showsArea, showsPrices, statusText } from '../format.ts';
import { activeFilterCount, isHome } from '../counting.ts';
import { x } from '../extra-words.ts';
import { shortlistButton, updateShortlistButton } from './shortlist.ts';

export interface ControlActions {
  setView(view: View): void;
  setFloor(id: string): void;
  setFilter(key: FilterKey, value: string): void;
  setSort(sort: Sort): void;
  clearFilters(): void;
}

let actions: ControlActions;

const tab = (view: View, label: string) =>
  h('button', { type: 'button', id: `view-${view}`, class: 'tab', 'aria-pressed': 'false', onclick: () => actions.setView(view) }, label);
const numberField = (key: FilterKey, label: string) =>
  h(
    'label',
    { class: 'field' },
    label,
    // Text, not type=number: digits are typed as they are, a thousands separator is allowed, and nothing reformats.
    h('input', {
      id: `f-${key}`,
      name: key,
      type: 'text',
      inputmode: 'numeric',
      autocomplete: 'off',
      pattern: '[0-9 ,.]*',
      value: state.view.filters[key],
      oninput: (e: Event) => actions.setFilter(key, (e.target as HTMLInputElement).value),
    }),
  );
const select = (key: 'bedrooms' | 'availability', label: string) =>
  h(
    'label',
    { class: 'field' },
    label,
    h('select', { id: `f-${key}`, name: key, onchange: (e: Event) => actions.setFilter(key, (e.target as HTMLSelectElement).value) }),
  );

/** The filters: a sheet on a phone, a row on a desktop. */
function filterSheet(): HTMLElement {
  const prices = settings().showPriceFilter !== false && showsPrices();
  const areas = settings().showAreaFilter !== false && showsArea();
  const sheet = h(
    'div',
    { id: 'filter-sheet', class: 'filter-sheet' },
    h(
      'form',
      {
        class: 'filters',
        role: 'search',
        'aria-label': t().filters,
        onsubmit: (e: Event) => {
          e.preventDefault();
          closeSheet();
        },
      },
      h('h2', { class: 'sheet-title' }, t().filters),
      prices ? numberField('priceMin', t().priceMin) : undefined,
      prices ? numberField('priceMax', t().priceMax) : undefined,
      areas ? numberField('areaMin', `${t().areaMin} (${areaUnit()})`) : undefined,
      areas ? numberField('areaMax', `${t().areaMax} (${areaUnit()})`) : undefined,
      !flag('hideBedrooms') && !flag('landOnly') ? select('bedrooms', t().bedrooms) : undefined,
      settings().showAvailability !== false ? select('availability', t().availability) : undefined,
      h(
        'div',
        { class: 'sheet-actions' },
        h('button', { type: 'button', class: 'link', id: 'sheet-clear', onclick: () => actions.clearFilters() }, t().clearFilters),
        h('button', { type: 'submit', class: 'primary', id: 'filters-done' }, t().showHomes(0)),
      ),
    ),
  );
  sheet.addEventListener('click', (e) => {
    if (e.target === sheet) closeSheet();
  });
  sheet.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') closeSheet();
  });
  return sheet;
}

function sortSelect(): HTMLSelectElement {
  return h(
    'select',
    { id: 'sort', 'aria-label': t().sort, onchange: (e: Event) => actions.setSort((e.target as HTMLSelectElement).value as Sort) },
    ...(
      [
        ['default', t().sortDefault],
        ...(showsPrices()
          ? [
              ['price-asc', t().sortPriceAsc],
              ['price-desc', t().sortPriceDesc],
            ]
          : []),
        ...(showsArea() ? [['area-desc', t().sortArea]] : []),
        ['name', t().sortName],
      ] as [string, string][]
    ).map(([v, label]) => h('option', { value: v }, label)),
  );
}

export function buildControls(a: ControlActions): HTMLElement {
  actions = a;
  const sheet = filterSheet();
  return h(
    'section',
    { class: 'controls', 'aria-label': t().filters },
    h(
      'div',
      { class: 'bar' },
      h(
        'div',
        { class: 'tabs', role: 'group', 'aria-label': t().view },
        flag('skipFloorStep') ? undefined : tab('building', t().building),
        tab('plan', t().plan),
        tab('list', t().list),
      ),
      h(
        'label',
        { class: 'search' },
        h('span', { class: 'visually-hidden' }, x().searchPlaceholder),
        h('input', {
          id: 'f-search',
          name: 'search',
          type: 'search',
          autocomplete: 'off',
          placeholder: x().search,
          value: state.view.filters.search,
          maxlength: '40',
          oninput: (e: Event) => actions.setFilter('search', (e.target as HTMLInputElement).value),
        }),
      ),
      shortlistButton(),
      h(
        'button',
        { type: 'button', id: 'filters-toggle', class: 'chip filters-toggle', 'aria-controls': 'filter-sheet', 'aria-expanded': 'false', onclick: openSheet },
        t().filtersButton,
        ' ',
        h('span', { id: 'filters-toggle-count', class: 'count-pill' }),
      ),
    ),
    h('nav', { class: 'floors', id: 'floors', 'aria-label': t().floors }),
    sheet,
    h(
      'div',
      { class: 'result-bar' },
      h('p', { id: 'result-count', role: 'status', 'aria-live': 'polite' }),
      h('button', { type: 'button', class: 'link', id: 'clear-filters', hidden: true, onclick: () => actions.clearFilters() }, t().clearFilters),
      h('label', { class: 'sort' }, `${t().sort} `, sortSelect()),
    ),
  );
}

function openSheet() {
  requireById('filter-sheet').classList.add('open');
  requireById('filters-toggle').setAttribute('aria-expanded', 'true');
  document.body.classList.add('sheet-open');
  requireById<HTMLInputElement>('filter-sheet').querySelector<HTMLElement>('input, select')?.focus();
}

export function closeSheet() {
  const sheet = byId('filter-sheet');
  if (!sheet?.classList.contains('open')) return;
  sheet.classList.remove('open');
  document.body.classList.remove('sheet-open');
  byId('filters-toggle')?.setAttribute('aria-expanded', 'false');
  // Where the filters are a sheet over the page (a phone's, or `styleFilter` panel's), focus goes back to its button.
  if (isPhone() || document.documentElement.dataset.filter === 'panel') byId('filters-toggle')?.focus();
}

/** Brings the toolbar in line with the state and the bundle without replacing anything being typed in. */
export function updateControls() {
  const v = state.view;
  for (const view of ['building', 'plan', 'list'] as const) byId(`view-${view}`)?.setAttribute('aria-pressed', String(v.view === view));
  // Floors: a chip per floor on the plan (one plan at a time); on the list "All floors" as well.
  const floors = requireById('floors');
  const b = loaded();
  const chips = v.view === 'building' || flag('skipFloorStep') ? [] : [...(v.view === 'list' ? [{ _id: '', name: t().allFloors }] : []), ...b.floors];
  const key = chips.map((f) => `${f._id}:${f.name}`).join('|');
  if (floors.dataset.key !== key) {
    floors.dataset.key = key;
    floors.replaceChildren(
      ...chips.map((f) =>
        h('button', { type: 'button', id: `floor-${f._id || 'all'}`, class: 'chip', 'aria-pressed': 'false', onclick: () => actions.setFloor(f._id) }, f.name),
      ),
    );
  }
  floors.hidden = chips.length === 0;
  for (const f of chips) byId(`floor-${f._id || 'all'}`)?.setAttribute('aria-pressed', String(v.floor === f._id));
  // Values: only into fields the visitor is not typing in (back/forward and "clear" change them).
  for (const k of FILTER_KEYS) {
    const el = byId<HTMLInputElement | HTMLSelectElement>(`f-${k}`);
    if (el && document.activeElement !== el && el.value !== v.filters[k]) el.value = v.filters[k];
  }
  fillSelect(
    'bedrooms',
    [...new Set(allBedrooms())].sort().map((x) => [x, x]),
  );
  fillSelect(
    'availability',
    Object.keys(t().status).map((x) => [x, statusText(x)]),
  );
  const sort = byId<HTMLSelectElement>('sort');
  if (sort && sort.value !== v.sort) sort.value = v.sort;
  const n = listedUnits().length;
  const active = filtersActive();
  requireById('result-count').textContent = t().homes(n);
  requireById('clear-filters').hidden = !active;
  requireById('filters-done').textContent = t().showHomes(n);
  // The filters that are on (a range is one), not the results: the result count is said beside it.
  const on = activeFilterCount(v.filters);
  updateShortlistButton();
  requireById('filters-toggle-count').textContent = on ? String(on) : '';
  for (const k of ['priceMin', 'priceMax', 'areaMin', 'areaMax'] as const) {
    const el = byId(`f-${k}`);
    if (el) el.setAttribute('aria-invalid', String(v.filters[k] !== '' && bound(v.filters[k]) === undefined));
  }
}

const allBedrooms = () =>
  loaded()
    .floors.flatMap((f) => f.units)
    .concat(loaded().unassignedUnits)
    .filter(isHome)
    .map((u) => u.bedrooms)
    .filter((x): x is string => typeof x === 'string' && x !== '');

function fillSelect(key: 'bedrooms' | 'availability', options: [string, string][]) {
  const el = byId<HTMLSelectElement>(`f-${key}`);
  if (!el) return;
  const want = options.map(([v, l]) => `${v}=${l}`).join('|');
  if (el.dataset.key !== want) {
    el.dataset.key = want;
    el.replaceChildren(h('option', { value: '' }, t().any), ...options.map(([v, label]) => h('option', { value: v }, label)));
  }
  if (el.value !== state.view.filters[key]) el.value = state.view.filters[key];
}
