/**
 * The interactive presentation page. It reads only the public API (bundle, leads, hold), so anything it shows a
 * third-party page could show too. Plain TypeScript and the DOM: the page is one bundle revalidated every few
 * seconds and a handful of views, which needs no framework.
 */
import { wordsFor, type Words } from './i18n.ts';

type Dict = Record<string, unknown>;
interface Unit extends Dict {
  _id: string;
  name: string;
  availability: string;
  floor?: string;
  price?: number;
  squareFeet?: number;
  bedrooms?: string;
  bathrooms?: number;
  parking?: number;
  onHoldExpiresAt?: string;
  path?: string;
}
interface Floor extends Dict {
  _id: string;
  name: string;
  position: number;
  floorplanUrl?: string;
  units: Unit[];
}
interface Bundle {
  project: Dict & { _id: string; name: string };
  floors: Floor[];
  unassignedUnits: Unit[];
}

const body = document.body;
const namespace = body.dataset.namespace ?? '';
const bundleUrl = body.dataset.bundle ?? `/public/projects/${encodeURIComponent(namespace)}`;
const app = document.getElementById('app')!;

const state = {
  bundle: undefined as Bundle | undefined,
  etag: undefined as string | undefined,
  floor: 'all' as string,
  view: 'list' as 'list' | 'plan',
  filters: { priceMin: '', priceMax: '', areaMin: '', areaMax: '', bedrooms: '', availability: '' },
  open: undefined as string | undefined,
  holds: new Map<string, string>(),
  notice: new Map<string, string>(),
};
let t: Words = wordsFor('en').t;

// ---------- helpers ----------

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Dict = {}, ...children: (Node | string | false | undefined)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v as EventListener);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== undefined && c !== false) el.append(c);
  return el;
}

const svgNs = 'http://www.w3.org/2000/svg';
const settings = () => state.bundle!.project;
const flag = (name: string) => settings()[name] === true;

function money(n: number) {
  const currency = typeof settings().chargeCurrency === 'string' ? String(settings().chargeCurrency).toUpperCase() : 'USD';
  try {
    return new Intl.NumberFormat(document.documentElement.lang, { style: 'currency', currency, maximumFractionDigits: 0 }).format(n);
  } catch {
    return `$${Math.round(n).toLocaleString()}`;
  }
}

function priceText(u: Unit): string | undefined {
  if (settings().showPrices === false) return undefined;
  if (u.unitPriceTBD === true || typeof u.price !== 'number') return t.tbd;
  const taxes = flag('showTaxes') ? ` ${settings().priceBeforeTax === false ? t.taxesIncluded : t.plusTaxes}` : '';
  return `${flag('pricesStartingAt') ? `${t.from} ` : ''}${money(u.price)}${taxes}`;
}

