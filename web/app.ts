/**
 * The buyer's page: reads only the public API (bundle, leads, holds, waitlist), so anything it shows a third-party
 * page could show too. Modules: api (HTTP), live (keeping the bundle current), state (view state and the address),
 * format (words for numbers), views/* (what is drawn), dom (element helpers). No framework: docs/presentation.md.
 */
import { byId, requireById, h, nextFrame, nextTask, safeUrl, sized, type Later } from './dom.ts';
import { languageLoaded, loadLanguage, t, useLanguage } from './i18n.ts';
import { loadPart, partFailed } from './parts.ts';
import { fromPrice, prepareFormats } from './format.ts';
import { startLive, type Live } from './live.ts';
import { holdsFollow, placedHold, startHolds } from './holds.ts';
import {
  allUnits,
  bundleUrl,
  emptyFilters,
  findUnit,
  flag,
  fromAddress,
  phaseNames,
  settings,
  settingsChanged,
  state,
  writeAddress,
  type View,
  loaded,
} from './state.ts';
import { listenForDraft } from './preview-frame.ts';
import { startDepositReturn } from './deposit-return.ts';
import { applyTheme } from './theme.ts';
import { buildControls, closeSheet, updateControls } from './views/controls.ts';
import { buildingView } from './views/building.ts';
import { listView } from './views/list.ts';
import { floorOverview } from './views/floor-overview.ts';
import { locked, lockScreen } from './views/lock.ts';
import { labelShapes, planView } from './views/plan.ts';
import { realtorEntry } from './realtor-entry.ts';
import { syncHeroBooking } from './book-visit.ts';
import { planWithList } from './views/plan-side.ts';
import { refreshPlaces, watchPlaces } from './views/places.ts';
import { openCompare, renderCompare, sharedShortlist } from './views/shortlist.ts';
import { setupShortlist } from './views/saved.ts';
import { reportSize } from './embed-events.ts';
import type { Bundle, Unit } from './types.ts';
import { track, trackFilter, trackScreen, watchClicks } from './beacon.ts';

const app = requireById('app');
const results = h('section', { id: 'results', class: 'results' });
let built = false;
/** The first screen is drawn and the rest of the shell (`finishShell`) is still to come. */
let pending = false;
/** `finishShell` has begun. */
let finishing = false;
/** The unit sheet (web/views/detail.ts, a chunk of its own), once loaded and set up. */
let detail: typeof import('./views/detail.ts') | undefined;
let detailLoading: Promise<typeof import('./views/detail.ts') | undefined> | undefined;
/** Whether the open unit's history entry is ours (so closing it goes back rather than forward). */
let pushedUnit = false;

function defaults(): { view: View; floor: string } {
  const b = loaded();
  const initial = settings().initialView;
  if (flag('skipFloorStep') || initial === 'List' || initial === undefined || !b.floors.length) return { view: 'list', floor: '' };
  // One floor needs no building to choose it from.
  return {
    view: initial === 'Plan' || b.floors.length === 1 ? 'plan' : 'building',
    floor: initial === 'Plan' || b.floors.length === 1 ? b.floors[0]._id : '',
  };
}

const actions = {
  setView(view: View) {
    state.view.view = view;
    if (view === 'plan' && !loaded().floors.some((f) => f._id === state.view.floor)) state.view.floor = loaded().floors[0]?._id ?? '';
    writeAddress('push');
    draw();
  },
  setFloor(id: string) {
    state.view.floor = id;
    if (state.view.view === 'building') state.view.view = 'plan';
    writeAddress('push');
    draw();
  },
  /** A floor of the overview: its plan, from any view. */
  openFloor(id: string) {
    state.view.floor = id;
    state.view.view = 'plan';
    writeAddress('push');
    draw();
  },
  setFilter(key: keyof typeof state.view.filters, value: string) {
    state.view.filters[key] = value;
    trackFilter();
    // Typing is not navigation: one history entry is rewritten, and only the results are redrawn.
    writeAddress('replace');
    draw();
  },
  setSort(sort: typeof state.view.sort) {
    state.view.sort = sort;
    writeAddress('replace');
    draw();
  },
  clearFilters() {
    state.view.filters = emptyFilters();
    writeAddress('push');
    draw();
  },
};

setupShortlist({ changed: () => draw(), open: (id) => open(id) });

function open(id: string) {
  if (state.view.unit === id) return;
  // The first unit opened waits for the sheet's chunk (fetched on the visitor's first touch or key: `warmDetail`).
  if (!detail) {
    void ensureDetail().then((m) => m && open(id));
    return;
  }
  state.view.unit = id;
  pushedUnit = true;
  writeAddress('push');
  closeSheet();
  detail.openDetail(id);
  trackScreen(state.view.view, id);
}

