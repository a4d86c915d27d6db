import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { fieldErrorText } from '../../http/errors.ts';
import { findTeamAccounts } from '../team/team.repo.ts';
import { displayName } from '../team/team.service.ts';
import { findProjectNames, findUnitNames } from './leads.repo.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

type Lead = Record<string, unknown> & { project: string; unit?: string; assignee: string | null };

/** The fields of a lead that are instants: written in the export's zone. */
const TIMES = ['createdAt', 'updatedAt', 'holdUntil', 'offeredAt'] as const;

/** A `tz` query value that names a time zone this runtime knows (`America/Toronto`, `UTC`), else 400 at `/tz`. */
export function checkTimeZone(tz: string): string {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    const errors = [{ path: '/tz', message: 'is not a time zone (an IANA name such as America/Toronto)' }];
    throw ERRORS.invalidQuery(fieldErrorText(errors), { errors });
  }
}

/** An instant as `YYYY-MM-DD HH:mm` on the wall clock of `timeZone`: what a spreadsheet reads as a date and time. */
export function wallClock(iso: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

/** The visitor's answers (the lock screen's questions, the custom form's fields): each pair's two keys. */
const ANSWERS = [
  ['questions', 'question', 'answer'],
  ['customFields', 'key', 'value'],
] as const;

const textOf = (v: unknown) => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');

/** Answers as a cell reads them: one `question: answer` line each. */
const answerLines = (pairs: unknown[], ask: string, said: string) =>
  pairs
    .map((p) => (typeof p === 'object' && p !== null ? (p as Record<string, unknown>) : {}))
    .map((p) => `${textOf(p[ask])}: ${textOf(p[said])}`)
    .join('\n');

/**
 * Leads as people read them in a spreadsheet: the project, unit and assignee by name (a member by profile name, else
 * e-mail; a unit the visitor typed stays as typed), times on the zone's wall clock, the zone in `timeZone`, and the
 * answers a line each.
 */
export async function readableLeads(db: Kysely<Database>, leads: Lead[], timeZone: string): Promise<Record<string, unknown>[]> {
  const projectIds = [...new Set(leads.map((l) => l.project))];
  const unitIds = [...new Set(leads.map((l) => l.unit).filter((u): u is string => typeof u === 'string' && /^[0-9a-f]{24}$/.test(u)))];
  const userIds = [...new Set(leads.map((l) => l.assignee).filter((a): a is string => !!a))];
  const projects = new Map((await findProjectNames(db, projectIds)).map((p) => [p.id, p.name]));
  const units = new Map((await findUnitNames(db, projectIds, unitIds)).map((u) => [u.id, u.name]));
  const users = new Map((userIds.length ? await findTeamAccounts(db, userIds) : []).map((u) => [u.id, displayName(u.profile) ?? u.username]));
  return leads.map((l) => {
    const row: Record<string, unknown> = { ...l, project: projects.get(l.project) ?? l.project, timeZone };
    if (l.unit !== undefined) row.unit = units.get(l.unit) ?? l.unit;
    if (l.assignee) row.assignee = users.get(l.assignee) ?? l.assignee;
    for (const k of TIMES) if (typeof l[k] === 'string') row[k] = wallClock(l[k], timeZone);
    for (const [k, ask, said] of ANSWERS) if (Array.isArray(l[k])) row[k] = answerLines(l[k], ask, said);
    return row;
  });
}