/** A link or image address from the bundle, if it is http(s) or relative: never `javascript:` or `data:` text. */
function safeUrl(v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  try {
    const url = new URL(v, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function clock(iso: string) {
  return new Date(iso).toLocaleTimeString(document.documentElement.lang, { hour: '2-digit', minute: '2-digit' });
}

const areaUnit = () => (typeof settings().areaUnit === 'string' && settings().areaUnit ? String(settings().areaUnit) : 'sq ft');

function allUnits(): Unit[] {
  const b = state.bundle!;
  return [...b.floors.flatMap((f) => f.units), ...b.unassignedUnits];
}

function unitsInView(): Unit[] {
  const b = state.bundle!;
  let units = state.floor === 'all' ? allUnits() : (b.floors.find((f) => f._id === state.floor)?.units ?? []);
  const f = state.filters;
  const num = (v: string) => (v === '' ? undefined : Number(v));
  const [pMin, pMax, aMin, aMax] = [num(f.priceMin), num(f.priceMax), num(f.areaMin), num(f.areaMax)];
  units = units.filter((u) => {
    // A price to be determined is no price: it matches no price range.
    const price = u.unitPriceTBD === true ? undefined : u.price;
    if (pMin !== undefined && !(typeof price === 'number' && price >= pMin)) return false;
    if (pMax !== undefined && !(typeof price === 'number' && price <= pMax)) return false;
    if (aMin !== undefined && !(typeof u.squareFeet === 'number' && u.squareFeet >= aMin)) return false;
    if (aMax !== undefined && !(typeof u.squareFeet === 'number' && u.squareFeet <= aMax)) return false;
    if (f.bedrooms && String(u.bedrooms ?? '') !== f.bedrooms) return false;
    if (f.availability && u.availability !== f.availability) return false;
    return true;
  });
  if (flag('showAvailableFirst')) units = [...units].sort((a, b) => Number(b.availability === 'available') - Number(a.availability === 'available'));
  return units;
}

// ---------- rendering ----------

function applyTheme() {
  const s = settings();
  const vars: Record<string, unknown> = {
    '--base': s.colorBase,
    '--accent': s.colorAccent ?? s.accentColor,
    '--hover': s.colorHover,
    '--button': s.colorButton,
    '--button-text': s.colorButtonText,
    '--text': s.colorText,
    '--featured': s.colorFeatured,
    '--available': s.colorAvailable,
    '--sold': s.colorSold,
    '--reserved': s.colorReserved,
  };
  const root = document.documentElement;
  for (const [k, v] of Object.entries(vars)) {
    if (typeof v === 'string' && /^#[0-9a-fA-F]{3,8}$|^[a-z]+$|^rgba?\([\d\s.,%]+\)$/.test(v)) root.style.setProperty(k, v);
  }
  keepReadable();
}

/**
 * A project may pick any colours; the words drawn on or in them must stay readable (WCAG AA, 4.5:1). Text on a
 * coloured background (badges, pressed chips, buttons) becomes white or near-black, whichever reads better; a
 * colour used as text on the white surface falls back to the text colour when it is too light.
 */
function keepReadable() {
  const root = document.documentElement;
  const probe = document.createElement('span');
  document.body.append(probe);
  const luminance = (color: string) => {
    probe.style.color = '';
    probe.style.color = color;
    const [r = 0, g = 0, b = 0] = (getComputedStyle(probe).color.match(/[\d.]+/g) ?? []).map(Number).map((c) => {
      const x = c / 255;
      return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a: string, b: string) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x! + 0.05) / (y! + 0.05);
  };
  const css = getComputedStyle(root);
  const value = (name: string) => css.getPropertyValue(name).trim();
  const on = (bg: string) => (contrast('#ffffff', bg) >= contrast('#111111', bg) ? '#ffffff' : '#111111');
  for (const name of ['base', 'available', 'on-hold', 'reserved', 'sold', 'leased', 'unavailable']) root.style.setProperty(`--on-${name}`, on(value(`--${name}`)));
  if (contrast(value('--button-text'), value('--button')) < 4.5) root.style.setProperty('--button-text', on(value('--button')));
  if (contrast(value('--button-text'), value('--hover')) < 4.5) root.style.setProperty('--button-hover-text', on(value('--hover')));
  for (const name of ['base', 'available']) root.style.setProperty(`--${name}-ink`, contrast(value(`--${name}`), value('--surface')) >= 4.5 ? `var(--${name})` : 'var(--text)');
  probe.remove();
}

const UNLOCKED = `showsuite:unlocked:${namespace}`;

/**
 * `lockScreen`: the visitor introduces themselves before seeing the units (a lead-capture gate, not access
 * control: the bundle is public). The lock* switches choose the fields; the answer is sent as a lead when
 * forms are enabled, and the page stays unlocked for the rest of the visit.
 */
function lockScreen() {
  const s = settings();
  const status = h('p', { class: 'form-status', id: 'lock-status', role: 'status' });
  const field = (on: unknown, name: string, label: string, type: string, autocomplete: string) =>
    on === true
      ? h('label', {}, label, h('input', { id: `lock-${name}`, name, type, required: true, autocomplete }), h('span', { class: 'field-error', id: `lock-${name}-error` }))
      : undefined;
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'lock',
      id: 'lock-form',
      novalidate: true,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const data = formData(form);
        const missing = [...form.querySelectorAll<HTMLInputElement>('input[required]')].filter((i) => !data[i.name]);
        if (missing.length) return showErrors(form, 'lock', { errors: missing.map((i) => ({ path: `/${i.name}`, message: t.required })) });
        // A lead needs a name, an e-mail and a phone; a lock screen that asks for less just lets the visitor in.
        if (flag('enableForms') && data.firstName && data.lastName && data.email && data.phone) {
          const res = await fetch('/public/leads', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
            body: JSON.stringify({ ...data, project: s._id, source: 'lock-screen' }),
          }).catch(() => undefined);
          if (res?.status === 400) return showErrors(form, 'lock', await res.json());
          if (res && res.status !== 201) {
            status.textContent = res.status === 429 ? t.tooMany : t.failed;
            return;
          }
        }
        sessionStorage.setItem(UNLOCKED, '1');
        render();
      },
    },
    h('h2', {}, t.lockTitle),
    h('p', {}, t.lockIntro),
    field(s.lockScreenName, 'firstName', t.firstName, 'text', 'given-name'),
    field(s.lockScreenName, 'lastName', t.lastName, 'text', 'family-name'),
    field(s.lockScreenEmail, 'email', t.email, 'email', 'email'),
    field(s.lockScreenPhone, 'phone', t.phone, 'tel', 'tel'),
    s.lockScreenMessage === true ? h('label', {}, t.message, h('textarea', { id: 'lock-message', name: 'message', rows: '3' })) : undefined,
    h('button', { type: 'submit', class: 'primary', id: 'lock-submit' }, t.enter),
    status,
  );
  return form;
}

