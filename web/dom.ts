/** DOM helpers: element builders and address checks. No framework: see docs/presentation.md for why. */
import { mediaSrcset } from '../src/modules/media/srcset.ts';

type Attrs = Record<string, unknown>;
export type Child = Node | string | false | undefined | null;

/** An element with attributes (`on*` functions become listeners; false/undefined are left out) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  for (const c of children) if (c !== undefined && c !== false && c !== null) el.append(c);
  return el;
}

export const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  for (const c of children) if (c !== undefined && c !== false && c !== null) el.append(c);
  return el;
}

function setAttrs(el: Element, attrs: Attrs) {
  // for…in, not Object.entries: no array per element (hundreds of cells are built per draw).
  for (const k in attrs) {
    const v = attrs[k];
    if (v === undefined || v === false || v === null) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v as EventListener);
    // What is left is an attribute's text or number (the callers' literals).
    else el.setAttribute(k, v === true ? '' : typeof v === 'number' ? String(v) : (v as string));
  }
}

/** A link or image address from the bundle, if it is http(s) or relative: never `javascript:` or `data:` text. */
export function safeUrl(v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  try {
    const url = new URL(v, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `srcset` and `sizes` for an uploaded picture drawn `sizes` wide, so the browser asks for that width; nothing for
 * other addresses (the demo's static pictures, SVGs). Spread before `src`: an image's fetch starts when `src` is set.
 */
export function sized(url: string | undefined, sizes: string, largest?: number): { srcset?: string; sizes?: string } {
  const srcset = mediaSrcset(url, location.origin, largest);
  return srcset ? { srcset, sizes } : {};
}

// The caller names the element's type, as with querySelector<T>.
/** A form's fields as trimmed text (the page's forms have no file inputs). */
export const formFields = (form: HTMLFormElement): [string, string][] =>
  [...new FormData(form).entries()].map(([k, v]) => [k, typeof v === 'string' ? v.trim() : '']);

// The caller names the element's type, as with querySelector<T>.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T | null;

/** An element the page always has (its shell, or a part built before this is called): a missing one is a bug, named in the error. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- as byId: the caller names the type
export function requireById<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = byId<T>(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el;
}

/** Whether the page is laid out for a phone (the same breakpoint as the stylesheet). */
export const isPhone = () => window.matchMedia('(max-width: 720px)').matches;

/**
 * Resolves in a later task, so the browser can paint and answer input in between: the page's start-up is cut into
 * pieces this way (each piece short; a phone's long tasks are what Lighthouse counts as blocking time).
 */
export function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  return scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0));
}

/** Runs a piece of drawing in a later task of its own (`nextTask`): what a view is given on the page's first draw. */
export type Later = (fill: () => void) => void;

/**
 * Puts `items` into `list`, each drawn by `draw` (with its index): all at once without `later`; with it, the first
 * `first` now and the rest `per` to a task, in order (one long task otherwise, with 200 homes). A batch whose list was
 * drawn again meanwhile (no longer on the page) is dropped: the new list has every item, and an element a view keeps
 * for reuse would be moved out of it, not copied, by an append. Returns `list`.
 */
export function fillInTasks<T, E extends Element>(
  list: E,
  items: T[],
  draw: (item: T, i: number) => Node,
  later: Later | undefined,
  first: number,
  per: number,
): E {
  list.append(...items.slice(0, later ? first : undefined).map((x, i) => draw(x, i)));
  if (later)
    for (let i = first; i < items.length; i += per)
      later(() => {
        if (list.isConnected) list.append(...items.slice(i, i + per).map((x, k) => draw(x, i + k)));
      });
  return list;
}

/**
 * Resolves once the browser has drawn a frame (or after 100 ms, where frames are not drawn: a tab in the background):
 * what was added before is laid out and painted in that frame, apart from what comes after (a phone lays out a long
 * page's pieces in several short tasks rather than one long one).
 */
export function nextFrame(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}

/**
 * A link put on the clipboard (when the browser allows it) and shown selected in a read-only field either way, for
 * the visitor to copy: the words say which happened. Returns the words and the field.
 */
export async function linkToCopy(url: string, id: string, words: { copied: string; copy: string }): Promise<[string, HTMLInputElement]> {
  let copied = false;
  try {
    await navigator.clipboard.writeText(url);
    copied = true;
  } catch {
    copied = false;
  }
  return [copied ? words.copied : words.copy, h('input', { type: 'text', readonly: true, value: url, id, 'aria-label': words.copy })];
}
