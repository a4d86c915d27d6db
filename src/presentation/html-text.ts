/** Text and addresses as the pages' HTML writes them. */

/** HTML text: the five characters that matter, as numeric references. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A non-empty string, trimmed. */
export const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** An address from a record, if it is http(s) or site-relative (never `javascript:` or `data:`). */
export function safeHref(v: unknown, base: string): string | undefined {
  const s = str(v);
  if (!s) return undefined;
  try {
    const url = new URL(s, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
