import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/** How the caller relates to a project or group. Platform admins act as owners. */
export type Level = 'owner' | 'administrator' | 'editor';

/** What a route is about to do. */
export type Action =
  | 'read' // read project, floors, units
  | 'edit' // change content fields, create/change floors and units
  | 'manage' // change secrets, integration settings, administrators, editors, invites
  | 'delete-child' // delete floors and units
  | 'read-leads'
  | 'own'; // delete the project, change its owner

const ALLOWED: Record<Action, readonly Level[]> = {
  read: ['owner', 'administrator', 'editor'],
  edit: ['owner', 'administrator', 'editor'],
  manage: ['owner', 'administrator'],
  'delete-child': ['owner', 'administrator'],
  'read-leads': ['owner', 'administrator'],
  own: ['owner'],
};

export interface Membership {
  user_id: string;
  administrators: string[];
  editors: string[];
}

export function levelOf(principal: Principal, record: Membership): Level | undefined {
  if (principal.role === 'admin' || record.user_id === principal.id) return 'owner';
  if (record.administrators.includes(principal.id)) return 'administrator';
  if (record.editors.includes(principal.id)) return 'editor';
  return undefined;
}

/**
 * The one access rule: a record the caller cannot see is 404 (never 403, so ids do not leak);
 * a visible record the caller may not do this to is 403. Returns the record, narrowed to found, and the caller's level.
 */
export function authorize<T extends Membership>(principal: Principal, record: T | undefined, action: Action, what = 'Project'): Authorized<T> {
  const level = record && levelOf(principal, record);
  if (!record || !level) throw notFound(what);
  if (!ALLOWED[action].includes(level)) {
    throw ERRORS.forbidden(`${level === 'editor' ? 'Editors' : 'Administrators'} may not ${describe(action)}`);
  }
  return { row: record, level };
}

export interface Authorized<T> {
  row: T;
  level: Level;
}

export const can = (level: Level, action: Action) => ALLOWED[action].includes(level);

/**
 * Fields that run code on a project's page or send its data somewhere (tag-manager code, embed codes and snippets,
 * where leads and reports are mailed, what insights leave out, the inventory feed and its mapping). An editor could
 * otherwise run script on the page the owner opens or read leads by mail, so only the owner and administrators
 * change them (the `manage` action); an editor sending the stored value back is not a change. `ftp*` and `yi*`
 * fields are integration settings and guarded as such.
 */
export const PROJECT_GUARDED_FIELDS: ReadonlySet<string> = new Set([
  'gtmEnabled',
  'gtmHeadCode',
  'gtmBodyCode',
  'customButtonSnippet',
  'formsSendTo',
  'reportSendTo',
  'eventsBlockList',
  'excludeBlockedEvents',
  'yiStatusMapping',
]);
export const UNIT_GUARDED_FIELDS: ReadonlySet<string> = new Set(['embedCode', 'customButtonSnippet']);

/** 403 when a caller who may not `manage` changes one of these fields; `where` prefixes the message (a bulk item). */
export function checkGuardedFields(level: Level, changed: Iterable<string>, guarded: ReadonlySet<string>, where = '') {
  if (can(level, 'manage')) return;
  const hit = [...changed].filter((k) => guarded.has(k));
  if (hit.length) throw ERRORS.forbidden(`${where}Editors may not change ${hit.join(', ')} (code on the page or where data is sent)`);
}

function describe(action: Action) {
  switch (action) {
    case 'manage':
      return 'change secrets, integration settings, administrators, editors or invites';
    case 'delete-child':
      return 'delete floors or units';
    case 'read-leads':
      return 'read leads';
    case 'own':
      return 'delete the project or change its owner';
    default:
      return 'do this';
  }
}
