/** A field's value as text: nothing for none, JSON for an object or a list, the value itself otherwise. */
export function fieldText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  // Nothing for none (and for a function or a symbol, which no record holds).
  return '';
}

/** A value shown in a change list: a dash for none. */
export const shownText = (v: unknown) => fieldText(v) || '—';

/** RFC 4180: fields with commas, quotes or line breaks quoted, quotes doubled, CRLF between rows. */
export function toCsv(header: string[], rows: unknown[][]): string {
  const cell = (v: unknown) => {
    const s = fieldText(v);
    // A leading =, +, - or @ would be run as a formula by spreadsheet programs.
    const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