function closed() {
  if (!state.view.unit) return;
  state.view.unit = undefined;
  trackScreen(state.view.view, undefined);
  if (pushedUnit) {
    pushedUnit = false;
    history.back();
  } else writeAddress('replace');
}

/** What the first screen needs: the toolbar, the results and the hero's extras. The rest waits (see `finishShell`). */
function buildShell() {
  built = true;
  const s = settings();
  // Every floor at a glance first, above the toolbar (`showFloorOverview`): drawn with it, so the toolbar, once
  // painted, is not pushed down by it (a layout shift).
  const overview = floorOverview((id) => actions.openFloor(id));
  app.replaceChildren(...(overview ? [overview] : []), buildControls(actions), results);
  // Project-wide extras in the hero the server drew: a 3D tour and the day/night switch.
  // Into the row the server kept for them (src/presentation/html.ts), else after the hero's text.
  const heroText = byId('hero-links') ?? document.querySelector('#hero .hero-text');
  // 3D only with `enable3d` (web/views/model.ts).
  const model = flag('enable3d') ? safeUrl(s._3dModelUrl) : undefined;
  if (heroText && model) heroText.append(h('a', { class: 'hero-link', id: 'project-3d', href: model, target: '_blank', rel: 'noopener' }, t().tour3d));
  // Realtors open their allocation from here; only a project with allocations offers it.
  if (heroText && flag('realtorAccess')) heroText.append(realtorEntry(() => live.refresh()));
  if (heroText && flag('dayNightEnabled')) {
    heroText.append(
      h(
        'button',
        {
          type: 'button',
          class: 'hero-link',
          id: 'day-night',
          'aria-pressed': 'false',
          onclick: (e: Event) => (e.currentTarget as HTMLElement).setAttribute('aria-pressed', String(document.body.classList.toggle('night'))),
        },
        t().dayNight,
      ),
    );
  }
  // The gallery, the footer, the unit sheet and the plan's names come in tasks of their own once the results are
  // drawn (a phone's long tasks are what Lighthouse counts as blocking time). Until then the page says it is busy.
  pending = true;
}

/** Below the first screen: the project gallery and the footer; the unit sheet; the plan's labels. Once, a piece a task. */
async function finishShell() {
  finishing = true;
  // The results are laid out and painted in a frame of their own first.
  await nextFrame();
  const s = settings();
  // The project's gallery (`images`), then its other covers.
  const covers = [...new Set([s.images, s.alternativeCovers].flatMap((l): unknown[] => (Array.isArray(l) ? l : [])).map(safeUrl))].filter(
    (x): x is string => x !== undefined,
  );
  // Appended after the results, where they always were (the lock screen may have replaced everything meanwhile).
  if (results.isConnected) {
    if (covers.length && !flag('hideGallery')) {
      app.append(
        h(
          'section',
          { class: 'project-gallery', 'aria-label': t().gallery },
          h('h2', { class: 'section-title' }, t().gallery),
          h(
            'div',
            { class: 'strip' },
            ...covers.slice(0, 12).map((src, i) =>
              h(
                'a',
                { href: src, target: '_blank', rel: 'noopener' },
                h('img', {
                  ...sized(src, '(max-width: 720px) 250px, 360px', 1280),
                  src,
                  alt: `${loaded().project.name} (${i + 1}/${covers.length})`,
                  loading: 'lazy',
                  width: '480',
                  height: '320',
                }),
              ),
            ),
          ),
        ),
      );
    }
    // Last on the page, after the downloads, sponsors and Walk Score the server wrote below the homes: the line, with
    // the service's icon unless the owner hides it (the server says so on <body>: docs/fields.md).
    const icon =
      document.body.dataset.brandingIcon === 'off' ? undefined : h('img', { src: '/p/assets/showsuite-mark.svg', alt: '', width: '16', height: '16' });
    const footer = s.showBranding !== false ? h('footer', { class: 'brand' }, icon, t().poweredBy) : undefined;
    const info = byId('project-info');
    if (footer && info) info.after(footer);
    else if (footer) app.append(footer);
  }
  // The map or the site plan below the homes, loaded when it scrolls into view (web/views/places.ts).
  watchPlaces(open);
  await nextTask();
  pending = false;
  // Measuring the names forces a layout: after everything else, once.
  if (state.view.view === 'plan' && results.isConnected) labelShapes();
  app.setAttribute('aria-busy', 'false');
}

/**
 * The unit sheet and its contact form: a chunk of their own (with the hold and deposit panels, the calculator and the
 * lightbox), loaded and built the first time a unit is opened, or before, on the visitor's first touch or key.
 */
