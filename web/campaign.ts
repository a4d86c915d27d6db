/**
 * The campaign that brought the visitor: the `utm_*` parameters of the address the page was opened at (the embed
 * script passes its host page's on), read once when the page starts, so moving around the page (which rewrites the
 * address) never loses them. Enquiries, holds and waitlist entries carry them to the lead (and on to the CRMs).
 */
export const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;
export type Utm = Partial<Record<(typeof UTM_KEYS)[number], string>>;

/** The campaign a query string carries (`utm_*`, trimmed, at most 200 characters each), or undefined when none. */
export function campaignOf(search: string): Utm | undefined {
  const q = new URLSearchParams(search);
  const out: Utm = {};
  for (const k of UTM_KEYS) {
    const v = q.get(`utm_${k}`)?.trim();
    if (v) out[k] = v.slice(0, 200);
  }
  return Object.keys(out).length ? out : undefined;
}

const first = typeof location === 'undefined' ? undefined : campaignOf(location.search);

/** The visitor's campaign, or undefined when the page was opened without one. */
export const campaign = (): Utm | undefined => first;

/** The address parameters that carry the campaign (kept when the page rewrites its address). */
export const UTM_PARAMS = UTM_KEYS.map((k) => `utm_${k}`);
