/**
 * Formatters by language and zone, made once: building an `Intl.DateTimeFormat` costs about as much as a small
 * query, and every hold formats its end twice. The few languages and zones in use keep this small; past LIMIT
 * entries it starts over.
 */
const formats = new Map<string, Intl.DateTimeFormat>();
const LIMIT = 500;

function format(lang: string, zone: string): Intl.DateTimeFormat {
  const key = `${lang} ${zone}`;
  let f = formats.get(key);
  if (!f) {
    if (formats.size >= LIMIT) formats.clear();
    f = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone });
    formats.set(key, f);
  }
  return f;
}

/** Whether this runtime's Intl knows `value` as a time zone (an IANA name: `Europe/Paris`, `America/Toronto`, `UTC`). */
export function isTimeZone(value: string): boolean {
  try {
    format('en', value);
    return true;
  } catch {
    return false;
  }
}

/** A project's time zone: its `timeZone` setting when this runtime knows it, else UTC (what projects without one read in). */
export function projectZone(settings: Record<string, unknown>): string {
  return typeof settings.timeZone === 'string' && isTimeZone(settings.timeZone) ? settings.timeZone : 'UTC';
}

/**
 * An instant as the project's people read it: date and time in `lang`, in the project's zone, the zone named after it
 * ("28 Nov 2026, 11:06 (America/Toronto)"), so nobody has to guess which clock it is.
 */
export function projectTime(at: Date | string, settings: Record<string, unknown>, lang: string): string {
  const zone = projectZone(settings);
  return `${format(lang, zone).format(new Date(at))} (${zone})`;
}
