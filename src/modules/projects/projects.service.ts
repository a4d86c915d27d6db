import { projectDepositErrors } from '../deposits/amounts.ts';
import type { Kysely } from 'kysely';
import type { Ctx } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { authorize, can, PROJECT_GUARDED_FIELDS, type Level } from '../shared/access.ts';
import { createOnce, type CreateOutcome, type CreateRequest, type Created } from '../shared/idempotent.ts';
import { checkPerimeter } from '../shared/perimeter-check.ts';
import { changedFields, checkBodyId, childOrder, deepEqual, invalid, parseIfMatch, SERVER_KEPT, staleWrite, tagged, type Tagged } from '../shared/records.ts';
import { reorderChildren } from '../../db/reorder.repo.ts';
import { recordAudit } from '../audit/audit.repo.ts';
import { SECRET_MARK, type Changes } from '../events/event-model.ts';
import {
  BILLING_FIELDS,
  deleteProject,
  findProject,
  insertProject,
  listProjects,
  updateProject,
  type ProjectChange,
  type ProjectListParams,
} from './projects.repo.ts';
import { ALLOCATION_SECRET_PREFIX, secretName, toProject, type ProjectRow } from './projects.record.ts';
import { isPublished, previewLink } from './drafts.ts';
import { checkPlan } from '../billing/plans.ts';
import { queueQuantitySync } from '../billing/billing.jobs.ts';
import { isIntegrationField, PROJECT_DEFAULTS, PROJECT_SECRETS } from './projects.schemas.ts';
import { unitIdsInProject } from '../units/units.repo.ts';
import { touchGroupsListing } from '../groups/groups.repo.ts';
import { feedHost } from '../inventory/feed.ts';
import { EventsBlockList } from '../insights/blocklist.ts';
import { RefusedTarget, resolveTarget, webHost } from '../../lib/outbound.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

const SECRET = new Set<string>(PROJECT_SECRETS);
const COLUMN_OF = {
  name: 'name',
  namespace: 'namespace',
  hostName: 'host_name',
  projectType: 'project_type',
  administrators: 'administrators',
  editors: 'editors',
  user: 'user_id',
} as const;
/** Accepted so a fetched record can be sent back; kept elsewhere (leads through /leads). */
const IGNORED = new Set([...SERVER_KEPT, 'leads', 'waitlistees']);
const MANAGED = new Set(['administrators', 'editors', 'invites', 'allocations']);

type Body = Record<string, unknown>;
interface AllocationIn {
  name?: string;
  password?: string | null;
  allocation?: string;
}

/** Creates, and changes, projects: the access and record rules that touch several fields, tables or secrets. */
export class ProjectService {
  constructor(private readonly ctx: Ctx) {}

  /** Writes a create once per Idempotency-Key; its checks (name, units, feed target, unique names) run in that write. */
  create(owner: Principal, body: Body, req: CreateRequest): Promise<CreateOutcome> {
    return createOnce(this.ctx.db.kysely, 'projects', req, async (trx) => {
      const row = await this.#insert(owner, body, trx);
      return { record: toProject(row) as Created['record'], version: row.version };
    });
  }

