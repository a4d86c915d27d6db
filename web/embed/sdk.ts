/**
 * The embed SDK (`/embed.js` on the pages origin): one script tag on a developer's site places a project's page in
 * a frame right after the tag, sizes the frame to the page's content, and passes on the page's events as DOM events
 * on the script element (they bubble, so `document.addEventListener` hears them too):
 *
 *   <script src="https://homes.example.com/embed.js" data-project="harbourview" async></script>
 *   document.addEventListener('showsuite', (e) => console.log(e.detail)); // { type, namespace, unitId, unitName }
 *
 * Messages are accepted only from that frame and the pages origin. Documented in docs/presentation.md.
 */
import { campaignOf } from '../campaign.ts';

/** A message field as text: the page sends strings (and numbers); anything else is nothing. */
const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

const EVENTS = ['unit_view', 'enquiry_sent', 'hold_placed', 'waitlist_joined'];

function place(script: HTMLScriptElement) {
  const origin = new URL(script.src, location.href).origin;
  const project = script.dataset.project ?? '';
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(project)) {
    console.warn('Showsuite embed: data-project must name a project (its namespace)');
    return;
  }
  const unit = script.dataset.unit;
  const page = new URL(`/p/${project}${unit && /^[0-9a-f]{24}$/.test(unit) ? `/units/${unit}` : ''}`, origin);
  const view = script.dataset.view;
  if (view === 'building' || view === 'plan' || view === 'list') page.searchParams.set('view', view);
  // Where the page may send its messages: this site's origin, and no other.
  page.searchParams.set('embed', location.origin);
  // The campaign that brought the visitor to this site reaches the page's enquiries and holds.
  for (const [k, v] of Object.entries(campaignOf(location.search) ?? {})) page.searchParams.set(`utm_${k}`, v);
  const frame = document.createElement('iframe');
  frame.src = page.href;
  frame.title = script.dataset.title ?? 'Homes';
  frame.setAttribute('allow', 'fullscreen; clipboard-write; web-share; xr-spatial-tracking');
  frame.style.cssText = `display:block;width:100%;border:0;height:${Math.min(Math.max(Number(script.dataset.height) || 900, 200), 5000)}px`;
  script.after(frame);
  let savedScroll: number | undefined;
  window.addEventListener('message', (e: MessageEvent) => {
    if (e.origin !== origin || e.source !== frame.contentWindow) return;
    const d = e.data as Record<string, unknown> | null;
    if (!d || typeof d !== 'object' || d.source !== 'showsuite' || typeof d.type !== 'string') return;
    if (d.type === 'resize') {
      if (d.modal === true) {
        // A unit sheet, the filters or the lightbox: the frame as tall as the window, in view, until it closes.
        savedScroll ??= window.scrollY;
        frame.style.height = `${window.innerHeight}px`;
        frame.scrollIntoView({ block: 'start' });
      } else if (typeof d.height === 'number' && Number.isFinite(d.height)) {
        frame.style.height = `${Math.min(Math.max(Math.ceil(d.height), 200), 100000)}px`;
        if (savedScroll !== undefined) window.scrollTo(0, savedScroll);
        savedScroll = undefined;
      }
      return;
    }
    if (!EVENTS.includes(d.type)) return;
    const detail = { type: d.type, namespace: text(d.namespace), unitId: text(d.unitId), unitName: text(d.unitName) };
    script.dispatchEvent(new CustomEvent(`showsuite:${d.type}`, { detail, bubbles: true }));
    script.dispatchEvent(new CustomEvent('showsuite', { detail, bubbles: true }));
  });
}

const me = document.currentScript;
if (me instanceof HTMLScriptElement) place(me);
