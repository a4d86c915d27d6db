/**
 * Favourites and compare: a visitor saves up to three homes (the heart on a card or in the unit sheet) and compares
 * them side by side in a sheet of their own. The shortlist is kept in localStorage per project (unit ids only,
 * nothing personal) and can be shared: `?compare=<id>,<id>,<id>` opens the comparison of those homes.
 */
import { byId, requireById, h, linkToCopy, safeUrl, sized } from '../dom.ts';
import { t } from '../i18n.ts';
import { x } from '../extra-words.ts';
import { areaText, factsLine, perArea, priceText } from '../format.ts';
import { findUnit, namespace, showsStatus } from '../state.ts';
import type { Unit } from '../types.ts';
import { badge, unitImage } from './unit-parts.ts';
import { placeFacts } from './sheet-extras.ts';

export const MAX_COMPARE = 3;
const KEY = `showsuite:shortlist:${namespace}`;
let changed: () => void = () => {};
let openUnit: (id: string) => void = () => {};

export function shortlist(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((id): id is string => typeof id === 'string' && /^[0-9a-f]{24}$/.test(id)).slice(0, MAX_COMPARE) : [];
  } catch {
    return [];
  }
}

function store(ids: string[]) {
  try {
    localStorage.setItem(KEY, JSON.stringify(ids));
  } catch {
    // Storage off: the shortlist lasts as long as the page (kept below).
  }
  memory = ids;
}
let memory: string[] | undefined;
const current = () => memory ?? shortlist();
export const isSaved = (id: string) => current().includes(id);

/** Saves or removes a home; false when the shortlist is full (the visitor is told so). */
export function toggleSaved(id: string): boolean {
  const ids = current();
  if (ids.includes(id)) store(ids.filter((i) => i !== id));
  else if (ids.length >= MAX_COMPARE) return false;
  else store([...ids, id]);
  changed();
  return true;
}

export function setupShortlist(hooks: { changed: () => void; open: (id: string) => void }) {
  changed = hooks.changed;
  openUnit = hooks.open;
}

/** The heart: pressed when the home is on the shortlist. */
export function favButton(u: Unit, id: string, extraClass = ''): HTMLButtonElement {
  const saved = isSaved(u._id);
  const text = h('span', { class: 'fav-text' }, saved ? x().favourited : x().favourite);
  const b = h(
    'button',
    {
      type: 'button',
      class: `fav ${extraClass}`.trim(),
      id,
      'aria-pressed': String(saved),
      'aria-label': `${saved ? x().favourited : x().favourite}: ${u.name}`,
      title: saved ? x().favourited : x().favourite,
      onclick: (e: Event) => {
        e.stopPropagation();
        if (!toggleSaved(u._id)) {
          note(x().compareFull);
          return;
        }
        const now = isSaved(u._id);
        b.setAttribute('aria-pressed', String(now));
        b.setAttribute('aria-label', `${now ? x().favourited : x().favourite}: ${u.name}`);
        b.title = now ? x().favourited : x().favourite;
        text.textContent = now ? x().favourited : x().favourite;
      },
    },
    h('span', { class: 'fav-icon', 'aria-hidden': 'true' }, '♥'),
    text,
  );
  return b;
}

/** A short message that the shortlist is full, said politely to assistive technology too. */
function note(text: string) {
  const el = byId('shortlist-note');
  if (!el) return;
  el.textContent = text;
  el.hidden = false;
  window.setTimeout(() => (el.hidden = true), 4000);
}

/** The toolbar's button: "Shortlist (n)", opening the comparison. */
export function shortlistButton(): HTMLElement {
  return h(
    'span',
    { class: 'shortlist-wrap' },
    h('button', { type: 'button', class: 'chip', id: 'shortlist-open', onclick: () => openCompare(current()) }, x().favourites(0)),
    h('span', { class: 'shortlist-note', id: 'shortlist-note', role: 'status', hidden: true }),
  );
}

export function updateShortlistButton() {
  const b = byId('shortlist-open');
  const n = current().filter((id) => findUnit(id)).length;
  if (b) b.textContent = x().favourites(n);
}

let dialog: HTMLDialogElement | undefined;
let shown: string[] = [];

/** The comparison: up to three homes side by side, each row one fact. */
export function openCompare(ids: string[]) {
  shown = ids.filter((id) => findUnit(id)).slice(0, MAX_COMPARE);
  dialog ??= buildDialog();
  renderCompare();
  if (!dialog.open) {
    dialog.showModal();
    document.body.classList.add('dialog-open');
  }
}