function ensureDetail(): Promise<typeof import('./views/detail.ts') | undefined> {
  detailLoading ??= loadPart(() => import('./views/detail.ts')).then((m) => {
    if (!m) {
      // Not fetched: the next tap tries again.
      detailLoading = undefined;
      return undefined;
    }
    setup(m);
    detail = m;
    return m;
  });
  return detailLoading;
}

/** Fetches the unit sheet ahead of the first tap, once the visitor touches or types (never during the page's load). */
function warmDetail() {
  const warm = () => {
    removeEventListener('pointerdown', warm, true);
    removeEventListener('keydown', warm, true);
    void ensureDetail();
  };
  addEventListener('pointerdown', warm, { capture: true, passive: true });
  addEventListener('keydown', warm, true);
}

function setup(m: typeof import('./views/detail.ts')) {
  m.setupDetail({
    closed,
    open,
    held(unit: Unit) {
      placedHold(unit);
      replaceUnit(unit);
      draw();
    },
    stale: () => live.refresh(),
    notice: () => {},
  });
}

function replaceUnit(next: Unit) {
  const b = loaded();
  phaseNames([next], b.project.phasePrefix);
  for (const list of [...b.floors.map((f) => f.units), b.unassignedUnits]) {
    const i = list.findIndex((u) => u._id === next._id);
    if (i >= 0) list[i] = { ...list[i], ...next };
  }
}

/** Everything that follows the state and the bundle, except inputs being typed in and the contact form. */
function draw() {
  if (!state.bundle) return;
  const info = byId('project-info');
  if (info) info.hidden = locked();
  if (locked()) {
    if (!byId('lock-form')) app.replaceChildren(lockScreen(draw));
    app.setAttribute('aria-busy', 'false');
    return;
  }
  // Built again where the lock screen took its place (the console's preview switching the lock screen off).
  if (!built || !results.isConnected) buildShell();
  updateControls();
  // The project's "From <lowest price>" in the hero (`pricesStartingAt`), kept current with the bundle.
  const from = fromPrice(allUnits());
  const heroText = document.querySelector('#hero .hero-text');
  if (from && heroText && !byId('project-from')) heroText.append(h('p', { class: 'hero-from', id: 'project-from' }));
  const fromEl = byId('project-from');
  if (fromEl) fromEl.textContent = from ?? '';
  // "Book a visit" (the project's Cal.com booking page), kept as the bundle says.
  syncHeroBooking(byId('hero-links') ?? heroText);
  const active = document.activeElement;
  const focused = active && (results.contains(active) || byId('floor-overview')?.contains(active)) ? active.id : '';
  const v = state.view;
  const floor = state.bundle.floors.find((f) => f._id === v.floor) ?? state.bundle.floors.at(0);
  // On the first draw what lies below the first screen (the building's floors, the list's cards) comes in tasks of its own.
  const later: Later | undefined = pending ? (fill) => void nextTask().then(fill) : undefined;
  const view =
    v.view === 'plan' && floor
      ? planWithList(planView(floor, open), floor, open)
      : v.view === 'building' && state.bundle.floors.length
        ? buildingView(
            open,
            (id) => actions.setFloor(id),
            // On the first draw the floors below the first screen come in tasks of their own.
            later,
          )
        : listView(open, later);
  if (results.firstChild !== view || results.childNodes.length !== 1) results.replaceChildren(view);
  results.dataset.view = v.view;
  // Every floor at a glance under the hero, before the views and filters (`showFloorOverview`), drawn again with the bundle.
  const overview = floorOverview((id) => actions.openFloor(id));
  const shownOverview = byId('floor-overview');
  if (overview && shownOverview) shownOverview.replaceWith(overview);
  else if (overview) app.prepend(overview);
  else shownOverview?.remove();
  // On the first draw the plan's names wait for `finishShell` (measuring them forces a layout).
  if (v.view === 'plan' && !pending) labelShapes();
  if (focused && document.activeElement?.id !== focused) byId(focused)?.focus({ preventScroll: true });
  trackScreen(v.view, v.unit && findUnit(v.unit) ? v.unit : undefined);
  if (!pending) app.setAttribute('aria-busy', 'false');
  // The open unit follows the address (back/forward) and the bundle (a sale while it is open).
  if (v.unit && findUnit(v.unit)) {
    if (detail) detail.openDetail(v.unit);
    else
      void ensureDetail().then((m) => {
        const unit = state.view.unit;
        if (m && unit && findUnit(unit)) m.openDetail(unit);
      });
  } else detail?.closeDetail();
  detail?.renderDetail();
  renderCompare();
  refreshPlaces();
  if (pending && !finishing) void finishShell();
}