function render() {
  const b = state.bundle;
  if (!b) return;
  if (flag('lockScreen') && sessionStorage.getItem(UNLOCKED) !== '1') {
    if (!document.getElementById('lock-form')) app.replaceChildren(h('header', { class: 'top' }, h('h1', {}, b.project.name)), lockScreen());
    return;
  }
  const focused = document.activeElement?.id;
  const parts: (HTMLElement | undefined)[] = [
    h('header', { class: 'top' }, h('h1', {}, b.project.name), typeof b.project.address === 'string' ? h('p', { class: 'address' }, b.project.address) : undefined),
    flag('showFloorOverview') ? overview() : undefined,
    controls(),
    h('main', { id: 'units', 'aria-live': 'polite' }, state.view === 'plan' ? planView() : listView()),
    flag('showBranding') || settings().showBranding === undefined ? h('footer', { class: 'brand' }, t.poweredBy) : undefined,
  ];
  app.replaceChildren(...parts.filter((p): p is HTMLElement => p !== undefined));
  labelShapes();
  renderDialog();
  if (focused) document.getElementById(focused)?.focus();
}

function overview() {
  return h(
    'section',
    { class: 'overview', 'aria-label': t.overview },
    h('h2', {}, t.overview),
    h(
      'ul',
      {},
      ...state.bundle!.floors.map((f) => {
        const text = `${f.name}: ${f.units.filter((u) => u.availability === 'available').length} ${t.availableCount}`;
        return h('li', {}, flag('skipFloorStep') ? text : h('button', { type: 'button', class: 'link', onclick: () => selectFloor(f._id) }, text));
      }),
    ),
  );
}

function controls() {
  const b = state.bundle!;
  const floorButtons = flag('skipFloorStep')
    ? undefined
    : h(
        'nav',
        { class: 'floors', 'aria-label': t.floors },
        ...[{ _id: 'all', name: t.allFloors }, ...b.floors].map((f) =>
          h('button', { type: 'button', id: `floor-${f._id}`, class: 'chip', 'aria-pressed': String(state.floor === f._id), onclick: () => selectFloor(f._id) }, f.name),
        ),
      );
  const views = h(
    'div',
    { class: 'views', role: 'group', 'aria-label': t.plan },
    h('button', { type: 'button', id: 'view-list', class: 'chip', 'aria-pressed': String(state.view === 'list'), onclick: () => setView('list') }, t.list),
    h('button', { type: 'button', id: 'view-plan', class: 'chip', 'aria-pressed': String(state.view === 'plan'), onclick: () => setView('plan') }, t.plan),
  );
  const field = (key: keyof typeof state.filters, label: string, extra: Dict = {}) =>
    h('label', {}, label, h('input', { id: `f-${key}`, name: key, type: 'number', min: '0', inputmode: 'numeric', value: state.filters[key], oninput: (e: Event) => setFilter(key, (e.target as HTMLInputElement).value), ...extra }));
  const bedroomValues = [...new Set(allUnits().map((u) => u.bedrooms).filter((x): x is string => typeof x === 'string' && x !== ''))].sort();
  const select = (key: 'bedrooms' | 'availability', label: string, options: [string, string][]) =>
    h(
      'label',
      {},
      label,
      h(
        'select',
        { id: `f-${key}`, name: key, onchange: (e: Event) => setFilter(key, (e.target as HTMLSelectElement).value) },
        h('option', { value: '' }, t.any),
        ...options.map(([v, text]) => h('option', { value: v, selected: state.filters[key] === v }, text)),
      ),
    );
  const filters = h(
    'fieldset',
    { class: 'filters' },
    h('legend', {}, t.filters),
    settings().showPriceFilter !== false && settings().showPrices !== false ? field('priceMin', t.priceMin) : undefined,
    settings().showPriceFilter !== false && settings().showPrices !== false ? field('priceMax', t.priceMax) : undefined,
    settings().showAreaFilter !== false && !flag('hideArea') ? field('areaMin', `${t.areaMin} (${areaUnit()})`) : undefined,
    settings().showAreaFilter !== false && !flag('hideArea') ? field('areaMax', `${t.areaMax} (${areaUnit()})`) : undefined,
    !flag('hideBedrooms') && bedroomValues.length ? select('bedrooms', t.bedrooms, bedroomValues.map((v) => [v, v])) : undefined,
    settings().showAvailability !== false ? select('availability', t.availability, Object.keys(t.status).map((s) => [s, t.status[s]!])) : undefined,
  );
  return h('section', { class: 'controls' }, floorButtons, views, filters);
}

