import { useEffect, useState } from 'preact/hooks';

/** A tiny history router: the path under /admin is the state; links are real <a href> elements. */
const listeners = new Set<() => void>();

export function navigate(to: string, opts: { replace?: boolean } = {}) {
  if (opts.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const l of listeners) l();
  const hash = to.includes('#') ? decodeURIComponent(to.slice(to.indexOf('#') + 1)) : '';
  if (hash) scrollToWhenDrawn(hash);
  else window.scrollTo(0, 0);
}

/**
 * A link to a part of a screen (`…/settings#set-waitlist`): scrolled to once the screen has drawn it, and kept there
 * while what is above it still settles (a preview frame or pictures loading push it down), until the person scrolls,
 * types or touches the page themselves, or after two seconds.
 */
function scrollToWhenDrawn(id: string, frames = 60) {
  const el = document.getElementById(id);
  if (!el) {
    if (frames > 0) requestAnimationFrame(() => scrollToWhenDrawn(id, frames - 1));
    return;
  }
  el.scrollIntoView({ block: 'start' });
  const settle = new ResizeObserver(() => {
    if (Math.abs(el.getBoundingClientRect().top) > 1) el.scrollIntoView({ block: 'start' });
  });
  settle.observe(document.body);
  const stop = () => {
    settle.disconnect();
    for (const type of PERSON) removeEventListener(type, stop, true);
  };
  for (const type of PERSON) addEventListener(type, stop, { capture: true, passive: true });
  setTimeout(stop, 2000);
}

/** What a person does to move the page themselves. */
const PERSON = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;

export function usePath(): string {
  const [path, setPath] = useState(location.pathname + location.search);
  useEffect(() => {
    const update = () => setPath(location.pathname + location.search);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** Plain clicks on same-origin /admin links stay in the app. */
export function interceptLinks() {
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = e.target instanceof Element ? e.target.closest('a') : null;
    if (!a || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith('/admin')) return;
    e.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}

/** `/admin/projects/:id/units` against a path: the named parts, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split('/');
  const s = path.split('?')[0].split('/');
  if (p.length !== s.length) return undefined;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) out[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return undefined;
  }
  return out;
}

export const searchParam = (path: string, name: string) => new URLSearchParams(path.split('?')[1] ?? '').get(name) ?? '';
