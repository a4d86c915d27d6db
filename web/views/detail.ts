/**
 * A unit's detail: a sheet (full height on a phone, a centred panel on a desktop) whose title and close button stay
 * at the top and whose actions (enquire, hold, waitlist, brochure) stay at the bottom while the middle scrolls.
 * Closes with ×, Escape, a tap outside it, or the browser's back button.
 */
import { byId, requireById, h, linkToCopy, safeUrl, sized } from '../dom.ts';
import { t } from '../i18n.ts';
import { findUnit, flag, settings, showsStatus, state, unitUrl } from '../state.ts';
import { areaText, clock, perArea, priceText } from '../format.ts';
import { contactForm, contactMode, focusContact, sayLostRace, setContact, type ContactHooks, type Mode } from './contact.ts';
import { badge, featuredMark, layoutName } from './unit-parts.ts';
import { downloadLink, embedBlock, frameUrl, moreExtras, sandboxedFrame, sheetImages, textExtras } from './unit-extras.ts';
import { u as words } from '../unit-words.ts';
import { holdKey, lapsedMine } from '../holds.ts';
import { holdPanel } from './hold.ts';
import type { Room } from '../types.ts';
import { emit } from '../embed-events.ts';
import { x } from '../extra-words.ts';
import { calculator } from './calculator.ts';
import { thumbnails } from './lightbox.ts';
import { unitModels } from './model.ts';
import { depositTerms, holdDeposit, payButtonFace, placeFacts } from './sheet-extras.ts';
import { favButton } from './shortlist.ts';
import { bookVisitLink } from '../book-visit.ts';

const dialog = h('dialog', { id: 'unit-dialog', class: 'sheet', 'aria-labelledby': 'unit-title' });
const notices = new Map<string, string>();
let infoKey = '';
let countdown: number | undefined;
let shown: string | undefined;
let onClose: () => void = () => {};
let openOther: (id: string) => void = () => {};
/** Whether the custom button's snippet frame is open in the sheet (its `same_tab` way). */
let snippetOpen = false;

export function setupDetail(hooks: ContactHooks & { closed: () => void; open: (id: string) => void }) {
  onClose = hooks.closed;
  openOther = hooks.open;
  const form = contactForm({
    ...hooks,
    // The hold's panel ("Held for you", the countdown) at the top of the sheet: brought into view, on a phone too.
    held: (unit) => {
      hooks.held(unit);
      const panel = byId('hold-panel');
      panel?.scrollIntoView({ block: 'start' });
      panel?.focus({ preventScroll: true });
    },
    notice: (id, text) => {
      notices.set(id, text);
      renderDetail();
    },
  });
  dialog.append(
    h(
      'div',
      { class: 'sheet-head' },
      h('h2', { id: 'unit-title' }),
      h('span', { id: 'fav-slot' }),
      h('button', { type: 'button', class: 'icon-btn', id: 'share-unit', onclick: share }, t().share),
      h('button', { type: 'button', class: 'close', id: 'close-dialog', 'aria-label': t().close, onclick: () => dialog.close() }, '×'),
    ),
    h('div', { class: 'sheet-body', id: 'sheet-body' }, h('div', { id: 'detail-info' }), h('p', { class: 'share-box', id: 'share-box', hidden: true }), form),
    h('div', { class: 'action-bar', id: 'action-bar' }),
  );
  document.body.append(dialog);
  // A tap on the backdrop lands on the dialog element itself (its content fills it edge to edge).
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) dialog.close();
  });
  dialog.addEventListener('close', () => {
    const id = shown;
    shown = undefined;
    infoKey = '';
    window.clearInterval(countdown);
    document.body.classList.remove('dialog-open');
    onClose();
    // Back to what opened it: its card, its shape on the plan, or its cell in the building.
    if (id) (byId(`unit-${id}`) ?? byId(`shape-${id}`) ?? byId(`cell-${id}`))?.focus({ preventScroll: true });
  });
}

export const dialogOpen = () => dialog.open;
export const closeDetail = () => dialog.open && dialog.close();