/** The first bundle is still being turned into the first screen (see `start`). */
let starting = false;

/** The console's unsaved settings when this page is its preview (web/preview-frame.ts), drawn over the saved ones. */
let draft: Record<string, unknown> = {};
let savedSettings: Bundle['project'] | undefined;
/** A draft came while the first screen was being drawn: it is drawn once that is done. */
let draftWaiting = false;

function applyDraft(settings: Record<string, unknown>) {
  draft = settings;
  draftWaiting = starting;
  if (!state.bundle || !savedSettings || starting) return;
  // A language not yet loaded is fetched first (no words in English meanwhile).
  const lang = { ...savedSettings, ...draft }.projectLang;
  if (languageLoaded(lang)) drawDraft();
  else
    void loadLanguage(lang).then((ok) => {
      if (!ok) partFailed();
      if (draft === settings) drawDraft();
    });
}

function drawDraft() {
  if (!state.bundle || !savedSettings) return;
  state.bundle.project = { ...savedSettings, ...draft };
  // The lock screen is drawn again with the draft's fields and questions.
  byId('lock-form')?.remove();
  phaseNames([...state.bundle.floors.flatMap((f) => f.units), ...state.bundle.unassignedUnits], state.bundle.project.phasePrefix);
  settingsChanged();
  useLanguage(state.bundle.project.projectLang);
  applyTheme();
  prepareFormats();
  // The toolbar is built from the settings (filters, views): built again, then everything is drawn.
  if (built) app.querySelector('.controls')?.replaceWith(buildControls(actions));
  draw();
}

function onBundle(bundle: Bundle) {
  const first = !state.bundle;
  savedSettings = bundle.project;
  if (Object.keys(draft).length) bundle.project = { ...bundle.project, ...draft };
  phaseNames([...bundle.floors.flatMap((f) => f.units), ...bundle.unassignedUnits], bundle.project.phasePrefix);
  state.bundle = bundle;
  // A hold that lapsed is no longer ours to count down.
  for (const [id, until] of state.holds) if (Date.parse(until) <= Date.now()) state.holds.delete(id);
  holdsFollow(bundle);
  if (first) void start();
  // A newer bundle during the start is drawn by it.
  else if (!starting) draw();
}

/** The first screen, in pieces: language and theme, the number formats, the toolbar, the results (and `finishShell`). */
async function start() {
  starting = true;
  const b = loaded();
  // A page in French or Spanish fetches its words before anything is drawn (English ones are in app.js).
  if (!languageLoaded(b.project.projectLang) && !(await loadLanguage(b.project.projectLang))) partFailed();
  useLanguage(b.project.projectLang);
  applyTheme();
  state.view = fromAddress(defaults());
  // A unit the address names is opened on arrival; closing it stays on this page.
  pushedUnit = false;
  await nextTask();
  prepareFormats();
  await nextTask();
  // The toolbar, then the results: two pieces of the first screen (a locked presentation shows its lock instead).
  if (!locked()) {
    buildShell();
    updateControls();
    // Laid out and painted on its own (a frame), then the results.
    await nextFrame();
  }
  starting = false;
  // A draft from the console that came while the first screen was being drawn.
  if (draftWaiting) applyDraft(draft);
  draw();
  track('page_view');
  watchClicks(() => state.view.unit);
  warmDetail();
  // A shared shortlist (`?compare=`) opens its comparison; an embedded page tells its host its height.
  const shared = sharedShortlist();
  if (shared.length && !locked()) void openCompare(shared);
  reportSize();
}

window.addEventListener('popstate', () => {
  if (!state.bundle) return;
  pushedUnit = false;
  state.view = fromAddress(defaults());
  draw();
});

// The visitor's own holds (kept tokens, the e-mailed ?hold= link): web/holds.ts.
startHolds({
  changed: () => {
    if (state.bundle && !starting) draw();
  },
  unit(u) {
    replaceUnit(u);
    if (!starting) draw();
  },
  refresh: () => live.refresh(),
});
// Back from Stripe Checkout (?deposit=): where the deposit stands (web/deposit-return.ts).
startDepositReturn();

listenForDraft(applyDraft);

// The page's language (the server wrote it on <html>) is fetched beside the bundle, when it is not English.
void loadLanguage(document.documentElement.lang);

const live: Live = startLive(bundleUrl, {
  onBundle,
  onMissing: () => {
    app.replaceChildren(h('p', { class: 'empty' }, t().notFound));
    app.setAttribute('aria-busy', 'false');
  },
});
await live.refresh();
