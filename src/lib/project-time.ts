/** Whether this runtime's Intl knows `value` as a time zone (an IANA name: `Europe/Paris`, `America/Toronto`, `UTC`). */
export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
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
  return `${new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(new Date(at))} (${zone})`;
}
