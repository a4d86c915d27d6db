import { isTimeZone } from '../http/validation.ts';

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
