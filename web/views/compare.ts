/**
 * The comparison of the shortlist (web/views/shortlist.ts): up to three homes side by side, each row one fact, and the
 * link that shares it. A chunk of its own, loaded when the comparison is first opened.
 */
import { byId, requireById, h, linkToCopy, safeUrl, sized } from '../dom.ts';
import { t } from '../i18n.ts';
import { x } from '../extra-words.ts';
import { areaText, factsLine, perArea, priceText } from '../format.ts';
import { findUnit, showsStatus } from '../state.ts';
import type { Unit } from '../types.ts';
import { badge, unitImage } from './unit-parts.ts';
import { placeFacts } from './sheet-extras.ts';
import { isSaved, MAX_COMPARE, openSaved, toggleSaved } from './saved.ts';

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

/** Redraws an open comparison. */
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
                      openSaved(u._id);
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
