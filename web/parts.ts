/**
 * The page's parts that are not in app.js: each an `import()` esbuild makes a chunk of (the unit sheet, the
 * comparison, realtor access, French and Spanish words, the map, the site plan, the 3D viewer), fetched when it is
 * first used. A part that cannot be fetched (offline, or a newer deploy removed the file) is said to the visitor, who
 * can try again; nothing fails silently. docs/presentation.md.
 */
import { h } from './dom.ts';
import { t } from './i18n.ts';

let hideAfter: number | undefined;

/** Tells the visitor a part of the page could not be loaded (one notice at the foot of the screen, for 8 s). */
export function partFailed() {
  let note = document.getElementById('part-failed');
  if (!note) {
    note = h('p', { id: 'part-failed', class: 'part-failed', role: 'alert' });
    document.body.append(note);
  }
  note.textContent = t().partFailed;
  note.hidden = false;
  window.clearTimeout(hideAfter);
  hideAfter = window.setTimeout(() => note.setAttribute('hidden', ''), 8000);
}

/** Loads a part; undefined, with the visitor told so, when it could not be fetched (a later call tries again). */
export async function loadPart<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (e) {
    console.error(e);
    partFailed();
    return undefined;
  }
}