/** What the form is for by default: the waitlist for a unit one cannot buy, else an enquiry. */
function defaultMode(u: Room): Mode | undefined {
  const unavailable = u.availability !== 'available' && !state.holds.has(u._id);
  // A waitlist says a home is not available: not offered where the project hides availability.
  const wait = flag('waitlistEnabled') && showsStatus();
  if (unavailable && wait && u.availability !== 'on_hold') return 'waitlist';
  if (flag('enableForms') && !u.stub) return 'enquire';
  if (wait && unavailable) return 'waitlist';
  return undefined;
}

export function openDetail(id: string) {
  const u = findUnit(id);
  if (!u) return;
  const fresh = shown !== id;
  if (fresh) snippetOpen = false;
  shown = id;
  renderDetail();
  if (fresh) {
    const m = defaultMode(u);
    setContact(u, m ?? 'enquire', m !== undefined);
    requireById('share-box').hidden = true;
    requireById('sheet-body').scrollTop = 0;
    if (!u.stub) emit('unit_view', { unitId: u._id, unitName: u.name });
  }
  if (!dialog.open) {
    dialog.showModal();
    document.body.classList.add('dialog-open');
    byId('close-dialog')?.focus();
  }
}

/** Redrawn only when what it shows changes; the contact form is never redrawn. */
export function renderDetail() {
  if (!shown || !state.bundle) return;
  const u = findUnit(shown);
  if (!u) {
    dialog.close();
    return;
  }
  const key = JSON.stringify([u, state.holds.get(u._id), holdKey(u._id), notices.get(u._id), document.documentElement.lang, snippetOpen]);
  if (key === infoKey) return;
  infoKey = key;
  const mine = state.holds.get(u._id);
  requireById('unit-title').replaceChildren(u.name, ' ', featuredMark(u) ?? '', ' ', badge(u, 'held-badge') ?? '');
  requireById('fav-slot').replaceChildren(...(u.stub ? [] : [favButton(u, 'fav-unit', 'icon-btn')]));
  const price = priceText(u);
  const per = perArea(u);
  const images = sheetImages(u);
  const layouts = [
    ...new Set([u.layoutUrl, ...(Array.isArray(u.layoutGallery) ? u.layoutGallery : [])].map(safeUrl).filter((x): x is string => x !== undefined)),
  ];
  const layout = safeUrl(u.layoutUrl);
  const many = (list: string[], what: string) => list.slice(0, 8).map((src, i) => ({ src, alt: `${what} ${u.name} (${i + 1}/${Math.min(list.length, 8)})` }));
  const notice = notices.get(u._id);
  const facts = unitFacts(u, per);
  requireById('detail-info').replaceChildren(
    h(
      'div',
      { class: 'detail' },
      holdPanel(u, () => choose(u, 'hold')),
      layouts.length
        ? h(
            'figure',
            { class: 'layout' },
            h('img', {
              ...sized(layouts[0], '(max-width: 720px) 100vw, 800px'),
              src: layouts[0],
              alt: `${t().layout}: ${u.name}`,
              width: '800',
              height: '600',
              id: 'unit-layout-img',
            }),
          )
        : undefined,
      layouts.length > 1 ? h('section', { 'aria-label': x().layouts }, thumbnails(many(layouts, t().layout), 'gallery', '200px', 'unit-layouts')) : undefined,
      price ? h('p', { class: 'price', id: 'unit-price' }, price, per ? h('span', { class: 'per-area' }, ` · ${per}`) : undefined) : undefined,
      depositTerms(u),
      facts.length ? h('dl', { class: 'facts' }, ...facts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])) : undefined,
      typeof u.description === 'string' && settings().showUnitDescription !== false ? h('p', { class: 'description' }, u.description) : undefined,
      ...textExtras(u),
      snippetOpen ? snippetPanel(u) : undefined,
      embedBlock(u),
      images.length && !flag('hideGallery')
        ? h('section', { 'aria-label': t().gallery }, thumbnails(many(images, t().gallery), 'gallery', '270px', 'unit-gallery'))
        : undefined,
      layout || downloadLink(u)
        ? h(
            'p',
            { class: 'links' },
            layout ? h('a', { href: layout, target: '_blank', rel: 'noopener', id: 'unit-layout' }, t().layout) : undefined,
            downloadLink(u),
          )
        : undefined,
      ...unitModels(u),
      moreExtras(u, openOther, redrawDetail),
      typeof u.price === 'number' && price && u.unitPriceTBD !== true && !flag('rentalObject') ? calculator(u.price) : undefined,
      !mine && u.availability === 'on_hold' && typeof u.onHoldExpiresAt === 'string' && showsStatus()
        ? h('p', { id: 'hold-until' }, `${t().onHoldUntil} ${clock(u.onHoldExpiresAt)}`)
        : undefined,
      notice ? h('p', { class: 'notice', id: 'hold-notice', role: 'alert' }, notice) : undefined,
    ),
  );
  renderActions(u);
  startCountdown(u._id, mine);
  // The form follows the unit: a hold placed or lost changes what it may be used for.
  const m = contactMode();
  if ((m === 'hold' && (u.availability !== 'available' || mine)) || (m === 'waitlist' && u.availability === 'available')) {
    const next = defaultMode(u);
    const holding = m === 'hold' && !mine && !requireById('contact-form').hidden;
    setContact(u, next ?? 'enquire', next !== undefined);
    // Someone else held it while this visitor was filling in the hold form: said, not a silent change of form.
    if (holding) sayLostRace(u._id, false);
  } else setContact(u, m, !requireById('contact-form').hidden);
}

