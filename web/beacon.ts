/**
 * Page analytics (docs/insights.md): the page tells POST /public/events what a visitor looks at. Nothing here may
 * delay or break the page: every beacon is sent when the browser is idle, with `navigator.sendBeacon` (a text/plain
 * body, so no preflight and nothing waits for an answer), and any failure is ignored. No cookie, no storage, no id.
 */
import { campaign } from './campaign.ts';
import { namespace } from './state.ts';

type EventType = 'page_view' | 'unit_view' | 'plan_view' | 'list_view' | 'building_view' | 'filter' | 'share' | 'gallery' | 'brochure';

const URL_PATH = '/public/events';
const FILTER_QUIET_MS = 1500;

const idle: (fn: () => void) => void =
  typeof requestIdleCallback === 'function' ? (fn) => requestIdleCallback(fn, { timeout: 3000 }) : (fn) => setTimeout(fn, 200);

/** What the analytics keep of the campaign: its source, medium and name. */
function utm(): Record<string, string> | undefined {
  const c = campaign();
  const out = Object.fromEntries((['source', 'medium', 'campaign'] as const).flatMap((k) => (c?.[k] ? [[k, c[k]]] : [])));
  return Object.keys(out).length ? out : undefined;
}

/** Another site that sent the visitor here; the page's own addresses say nothing about where visitors come from. */
function referrer(): string | undefined {
  try {
    const r = document.referrer;
    return r && new URL(r).origin !== location.origin ? r.slice(0, 2000) : undefined;
  } catch {
    return undefined;
  }
}

/** Reports one event, later (when idle); never throws. */
export function track(type: EventType, unit?: string): void {
  if (!namespace) return;
  idle(() => {
    try {
      const body = JSON.stringify({ namespace, type, ...(unit ? { unit } : {}), path: location.pathname.slice(0, 500), referrer: referrer(), utm: utm() });
      if (typeof navigator.sendBeacon === 'function') navigator.sendBeacon(URL_PATH, body);
      else void fetch(URL_PATH, { method: 'POST', body, keepalive: true, headers: { 'content-type': 'text/plain' } }).catch(() => undefined);
    } catch {
      // Analytics never matter more than the page.
    }
  });
}

let filterTimer: ReturnType<typeof setTimeout> | undefined;
/** A filter change, once the visitor stops changing filters for a moment (typing a price is one filter). */
export function trackFilter(): void {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => track('filter'), FILTER_QUIET_MS);
}

let lastView = '';
let lastUnit = '';
/** Called after every draw: reports a view the visitor moved to and a unit they opened (not redraws of the same). */
export function trackScreen(view: string, unit: string | undefined): void {
  if (view !== lastView) {
    lastView = view;
    if (view === 'plan' || view === 'list' || view === 'building') track(`${view}_view`);
  }
  if ((unit ?? '') !== lastUnit) {
    lastUnit = unit ?? '';
    if (unit) track('unit_view', unit);
  }
}

/** Shares, gallery images and brochures, seen from the document (so the views need no analytics code of their own). */
export function watchClicks(openUnit: () => string | undefined): void {
  document.addEventListener(
    'click',
    (e) => {
      const el = e.target instanceof Element ? e.target.closest('#share-unit, #unit-brochure, .gallery .thumb, .gallery a, .project-gallery a') : null;
      if (!el) return;
      const unit = el.closest('.project-gallery') ? undefined : openUnit();
      track(el.id === 'share-unit' ? 'share' : el.id === 'unit-brochure' ? 'brochure' : 'gallery', unit);
    },
    { capture: true, passive: true },
  );
}