function facts(u: Unit): string {
  const parts: string[] = [];
  if (!flag('hideBedrooms') && u.bedrooms) parts.push(`${u.bedrooms} ${t.beds}`);
  if (typeof u.bathrooms === 'number') parts.push(`${u.bathrooms} ${t.baths}`);
  if (!flag('hideArea') && typeof u.squareFeet === 'number') parts.push(`${u.squareFeet.toLocaleString()} ${areaUnit()}`);
  return parts.join(' · ');
}

function statusBadge(u: Unit) {
  return h('span', { class: `badge s-${u.availability}` }, t.status[u.availability] ?? u.availability);
}

function listView() {
  const units = unitsInView();
  if (!units.length) return h('p', { class: 'empty' }, t.noUnits);
  const imageKind = settings().unitImageOnGrid;
  return h(
    'ul',
    { class: 'grid', 'aria-label': t.units },
    ...units.map((u) => {
      const img = safeUrl(imageKind === 'Unit Plan' ? (u.layoutUrl ?? u.unitImageUrl) : (u.unitImageUrl ?? (u.images as string[] | undefined)?.[0] ?? u.layoutUrl));
      const price = priceText(u);
      return h(
        'li',
        {},
        h(
          'button',
          { type: 'button', class: `card s-${u.availability}`, id: `unit-${u._id}`, 'data-unit': u._id, 'data-availability': u.availability, onclick: () => openUnit(u._id) },
          img ? h('img', { src: img, alt: '', loading: 'lazy' }) : undefined,
          h('span', { class: 'name' }, u.name),
          statusBadge(u),
          h('span', { class: 'facts' }, facts(u)),
          price ? h('span', { class: 'price' }, price) : undefined,
        ),
      );
    }),
  );
}

function planView() {
  const b = state.bundle!;
  const floors = state.floor === 'all' ? b.floors : b.floors.filter((f) => f._id === state.floor);
  const visible = new Set(unitsInView().map((u) => u._id));
  const statuses = [...new Set(floors.flatMap((f) => f.units.filter((u) => u.path && visible.has(u._id)).map((u) => u.availability)))];
  // Colour is never the only cue (WCAG 1.4.1): a legend names each colour, shapes carry the unit's name.
  const legend = statuses.length
    ? h('ul', { class: 'legend', 'aria-label': t.legend }, ...statuses.map((s) => h('li', {}, h('span', { class: `swatch s-${s}`, 'aria-hidden': 'true' }), t.status[s] ?? s)))
    : undefined;
  return h(
    'div',
    { class: 'plans' },
    legend,
    ...floors.map((f) => {
      const svg = document.createElementNS(svgNs, 'svg');
      svg.setAttribute('viewBox', typeof f.viewBox === 'string' ? f.viewBox : '0 0 600 300');
      svg.setAttribute('role', 'group');
      svg.setAttribute('aria-label', f.name);
      for (const u of f.units) {
        if (!u.path || !visible.has(u._id)) continue;
        const p = document.createElementNS(svgNs, 'path');
        p.setAttribute('d', u.path);
        p.setAttribute('class', `shape s-${u.availability}`);
        p.setAttribute('tabindex', '0');
        p.setAttribute('role', 'button');
        p.setAttribute('id', `shape-${u._id}`);
        p.setAttribute('data-unit', u._id);
        p.setAttribute('data-availability', u.availability);
        p.setAttribute('aria-label', `${u.name}: ${t.status[u.availability] ?? u.availability}`);
        const title = document.createElementNS(svgNs, 'title');
        title.textContent = `${u.name} · ${t.status[u.availability] ?? u.availability}${priceText(u) ? ` · ${priceText(u)}` : ''}`;
        p.append(title);
        p.addEventListener('click', () => openUnit(u._id));
        p.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            openUnit(u._id);
          }
        });
        svg.append(p);
      }
      return h(
        'figure',
        { class: 'plan' },
        h('div', { class: 'plan-frame' }, safeUrl(f.floorplanUrl) ? h('img', { src: safeUrl(f.floorplanUrl), alt: '' }) : undefined, svg),
        h('figcaption', {}, f.name),
      );
    }),
  );
}

