import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { listAudit, pruneAudit, type AuditRow } from './audit.repo.ts';
import type { AuditEntryRecord, AuditListQuery } from './audit.schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

function toEntry(row: AuditRow): AuditEntryRecord {
  return {
    _id: row.id,
    at: new Date(row.at).toISOString(),
    action: row.action as AuditEntryRecord['action'],
    actor: row.actor_id ? { _id: row.actor_id, ...(row.actor_username ? { username: row.actor_username } : {}) } : null,
    address: row.address,
    subject: row.subject_id,
    project: row.project_id,
    detail: row.detail,
  };
}

/** Reading the audit log: a service administrator reads every entry; anyone else the entries about projects they own and their own actions. */
export class AuditService {
  constructor(private readonly ctx: Pick<Ctx, 'db' | 'clock' | 'config'>) {}

  async list(principal: Principal, query: AuditListQuery): Promise<{ records: AuditEntryRecord[]; total: number }> {
    const { filters = {}, options = {} } = query;
    const rows = await listAudit(this.ctx.db.kysely, {
      ownerId: principal.role === 'admin' ? undefined : principal.id,
      actor: filters.actor,
      action: filters.action,
      projectId: filters.project,
      from: filters.from === undefined ? undefined : new Date(filters.from),
      to: filters.to === undefined ? undefined : new Date(filters.to),
      skip: options.skip ?? 0,
      limit: options.limit ?? 100,
    });
    return { records: rows.map(toEntry), total: Number(rows[0]?.total ?? 0) };
  }

  /** Forgets what is older than AUDIT_RETENTION_DAYS. Every node may run it: the same delete twice deletes nothing more. */
  prune(): Promise<number> {
    return pruneAudit(this.ctx.db.kysely, new Date(this.ctx.clock.now() - this.ctx.config.auditRetentionDays * DAY_MS));
  }
}