function buildDialog(): HTMLDialogElement {
  const d = h(
    'dialog',
    { id: 'compare-dialog', class: 'sheet compare', 'aria-labelledby': 'compare-title' },
    h(
      'div',
      { class: 'sheet-head' },
      h('h2', { id: 'compare-title' }, x().compareTitle),
      h('button', { type: 'button', class: 'icon-btn', id: 'compare-share', onclick: shareList }, x().shareShortlist),
      h('button', { type: 'button', class: 'close', id: 'compare-close', 'aria-label': t().close, onclick: () => d.close() }, '×'),
    ),
    h('div', { class: 'sheet-body', id: 'compare-body' }),
  );
  d.addEventListener('click', (e) => {
    if (e.target === d) d.close();
  });
  d.addEventListener('close', () => {
    if (!document.querySelector('dialog[open]')) document.body.classList.remove('dialog-open');
    byId('shortlist-open')?.focus({ preventScroll: true });
  });
  document.body.append(d);
  return d;
}

/** Redraws an open comparison (a refresh changed a price or a status). */
export function renderCompare() {
  if (!dialog) return;
  const d = dialog;
  const units = shown.map((id) => findUnit(id)).filter((u): u is Unit => u !== undefined && u.stub !== true);
  const body = requireById('compare-body');
  if (!units.length) {
    body.replaceChildren(h('p', { class: 'empty', id: 'compare-empty' }, x().compareEmpty));
    return;
  }
  const rows: [string, (u: Unit) => Node | string][] = [
    ...(showsStatus() ? [[t().availability, (u: Unit) => badge(u) ?? '–'] as [string, (u: Unit) => Node | string]] : []),
    [x().price, (u) => priceText(u) ?? '–'],
    [t().perArea, (u) => perArea(u) ?? '–'],
    [t().area, (u) => areaText(u) ?? '–'],
    [t().bedrooms, (u) => u.bedrooms ?? '–'],
    [t().bathroomsLabel, (u) => (typeof u.bathrooms === 'number' ? String(u.bathrooms) : '–')],
    [x().floor, (u) => placeFacts(u).find(([k]) => k === x().floor)?.[1] ?? '–'],
    [x().delivery, (u) => placeFacts(u).find(([k]) => k === x().delivery)?.[1] ?? '–'],
  ];
  body.replaceChildren(
    h(
      'div',
      { class: 'compare-scroll', tabindex: '0', role: 'region', 'aria-label': x().compare },
      h(
        'table',
        { class: 'compare-table', id: 'compare-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('td', {}),
            ...units.map((u) => {
              const img = unitImage(u, 'plan');
              return h(
                'th',
                { scope: 'col', 'data-unit': u._id },
                img ? h('img', { ...sized(img, '200px', 480), src: safeUrl(img), alt: '', width: '200', height: '150', loading: 'lazy' }) : undefined,
                h('span', { class: 'cmp-name' }, u.name),
                h('span', { class: 'facts' }, factsLine(u)),
              );
            }),
          ),
        ),
        h(
          'tbody',
          {},
          ...rows.map(([label, cell]) => h('tr', {}, h('th', { scope: 'row' }, label), ...units.map((u) => h('td', {}, cell(u))))),
          h(
            'tr',
            {},
            h('td', {}),
            ...units.map((u) =>
              h(
                'td',
                { class: 'cmp-actions' },
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'primary small',
                    onclick: () => {
                      d.close();
                      openUnit(u._id);
                    },
                  },
                  t().viewUnit,
                ),
                h('button', { type: 'button', class: 'link', 'data-remove': u._id, onclick: () => remove(u._id) }, x().remove),
              ),
            ),
          ),
        ),
      ),
    ),
  );
  // How many units' columns the table's least width makes room for (web/app.css).
  requireById('compare-table').style.setProperty('--units', String(units.length));
}

function remove(id: string) {
  shown = shown.filter((i) => i !== id);
  if (isSaved(id)) toggleSaved(id);
  renderCompare();
}

/** The link that opens this comparison (the page's address with `compare=`). */
export function shortlistUrl(ids: string[]): string {
  const url = new URL(location.href);
  url.search = '';
  url.pathname = url.pathname.replace(/\/units\/[0-9a-f]{24}$/, '');
  url.searchParams.set('compare', ids.join(','));
  return url.href;
}

async function shareList() {
  const [words, input] = await linkToCopy(shortlistUrl(shown), 'compare-link', { copied: t().linkCopied, copy: t().copyLink });
  byId('compare-share-box')?.remove();
  requireById('compare-body').prepend(h('p', { class: 'share-box', id: 'compare-share-box' }, words, ' ', input));
  input.select();
}

/** The ids a shared link names (`?compare=`), if any. */
export function sharedShortlist(): string[] {
  const v = new URLSearchParams(location.search).get('compare');
  return v
    ? v
        .split(',')
        .filter((id) => /^[0-9a-f]{24}$/.test(id))
        .slice(0, MAX_COMPARE)
    : [];
}

export const compareOpen = () => dialog?.open === true;