/** Writes each unit's name in the middle of its shape (measurable only once the drawing is in the document). */
function labelShapes() {
  for (const shape of app.querySelectorAll<SVGPathElement>('path.shape')) {
    const box = shape.getBBox();
    if (!box.width || !box.height) continue;
    const label = document.createElementNS(svgNs, 'text');
    label.setAttribute('class', 'shape-label');
    label.setAttribute('x', String(box.x + box.width / 2));
    label.setAttribute('y', String(box.y + box.height / 2));
    label.setAttribute('font-size', String(Math.max(10, Math.min(28, box.height / 4, box.width / 4))));
    label.setAttribute('aria-hidden', 'true');
    label.textContent = findUnit(shape.dataset.unit ?? '')?.name ?? '';
    shape.after(label);
  }
}

// ---------- unit detail, enquiry, hold ----------

const dialog = h('dialog', { id: 'unit-dialog', 'aria-labelledby': 'unit-title' });
document.body.append(dialog);
dialog.addEventListener('close', () => {
  const id = state.open;
  state.open = undefined;
  dialogKey = '';
  window.clearInterval(countdown);
  // Back to what opened it: the unit's card in the list, its shape on the plan.
  if (id) (document.getElementById(`unit-${id}`) ?? document.getElementById(`shape-${id}`))?.focus();
});

function findUnit(id: string) {
  return allUnits().find((u) => u._id === id);
}

function openUnit(id: string) {
  state.open = id;
  renderDialog();
  if (!dialog.open) dialog.showModal();
}

let countdown: number | undefined;
let dialogKey = '';