  async #insert(owner: Principal, body: Body, db: Kysely<Database>): Promise<ProjectRow> {
    const fields = Object.fromEntries(Object.entries(body).filter(([k]) => !IGNORED.has(k) && !this.#billingKept(k) && k !== 'floors' && k !== 'user'));
    const { name } = fields;
    if (typeof name !== 'string') invalid([{ path: '/name', message: 'is required' }]);
    const id = newObjectId(this.ctx.clock.now());
    // A new project has no units yet, so any unit named here is another project's.
    await this.#checkOwnUnits(db, id, fields.commercialSpaces);
    checkBlockList(fields.eventsBlockList);
    checkPerimeter(fields.perimeter);
    await this.#checkTargets(fields);
    const change = this.#toChange({ ...PROJECT_DEFAULTS, ...fields }, {});
    // With plans on, a project made published (as the API's are unless `published: false`) takes a place in the owner's plan.
    const published = isPublished(change.data);
    const billed = await checkPlan(db, this.ctx.config.billing, this.ctx.clock.now(), owner.id, {
      publishes: published ? { projectId: id } : undefined,
      hidesBranding: change.data.showBranding === false,
    });
    if (billed && published) {
      Object.assign(change.data, billed);
      await queueQuantitySync(this.ctx.outbox, db, owner.id);
    }
    return insertProject(db, {
      id,
      userId: owner.id,
      name,
      namespace: change.columns.namespace ?? null,
      hostName: change.columns.host_name ?? null,
      projectType: change.columns.project_type ?? null,
      administrators: change.columns.administrators ?? [],
      editors: change.columns.editors ?? [],
      data: change.data,
      secrets: change.secretsSet,
    });
  }

  /** A visible project (404 otherwise). */
  async get(principal: Principal, id: string): Promise<Tagged> {
    const row = await this.#visible(principal, id);
    return tagged(toProject(row), row.version);
  }

  /** A signed link to a visible project's page, draft or not. */
  async previewLink(principal: Principal, id: string) {
    return previewLink(this.ctx.config, await this.#visible(principal, id), this.ctx.clock.now());
  }

  async #visible(principal: Principal, id: string): Promise<ProjectRow> {
    return authorize(principal, await findProject(this.ctx.db.kysely, id), 'read').row;
  }

  /** A page of visible projects as one JSON array text (each record as PostgreSQL wrote it), and the count before paging. */
  async list(principal: Principal, params: ProjectListParams) {
    const { rows, total } = await listProjects(this.ctx.db.kysely, principal, params);
    return { json: `[${rows.map((r) => r.item).join(',')}]`, total };
  }

  async patch(principal: Principal, id: string, body: Body, ifMatch: string | undefined): Promise<Tagged> {
    const row = await this.#patch(principal, id, body, ifMatch);
    return tagged(toProject(row), row.version);
  }

  /** PATCH: only real changes count; the caller's level decides which of them are allowed; one statement writes them. */
  async #patch(principal: Principal, id: string, body: Body, ifMatch: string | undefined): Promise<ProjectRow> {
    // Every level may edit, so this is the read check (404) that must come before If-Match (412) and the body (400).
    const { row, level } = authorize(principal, await findProject(this.ctx.db.kysely, id), 'edit');
    const ifVersion = parseIfMatch(ifMatch, row.version);
    checkBodyId(body, row.id);
    const current = toProject(row);
    const { floors, allocations, ...rest } = body;
    for (const key of Object.keys(rest)) if (this.#billingKept(key)) delete rest[key];

    const changes = changedFields(rest, current, IGNORED);
    // A secret cannot be compared without opening it, so any value counts as a change; clearing one that is not set does not.
    for (const key of SECRET) {
      if (rest[key] === null && !(key in row.secrets)) delete changes[key];
      else if (rest[key] !== undefined) changes[key] = rest[key];
    }
    const allocationsChanged =
      allocations !== undefined && !this.#sameAllocations(allocations as AllocationIn[], current.allocations as AllocationIn[] | undefined);
    this.#checkLevel(level, Object.keys(changes), allocationsChanged);
    await this.#checkOwnUnits(this.ctx.db.kysely, row.id, changes.commercialSpaces);
    checkBlockList(changes.eventsBlockList);
    checkPerimeter(changes.perimeter);
    // A currency or deposit Stripe would refuse is refused here, naming the field, rather than at a buyer's hold.
    const depositErrors = projectDepositErrors({ ...current, ...changes }, Object.keys(changes));
    if (depositErrors.length) invalid(depositErrors);

    const newFloorOrder = childOrder(floors as string[] | undefined, row.floor_ids, 'floors', 'is not a floor of this project');

    if (!Object.keys(changes).length && !allocationsChanged && !newFloorOrder) return row;
    await this.#checkTargets(changes);
    const change = this.#toChange(changes, row.secrets, allocationsChanged ? (allocations as AllocationIn[]) : undefined);
    const logged = this.#logged(current, row, changes, change, newFloorOrder);
    const db = this.ctx.db.kysely;
    await db.transaction().execute(async (trx) => {
      await this.#billPatch(trx, row, changes, change);
      if (!(await updateProject(trx, row.id, change, { at: this.ctx.clock.now(), ifVersion }))) throw staleWrite();
      if (newFloorOrder) await reorderChildren(trx, 'floors', row.id, newFloorOrder, this.ctx.clock.now());
      await this.ctx.events.append(trx, {
        projectId: row.id,
        type: 'project.updated',
        actor: { kind: 'user', id: principal.id },
        subjectId: row.id,
        changes: logged,
        now: this.ctx.clock.now(),
      });
      await this.#audit(trx, principal, row.id, changes, allocationsChanged, newFloorOrder !== undefined);
    });
    return this.#reread(row.id);
  }

  /** With plans on, `plan` and `subscriptionItem` are the service's to write (a body's values are ignored). */
  #billingKept(key: string): boolean {
    return this.ctx.config.billing.enabled && BILLING_FIELDS.includes(key);
  }