/** Draws the open sheet again even though its unit did not change (the lazily loaded extras have arrived). */
function redrawDetail() {
  infoKey = '';
  renderDetail();
}

/** The unit's facts, as label and value, in the sheet's order. */
function unitFacts(u: Room, per: string | undefined): string[][] {
  const info = settings().showAdditionalInfo === false ? [] : (u.additionalInfo ?? []);
  const area = areaText(u);
  const type = layoutName(u);
  return [
    type ? [words().layoutType, type] : undefined,
    ...placeFacts(u),
    area ? [flag('landOnly') ? x().lotArea : t().area, area] : undefined,
    per ? [t().perArea, per] : undefined,
    !flag('landOnly') && !flag('hideBedrooms') && u.bedrooms ? [t().bedrooms, u.bedrooms] : undefined,
    !flag('landOnly') && typeof u.bathrooms === 'number' && settings().showBathrooms !== false ? [t().bathroomsLabel, String(u.bathrooms)] : undefined,
    typeof u.parking === 'number' && settings().showParking !== false ? [t().parkingLabel, String(u.parking)] : undefined,
    typeof u.orientation === 'string' && settings().showOrientation !== false ? [t().orientation, u.orientation] : undefined,
    ...info.map((i) => [i.label ?? '', i.value ?? '']),
  ].filter((x): x is string[] => x !== undefined);
}

/** The visitor's own hold counts down to its expiry, once a second; at zero the server is asked whether it ended. */
function startCountdown(unitId: string, mine: string | undefined) {
  window.clearInterval(countdown);
  if (mine) {
    const tick = () => {
      const el = byId('hold-countdown');
      const left = Math.max(0, Date.parse(mine) - Date.now());
      if (el) el.textContent = `${t().heldFor} ${Math.floor(left / 60000)}:${String(Math.floor((left % 60000) / 1000)).padStart(2, '0')}`;
      // Each second at zero until the server agrees (the two clocks may differ by a little): then the panel says it ended.
      if (left === 0) lapsedMine(unitId);
    };
    tick();
    countdown = window.setInterval(tick, 1000);
  }
}