/** Re-drawn only when what it shows changes, so a visitor's half-typed form survives a bundle refresh. */
function renderDialog() {
  if (!state.open || !state.bundle) return;
  const u = findUnit(state.open);
  if (!u) {
    dialog.close();
    return;
  }
  const key = `${u._id}|${u.availability}|${u.price}|${state.holds.get(u._id) ?? ''}|${state.notice.get(u._id) ?? ''}`;
  if (key === dialogKey && dialog.open) return;
  dialogKey = key;
  const price = priceText(u);
  const info = (u.additionalInfo as { label?: string; value?: string }[] | undefined) ?? [];
  const images = [...new Set([...(Array.isArray(u.images) ? u.images : []), u.unitImageUrl].map(safeUrl).filter((x): x is string => x !== undefined))];
  const [brochure, layout] = [safeUrl(u.brochurePDF), safeUrl(u.layoutUrl)];
  const active = document.activeElement?.id;
  dialog.replaceChildren(
    h(
      'div',
      { class: 'detail' },
      h('button', { type: 'button', class: 'close', id: 'close-dialog', 'aria-label': t.close, onclick: () => dialog.close() }, '×'),
      h('h2', { id: 'unit-title' }, u.name, ' ', statusBadge(u)),
      images.length ? h('div', { class: 'gallery' }, ...images.slice(0, 6).map((src, i) => h('img', { src, alt: `${u.name} (${i + 1}/${Math.min(images.length, 6)})`, loading: 'lazy' }))) : undefined,
      price ? h('p', { class: 'price', id: 'unit-price' }, price) : undefined,
      h(
        'dl',
        { class: 'facts' },
        ...([
          !flag('hideArea') && typeof u.squareFeet === 'number' ? [t.area, `${u.squareFeet.toLocaleString()} ${areaUnit()}`] : undefined,
          !flag('hideBedrooms') && u.bedrooms ? [t.bedrooms, u.bedrooms] : undefined,
          typeof u.bathrooms === 'number' ? [t.bathroomsLabel, String(u.bathrooms)] : undefined,
          typeof u.parking === 'number' ? [t.parkingLabel, String(u.parking)] : undefined,
          typeof u.orientation === 'string' ? [t.orientation, u.orientation] : undefined,
          ...info.map((i) => [i.label ?? '', i.value ?? '']),
        ].filter(Boolean) as [string, string][]).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
      ),
      typeof u.description === 'string' ? h('p', { class: 'description' }, u.description) : undefined,
      brochure || layout
        ? h(
            'p',
            { class: 'links' },
            brochure ? h('a', { href: brochure, target: '_blank', rel: 'noopener', id: 'unit-brochure' }, t.brochure) : undefined,
            layout ? h('a', { href: layout, target: '_blank', rel: 'noopener', id: 'unit-layout' }, t.layout) : undefined,
          )
        : undefined,
      holdSection(u),
      flag('enableForms') ? enquiryForm(u) : undefined,
    ),
  );
  if (active) document.getElementById(active)?.focus();
  window.clearInterval(countdown);
  const mine = state.holds.get(u._id);
  if (mine) {
    const tick = () => {
      const el = document.getElementById('hold-countdown');
      const left = Math.max(0, Date.parse(mine) - Date.now());
      if (el) el.textContent = `${t.heldFor} ${Math.floor(left / 60000)}:${String(Math.floor((left % 60000) / 1000)).padStart(2, '0')}`;
      if (left === 0) window.clearInterval(countdown);
    };
    tick();
    countdown = window.setInterval(tick, 1000);
  }
}

function visitorFields(prefix: string) {
  const input = (name: string, label: string, type: string, autocomplete: string) =>
    h('label', {}, label, h('input', { id: `${prefix}-${name}`, name, type, required: true, autocomplete }), h('span', { class: 'field-error', id: `${prefix}-${name}-error`, 'aria-live': 'polite' }));
  return [
    input('firstName', t.firstName, 'text', 'given-name'),
    input('lastName', t.lastName, 'text', 'family-name'),
    input('email', t.email, 'email', 'email'),
    input('phone', t.phone, 'tel', 'tel'),
  ];
}

function showErrors(form: HTMLFormElement, prefix: string, problem: { errors?: { path: string; message: string }[]; detail?: string }) {
  for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
  let first: HTMLElement | undefined;
  for (const e of problem.errors ?? []) {
    const name = e.path.replace(/^\//, '').split('/')[0];
    const slot = form.querySelector<HTMLElement>(`#${prefix}-${name}-error`);
    const input = form.querySelector<HTMLElement>(`#${prefix}-${name}`);
    if (slot) slot.textContent = e.message;
    input?.setAttribute('aria-invalid', 'true');
    first ??= input ?? undefined;
  }
  first?.focus();
}

function formData(form: HTMLFormElement) {
  return Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v).trim()]).filter(([, v]) => v !== ''));
}

function enquiryForm(u: Unit) {
  const status = h('p', { class: 'form-status', id: 'enquiry-status', role: 'status' });
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'enquiry',
      id: 'enquiry-form',
      novalidate: true,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        status.textContent = '';
        const res = await fetch('/public/leads', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify({ ...formData(form), project: state.bundle!.project._id, unit: u._id, source: 'presentation' }),
        }).catch(() => undefined);
        if (res?.status === 201) {
          form.reset();
          for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
          status.textContent = t.sent;
          return;
        }
        const problem = res ? await res.json().catch(() => ({})) : {};
        if (res?.status === 400) showErrors(form, 'lead', problem);
        else status.textContent = res?.status === 429 ? t.tooMany : res?.status === 403 ? t.closed : t.failed;
      },
    },
    h('h3', {}, t.enquire),
    ...visitorFields('lead'),
    h('label', {}, t.message, h('textarea', { id: 'lead-message', name: 'message', rows: '3' }), h('span', { class: 'field-error', id: 'lead-message-error' })),
    h('button', { type: 'submit', class: 'primary', id: 'enquiry-submit' }, t.send),
    status,
  );
  return form;
}