  /**
   * With plans on, in the PATCH's transaction: publishing takes a place in the owner's plan and hiding the branding
   * needs Pro (402 otherwise); a project published carries its billing fields, one going to draft loses them, and the
   * subscription's quantity follows through the outbox.
   */
  async #billPatch(trx: Kysely<Database>, row: ProjectRow, changes: Body, change: ProjectChange) {
    const was = isPublished(row.data);
    const will = 'published' in changes ? changes.published !== false : was;
    const billed = await checkPlan(trx, this.ctx.config.billing, this.ctx.clock.now(), row.user_id, {
      publishes: will && !was ? { projectId: row.id } : undefined,
      hidesBranding: 'showBranding' in changes && changes.showBranding === false,
    });
    if (!billed || was === will) return;
    if (will) Object.assign(change.data, billed);
    else change.dataRemove = BILLING_FIELDS;
    await queueQuantitySync(this.ctx.outbox, trx, row.user_id);
  }

  /**
   * The audit log's part of a PATCH: the names of the settings changed (never their values), and the member lists as
   * they now stand when they changed.
   */
  async #audit(trx: Kysely<Database>, principal: Principal, projectId: string, changes: Record<string, unknown>, allocations: boolean, floors: boolean) {
    const at = new Date(this.ctx.clock.now());
    const fields = [...Object.keys(changes), ...(allocations ? ['allocations'] : []), ...(floors ? ['floors'] : [])].sort();
    const isMembers = (f: string) => f === 'administrators' || f === 'editors';
    const members = fields.filter(isMembers);
    const settings = fields.filter((f) => !isMembers(f));
    if (settings.length)
      await recordAudit(trx, { actor: principal, action: 'settings_changed', subjectId: projectId, projectId, detail: { fields: settings }, at });
    if (members.length) {
      const detail = Object.fromEntries(members.map((m) => [m, changes[m]]));
      await recordAudit(trx, { actor: principal, action: 'members_changed', subjectId: projectId, projectId, detail, at });
    }
  }

  /**
   * DELETE (owner only): floors, units, leads and group memberships go with it (ON DELETE CASCADE). One transaction:
   * the groups that listed it get a new version first (their `projects` change), kept only if the delete happens.
   */
  async remove(principal: Principal, id: string, ifMatch: string | undefined): Promise<void> {
    const { row } = authorize(principal, await findProject(this.ctx.db.kysely, id), 'own');
    const ifVersion = parseIfMatch(ifMatch, row.version);
    await this.ctx.db.kysely.transaction().execute(async (trx) => {
      await touchGroupsListing(trx, id, this.ctx.clock.now());
      if (!(await deleteProject(trx, id, ifVersion))) throw ifVersion === undefined ? notFound('Project') : staleWrite();
    });
  }

  /**
   * Settings the service connects to (the inventory feed's `ftpUrl`, Spark's `srBaseUrl`) may not point at a loopback or
   * private address (unless ALLOW_PRIVATE_TARGETS): refused when set, naming the field. A name that does not resolve yet
   * is kept (the pull or the connection test reports it); one that resolves to a private address later fails there.
   */
  async #checkTargets(fields: Body) {
    const spark = typeof fields.srBaseUrl === 'string' && fields.srBaseUrl.trim() ? fields.srBaseUrl : undefined;
    const sparkHost = spark === undefined ? undefined : webHost(spark);
    if (spark !== undefined && sparkHost === undefined)
      invalid([{ path: '/srBaseUrl', message: 'must be an http(s) address, such as https://api.spark.re/v2' }]);
    const targets: [string, string | undefined][] = [
      ['ftpUrl', typeof fields.ftpUrl === 'string' ? feedHost(fields.ftpUrl) : undefined],
      ['srBaseUrl', sparkHost],
    ];
    for (const [field, host] of targets) {
      if (host === undefined) continue;
      try {
        await resolveTarget(host, this.ctx.config.allowPrivateTargets);
      } catch (err) {
        if (!(err instanceof RefusedTarget)) throw err;
        if (err.reason === 'private_address') invalid([{ path: `/${field}`, message: err.message }]);
      }
    }
  }

  async #reread(id: string): Promise<ProjectRow> {
    const row = await findProject(this.ctx.db.kysely, id);
    if (!row) throw notFound('Project');
    return row;
  }

  /** The event's `changes`: values before and after, but a secret (and an allocation password) only by name. */
  #logged(current: Body, row: ProjectRow, changes: Body, change: ProjectChange, floors: string[] | undefined): Changes {
    const out: Changes = {};
    for (const [key, value] of Object.entries(changes)) if (!SECRET.has(key)) out[key] = [current[key] ?? null, value];
    if (change.data.allocations !== undefined) out.allocations = [current.allocations ?? null, change.data.allocations];
    for (const key of Object.keys(change.secretsSet)) out[secretName(key)] = [key in row.secrets ? SECRET_MARK : null, SECRET_MARK];
    for (const key of change.secretsRemove) out[secretName(key)] = [SECRET_MARK, null];
    if (floors) out.floors = [row.floor_ids, floors];
    return out;
  }

  #checkLevel(level: Level, keys: string[], allocationsChanged: boolean) {
    if (keys.includes('user') && !can(level, 'own')) throw ERRORS.forbidden('Only the owner may change the owner');
    // Handing a project to someone would put it in their console unasked, and answering by whether the id exists would
    // tell which ids are accounts: any other id gets this one answer, before any look-up.
    if (keys.includes('user'))
      invalid([{ path: '/user', message: 'cannot be changed here: send an invitation with level "owner"; the project changes owner when it is accepted' }]);
    const managed = keys.filter((k) => MANAGED.has(k) || SECRET.has(k) || isIntegrationField(k) || PROJECT_GUARDED_FIELDS.has(k));
    if (allocationsChanged) managed.push('allocations');
    if (managed.length && !can(level, 'manage')) {
      throw ERRORS.forbidden(`Editors may not change ${managed.join(', ')}`);
    }
  }

  /**
   * `commercialSpaces` names units, and the public bundle shows them: only this project's own units (400 naming each
   * other id), so no one can put another project's unit on this page.
   */
  async #checkOwnUnits(db: Kysely<Database>, projectId: string, value: unknown) {
    if (!Array.isArray(value) || !value.length) return;
    const ids = value as string[];
    const own = await unitIdsInProject(db, projectId, [...new Set(ids)]);
    const errors = ids.flatMap((id, i) => (own.has(id) ? [] : [{ path: `/commercialSpaces/${i}`, message: 'is not a unit of this project' }]));
    if (errors.length) invalid(errors);
  }

  #sameAllocations(sent: AllocationIn[], current: AllocationIn[] | undefined) {
    if (sent.some((a) => a.password !== undefined)) return false;
    // Shaped as stored: absent name or allocation left out, not undefined.
    const asStored = sent.map(({ name, allocation }) => ({ ...(name !== undefined ? { name } : {}), ...(allocation !== undefined ? { allocation } : {}) }));
    return deepEqual(asStored, current ?? []);
  }

  /** Splits fields into columns, the `data` merge and sealed secrets. */
  #toChange(fields: Body, currentSecrets: Record<string, string>, allocations?: AllocationIn[]): ProjectChange {
    const change: ProjectChange = { columns: {}, data: {}, secretsSet: {}, secretsRemove: [] };
    const columns = change.columns as Record<string, unknown>;
    for (const [key, value] of Object.entries(fields)) {
      if (key in COLUMN_OF) {
        columns[COLUMN_OF[key as keyof typeof COLUMN_OF]] = key === 'hostName' && typeof value === 'string' ? value.toLowerCase() : value;
      } else if (SECRET.has(key)) {
        if (value === null) change.secretsRemove.push(key);
        else change.secretsSet[key] = this.ctx.secrets.seal(typeof value === 'string' ? value : JSON.stringify(value));
      } else if (key === 'allocations') {
        allocations = value as AllocationIn[];
      } else {
        change.data[key] = value;
      }
    }
    if (allocations) {
      change.data.allocations = allocations.map(({ name, allocation }) => ({
        ...(name !== undefined ? { name } : {}),
        ...(allocation !== undefined ? { allocation } : {}),
      }));
      const keep = new Set<string>();
      for (const a of allocations) {
        const key = `${ALLOCATION_SECRET_PREFIX}${a.name ?? ''}`;
        if (typeof a.password === 'string') {
          change.secretsSet[key] = this.ctx.secrets.seal(a.password);
          keep.add(key);
        } else if (a.password === undefined && currentSecrets[key]) keep.add(key);
      }
      for (const key of Object.keys(currentSecrets)) if (key.startsWith(ALLOCATION_SECRET_PREFIX) && !keep.has(key)) change.secretsRemove.push(key);
    }
    return change;
  }
}

/** `eventsBlockList` holds only what it can act on: a save naming anything else is refused, naming each entry. */
function checkBlockList(value: unknown) {
  if (typeof value !== 'string') return;
  const bad = EventsBlockList.unreadable(value);
  if (bad.length) {
    invalid([
      {
        path: '/eventsBlockList',
        message: `holds entries that are neither an address, a CIDR range nor an e-mail pattern: ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ', …' : ''}`,
      },
    ]);
  }
}