function renderActions(u: Room) {
  const mine = state.holds.has(u._id);
  const brochure = safeUrl(u.brochurePDF);
  const act = (id: string, label: string | (HTMLElement | string)[], m: Mode, primary = false) =>
    h(
      'button',
      {
        type: 'button',
        id,
        class: primary ? 'primary' : 'secondary',
        'aria-pressed': String(!requireById('contact-form').hidden && contactMode() === m),
        onclick: () => choose(u, m),
      },
      ...(typeof label === 'string' ? [label] : label),
    );
  const canHold = flag('onHoldExperienceEnabled') && u.availability === 'available' && !mine;
  const canWait = flag('waitlistEnabled') && showsStatus() && u.availability !== 'available' && !mine;
  const buttons = [
    flag('enableForms') && !u.stub ? act('act-enquire', flag('rentalObject') ? x().apply : t().enquireShort, 'enquire', !canHold && !canWait) : undefined,
    // A hold that takes a deposit reads as the project's pay button.
    canHold ? act('act-hold', holdDeposit(u) ? payButtonFace() : t().holdShort, 'hold', true) : undefined,
    canWait ? act('act-waitlist', t().waitlistShort, 'waitlist', true) : undefined,
    customButton(u),
    u.stub ? undefined : bookVisitLink('unit-book-visit', 'secondary', u),
    brochure && settings().brochureButtonEnabled !== false
      ? h('a', { href: brochure, target: '_blank', rel: 'noopener', id: 'unit-brochure', class: 'secondary' }, t().brochure)
      : undefined,
  ].filter((b) => b !== undefined);
  requireById('action-bar').replaceChildren(...buttons);
  requireById('action-bar').hidden = buttons.length === 0;
}

/**
 * The project's own call to action (`customButton*`). The `url` action: a link to the unit's `customButtonUrl`
 * (http(s) only), in this tab or a new one. The `snippet` action: the unit's `customButtonSnippet` runs in a sandboxed
 * frame served by the pages origin, opened in the sheet (`same_tab`) or in a new tab (`new_tab`), never in this page.
 */
function customButton(u: Room): HTMLElement | undefined {
  const s = settings();
  if (!flag('customButtonEnabled') || u.stub || typeof s.customButtonText !== 'string' || !s.customButtonText) return;
  const icon = safeUrl(s.customButtonIcon);
  const face = [icon ? h('img', { src: icon, alt: '', width: '18', height: '18', class: 'btn-icon' }) : undefined, s.customButtonText];
  const newTab = s.customButtonOpensAt === 'new_tab';
  if (s.customButtonActionType === 'snippet') {
    if (typeof u.customButtonSnippet !== 'string' || u.customButtonSnippet.trim() === '') return;
    if (newTab) return h('a', { href: frameUrl(u._id, 'button'), id: 'unit-custom-button', class: 'secondary', target: '_blank', rel: 'noopener' }, ...face);
    const toggle = () => {
      snippetOpen = !snippetOpen;
      renderDetail();
      byId('unit-snippet')?.scrollIntoView({ block: 'nearest' });
    };
    return h('button', { type: 'button', id: 'unit-custom-button', class: 'secondary', 'aria-expanded': String(snippetOpen), onclick: toggle }, ...face);
  }
  const href = safeUrl(u.customButtonUrl);
  if (!href) return;
  return h('a', { href, id: 'unit-custom-button', class: 'secondary', ...(newTab ? { target: '_blank', rel: 'noopener' } : {}) }, ...face);
}

/** The custom button's snippet, opened in the sheet: its sandboxed frame. */
const snippetPanel = (u: Room) =>
  h(
    'section',
    { class: 'unit-extra unit-snippet' },
    sandboxedFrame(frameUrl(u._id, 'button'), 'unit-snippet', typeof settings().customButtonText === 'string' ? String(settings().customButtonText) : ''),
  );

function choose(u: Room, m: Mode) {
  setContact(u, m, true);
  renderActions(u);
  focusContact();
}

async function share() {
  if (!shown) return;
  const url = unitUrl(shown);
  const box = requireById('share-box');
  const u = findUnit(shown);
  try {
    if (typeof navigator.share === 'function' && navigator.maxTouchPoints > 0) {
      await navigator.share({ title: `${u?.name ?? ''} · ${state.bundle?.project.name ?? ''}`, url });
      return;
    }
  } catch {
    // Cancelled or refused: offer the link instead.
  }
  const [words, input] = await linkToCopy(url, 'share-link', { copied: t().linkCopied, copy: t().copyLink });
  box.replaceChildren(words, ' ', input);
  box.hidden = false;
  input.select();
}
