/**
 * What the page tells others: the documented events (`unit_view`, `enquiry_sent`, `hold_placed`, `waitlist_joined`)
 * go to every listener added with `onPageEvent` (one hook point: analytics beacons can listen here) and, when the
 * page is embedded through the SDK (`embed.js`), to the host page by postMessage, addressed to the host's origin
 * only. The page also tells the SDK its height and whether a full-screen layer (unit sheet, filters, lightbox) is
 * open. No personal details are ever sent: a unit's id and name, the project's namespace. See docs/presentation.md.
 */
export type PageEventType = 'unit_view' | 'enquiry_sent' | 'hold_placed' | 'waitlist_joined';
export interface PageEvent {
  type: PageEventType;
  unitId: string;
  unitName: string;
}

type Listener = (e: PageEvent) => void;
const listeners: Listener[] = [];

/** Adds a listener for the page's events (called after the event happened; never blocks the page). */
export function onPageEvent(fn: Listener) {
  listeners.push(fn);
}

/**
 * The host's origin when the SDK placed the page: `?embed=<origin>` on the frame's address, and the page really in
 * a frame. Messages are addressed to that origin, so a page framed by someone else tells them nothing.
 */
function hostOrigin(): string | undefined {
  if (window.parent === window) return undefined;
  const claimed = new URLSearchParams(location.search).get('embed');
  if (!claimed) return undefined;
  try {
    const o = new URL(claimed).origin;
    return o === 'null' ? undefined : o;
  } catch {
    return undefined;
  }
}
export const embedded = hostOrigin();

function post(message: Record<string, unknown>) {
  if (embedded) window.parent.postMessage({ source: 'showsuite', namespace: document.body.dataset.namespace ?? '', ...message }, embedded);
}

export function emit(type: PageEventType, unit: { unitId: string; unitName: string }) {
  const event: PageEvent = { type, unitId: unit.unitId, unitName: unit.unitName };
  for (const fn of listeners) {
    try {
      fn(event);
    } catch {
      // A listener's failure is its own.
    }
  }
  post({ type, unitId: event.unitId, unitName: event.unitName });
}

/**
 * Embedded: reports the content's height as it changes, and whether a full-screen layer is open (the SDK then makes
 * the frame as tall as the host's window and brings it into view, so the layer is seen whole).
 */
export function reportSize() {
  if (!embedded) return;
  document.documentElement.classList.add('embedded');
  let last = '';
  const send = () => {
    const modal = document.body.classList.contains('dialog-open') || document.body.classList.contains('sheet-open');
    const height = Math.ceil(document.documentElement.scrollHeight);
    const key = `${height}:${modal}`;
    if (key === last) return;
    last = key;
    post({ type: 'resize', height, modal });
  };
  new ResizeObserver(send).observe(document.body);
  new MutationObserver(send).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  send();
}
