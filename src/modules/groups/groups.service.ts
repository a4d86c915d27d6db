import type { Kysely } from 'kysely';
import type { Ctx } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { findProjectMemberships } from '../projects/projects.repo.ts';
import { authorize, can, levelOf } from '../shared/access.ts';
import { createOnce, type CreateOutcome, type CreateRequest, type Created } from '../shared/idempotent.ts';
import type { VisiblePage } from '../shared/list.repo.ts';
import { checkPerimeter } from '../shared/perimeter-check.ts';
import { changedFields, checkBodyId, invalid, parseIfMatch, repeatedIds, staleWrite, tagged, type Tagged } from '../shared/records.ts';
import { deleteGroup, findGroup, insertGroup, listGroups, setGroupProjects, toGroup, updateGroup, type GroupChange, type GroupRow } from './groups.repo.ts';
import { GROUP_DEFAULTS } from './groups.schemas.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import { checkPlan } from '../billing/plans.ts';

type Body = Record<string, unknown>;
const COLUMN_OF = {
  name: 'name',
  namespace: 'namespace',
  hostName: 'host_name',
  administrators: 'administrators',
  editors: 'editors',
  user: 'user_id',
} as const;
const MANAGED = ['administrators', 'editors', 'invites'];

/** A checked new group, ready to be written. */
export interface NewGroup {
  id: string;
  userId: string;
  name: string;
  change: GroupChange;
  projects: string[];
}

/** Splits fields into columns, the `data` merge and the project list. */
function toChange(fields: Body): { change: GroupChange; projects: string[] | undefined } {
  const change: GroupChange = { columns: {}, data: {} };
  const columns: Body = change.columns;
  let projects: string[] | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'projects') projects = value as string[];
    else if (key in COLUMN_OF) columns[COLUMN_OF[key as keyof typeof COLUMN_OF]] = key === 'hostName' ? String(value).toLowerCase() : value;
    else change.data[key] = value;
  }
  return { change, projects };
}

/** Creates, changes and deletes groups: access, change detection and the write in one place. */
export class GroupService {
  constructor(private readonly ctx: Ctx) {}

  /** Checks a create (a name, and projects the caller can see), then writes it once per Idempotency-Key. */
  async create(principal: Principal, body: Body, req: CreateRequest): Promise<CreateOutcome> {
    const fields = { ...GROUP_DEFAULTS, ...body };
    const { name } = fields;
    if (typeof name !== 'string' || !name) invalid([{ path: '/name', message: 'is required' }]);
    checkPerimeter(fields.perimeter);
    const { change, projects = [] } = toChange(fields);
    await this.#checkProjects(principal, projects);
    const group: NewGroup = { id: newObjectId(this.ctx.clock.now()), userId: principal.id, name, change, projects };
    return createOnce(this.ctx.db.kysely, 'groups', req, async (trx) => {
      // With plans on, a group page without the branding needs the Pro plan (402 otherwise).
      await checkPlan(trx, this.ctx.config.billing, this.ctx.clock.now(), principal.id, { hidesBranding: fields.showBranding === false });
      await insertGroup(trx, group);
      await setGroupProjects(trx, group.id, group.projects);
      const row = await this.#reread(group.id, trx);
      return { record: toGroup(row) as Created['record'], version: row.version };
    });
  }

  async get(principal: Principal, id: string): Promise<Tagged> {
    const { row } = authorize(principal, await findGroup(this.ctx.db.kysely, id), 'read', 'Group');
    return tagged(toGroup(row), row.version);
  }

  async list(principal: Principal, page: VisiblePage) {
    const { rows, total } = await listGroups(this.ctx.db.kysely, principal, page);
    return { records: rows.map(toGroup), total };
  }

  /** PATCH: only real changes count; the caller's level decides which are allowed; one transaction writes them. */
  async patch(principal: Principal, id: string, body: Body, ifMatch: string | undefined): Promise<Tagged> {
    const db = this.ctx.db.kysely;
    const { row, level } = authorize(principal, await findGroup(db, id), 'edit', 'Group');
    const ifVersion = parseIfMatch(ifMatch, row.version);
    checkBodyId(body, row.id);
    const changes = changedFields(body, toGroup(row));
    const keys = Object.keys(changes);
    if (keys.includes('user') && !can(level, 'own')) throw ERRORS.forbidden('Only the owner may change the owner');
    // As for a project: a group changes owner only through an ownership invitation its recipient accepts (one answer for any id).
    if (keys.includes('user')) {
      invalid([{ path: '/user', message: 'cannot be changed here: send an invitation with level "owner"; the group changes owner when it is accepted' }]);
    }
    checkPerimeter(changes.perimeter);
    const managed = keys.filter((k) => MANAGED.includes(k));
    if (managed.length && !can(level, 'manage')) throw ERRORS.forbidden(`Editors may not change ${managed.join(', ')}`);
    if (keys.length) {
      const { change, projects } = toChange(changes);
      if (projects) await this.#checkProjects(principal, projects);
      await db.transaction().execute(async (trx) => {
        if (changes.showBranding === false) await checkPlan(trx, this.ctx.config.billing, this.ctx.clock.now(), row.user_id, { hidesBranding: true });
        if (!(await updateGroup(trx, row.id, change, { at: this.ctx.clock.now(), ifVersion }))) throw staleWrite();
        if (projects) await setGroupProjects(trx, row.id, projects);
      });
    }
    const updated = await this.#reread(row.id, db);
    return tagged(toGroup(updated), updated.version);
  }

  /** DELETE (owner only); its projects stay. */
  async remove(principal: Principal, id: string, ifMatch: string | undefined): Promise<void> {
    const { row } = authorize(principal, await findGroup(this.ctx.db.kysely, id), 'own', 'Group');
    const ifVersion = parseIfMatch(ifMatch, row.version);
    if (!(await deleteGroup(this.ctx.db.kysely, row.id, ifVersion))) throw staleWrite();
  }

  /**
   * `group.projects` may hold only projects the caller can see, each once. Not a child order (a group
   * may list any visible project), so not `childOrder`: the ids are checked against the caller's view.
   */
  async #checkProjects(principal: Principal, ids: string[]) {
    if (!ids.length) return;
    const rows = await findProjectMemberships(this.ctx.db.kysely, ids);
    const visible = new Set(rows.filter((r) => levelOf(principal, r)).map((r) => r.id));
    const errors = [
      ...ids.flatMap((pid, i) => (visible.has(pid) ? [] : [{ path: `/projects/${i}`, message: 'is not a project you can see' }])),
      ...repeatedIds(ids, 'projects'),
    ];
    if (errors.length) invalid(errors);
  }

  async #reread(id: string, db: Kysely<Database>): Promise<GroupRow> {
    const row = await findGroup(db, id);
    if (!row) throw notFound('Group');
    return row;
  }
}