function holdSection(u: Unit) {
  if (!flag('onHoldExperienceEnabled')) return undefined;
  const notice = state.notice.get(u._id);
  if (state.holds.has(u._id)) return h('p', { class: 'held', id: 'hold-countdown', role: 'timer' });
  if (u.availability !== 'available') {
    const until = u.availability === 'on_hold' && typeof u.onHoldExpiresAt === 'string' ? h('p', { id: 'hold-until' }, `${t.onHoldUntil} ${clock(u.onHoldExpiresAt)}`) : undefined;
    return notice || until ? h('div', {}, notice ? h('p', { class: 'notice', id: 'hold-notice', role: 'alert' }, notice) : undefined, until) : undefined;
  }
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'hold',
      id: 'hold-form',
      novalidate: true,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const res = await fetch(`/public/units/${u._id}/hold`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify(formData(form)),
        }).catch(() => undefined);
        const payload = res ? await res.json().catch(() => ({})) : {};
        if (res?.status === 200) {
          state.holds.set(u._id, payload.onHoldExpiresAt);
          replaceUnit(payload as Unit);
        } else if (res?.status === 400) {
          showErrors(form, 'hold', payload);
          return;
        } else {
          state.notice.set(u._id, res?.status === 409 ? t.taken : res?.status === 429 ? t.tooMany : res?.status === 403 ? t.closed : t.failed);
          if (res?.status === 409) await refresh();
        }
        render();
      },
    },
    h('h3', {}, t.hold),
    h('p', {}, t.holdIntro),
    ...visitorFields('hold'),
    h('button', { type: 'submit', class: 'primary', id: 'hold-submit' }, t.hold),
    notice ? h('p', { class: 'notice', id: 'hold-notice', role: 'alert' }, notice) : undefined,
  );
  return form;
}

function replaceUnit(next: Unit) {
  const b = state.bundle!;
  for (const list of [...b.floors.map((f) => f.units), b.unassignedUnits]) {
    const i = list.findIndex((u) => u._id === next._id);
    if (i >= 0) list[i] = { ...list[i], ...next };
  }
}

// ---------- state changes ----------

function selectFloor(id: string) {
  state.floor = id;
  render();
}
function setView(view: 'list' | 'plan') {
  state.view = view;
  render();
}
function setFilter(key: keyof typeof state.filters, value: string) {
  state.filters[key] = value;
  const focused = document.activeElement as HTMLInputElement | null;
  const caret = focused?.selectionStart ?? null;
  render();
  const again = document.getElementById(`f-${key}`) as HTMLInputElement | null;
  if (again && caret !== null && again.type !== 'number') again.setSelectionRange(caret, caret);
}

// ---------- data ----------

async function refresh(): Promise<void> {
  const res = await fetch(bundleUrl, { headers: state.etag ? { 'If-None-Match': state.etag } : {} }).catch(() => undefined);
  if (!res || res.status === 304) return;
  if (res.status === 404) {
    app.replaceChildren(h('p', { class: 'empty' }, t.notFound));
    return;
  }
  if (!res.ok) return;
  const first = !state.bundle;
  state.etag = res.headers.get('ETag') ?? undefined;
  state.bundle = (await res.json()) as Bundle;
  if (first) {
    const words = wordsFor(state.bundle.project.projectLang);
    t = words.t;
    document.documentElement.lang = words.lang;
    document.title = state.bundle.project.name;
    state.view = state.bundle.project.initialView === 'List' || state.bundle.project.initialView === undefined ? 'list' : 'plan';
    if (!flag('skipFloorStep') && state.bundle.floors[0] && state.bundle.project.initialView !== 'List') state.floor = state.bundle.floors[0]._id;
    applyTheme();
  }
  // A hold that lapsed is no longer ours to count down.
  for (const [id, until] of state.holds) if (Date.parse(until) <= Date.now()) state.holds.delete(id);
  body.dataset.etag = state.etag ?? '';
  render();
}

await refresh();
// `?refresh=<ms>` on the page's URL sets the revalidation interval (default 3 s, at least 1 s).
const asked = Number(new URLSearchParams(location.search).get('refresh'));
const interval = Number.isFinite(asked) && asked >= 1000 ? asked : 3000;
window.setInterval(() => {
  if (document.visibilityState === 'visible') void refresh();
}, interval);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') void refresh();
});
