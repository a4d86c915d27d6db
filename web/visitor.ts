/**
 * The visitor's own details (name, e-mail, phone), kept for the visit so the next form offers them again. Kept in
 * sessionStorage, not localStorage: a visit ends when the tab closes, so on a shared or showroom computer the next
 * person never finds the last one's details; nothing else about the visitor is stored (docs/presentation.md).
 */
export const VISITOR = ['firstName', 'lastName', 'email', 'phone'] as const;
export type VisitorKey = (typeof VISITOR)[number];
const KEY = 'showsuite:visitor';

export function savedVisitor(): Partial<Record<VisitorKey, string>> {
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) ?? '{}') as Record<string, unknown>;
    return Object.fromEntries(VISITOR.filter((k) => typeof saved[k] === 'string' && saved[k] !== '').map((k) => [k, String(saved[k]).slice(0, 200)]));
  } catch {
    return {};
  }
}

/** Keeps what was sent (empty values never overwrite what is known). */
export function saveVisitor(data: Record<string, string | undefined>) {
  try {
    const next = { ...savedVisitor(), ...Object.fromEntries(VISITOR.filter((k) => data[k]).map((k) => [k, data[k]])) };
    sessionStorage.setItem(KEY, JSON.stringify(next));
    // An earlier version kept these in localStorage, beyond the visit: forget them there.
    localStorage.removeItem(KEY);
  } catch {
    // Storage may be off (private mode, a frame without it): the next form simply starts empty.
  }
}

/** Fills the form's empty visitor fields from the visit's saved details. */
export function prefillVisitor(form: HTMLFormElement) {
  const saved = savedVisitor();
  for (const k of VISITOR) {
    const el = form.elements.namedItem(k);
    const value = saved[k];
    if (el instanceof HTMLInputElement && !el.value && value) el.value = value;
  }
}
