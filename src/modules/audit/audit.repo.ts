import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { AuditAction } from './audit.schemas.ts';

type Q = Kysely<Database>;

/** One security event: who did it (and from which address), what, to whom or what, about which project. */
export interface AuditEntry {
  actor: { id: string; address?: string | undefined } | null;
  action: AuditAction;
  /** The account, token, lead or project the action was about. */
  subjectId?: string | null | undefined;
  projectId?: string | null | undefined;
  /** What the action needs said beyond that: field names, counts, never a secret. */
  detail?: Record<string, unknown>;
  /** Where it came from, when there is no signed-in actor (a failed sign-in). */
  address?: string | undefined;
  at: Date;
}

export async function recordAudit(db: Q, e: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at: e.at,
      actor_id: e.actor?.id ?? null,
      address: e.actor?.address ?? e.address ?? null,
      action: e.action,
      subject_id: e.subjectId ?? null,
      project_id: e.projectId ?? null,
      detail: JSON.stringify(e.detail ?? {}),
    })
    .execute();
}

export interface AuditRow {
  id: string;
  at: Date;
  actor_id: string | null;
  actor_username: string | null;
  address: string | null;
  action: string;
  subject_id: string | null;
  project_id: string | null;
  detail: Record<string, unknown>;
  total: string;
}

/**
 * A page of the log, newest first. `ownerId` set: only entries about projects that user owns, and what they did themselves
 * (a project owner's view);
 * unset: every entry (a service administrator's). One statement, the total before paging.
 */
export async function listAudit(
  db: Q,
  f: {
    ownerId?: string | undefined;
    actor?: string | undefined;
    action?: string | undefined;
    projectId?: string | undefined;
    from?: Date | undefined;
    to?: Date | undefined;
    skip: number;
    limit: number;
  },
): Promise<AuditRow[]> {
  const { rows } = await sql<AuditRow>`
    select a.id::text as id, a.at, a.actor_id, u.username as actor_username, a.address, a.action, a.subject_id, a.project_id, a.detail,
           count(*) over () as total
    from audit_log a
    left join users u on u.id = a.actor_id
    where (${f.ownerId ?? null}::text is null or a.actor_id = ${f.ownerId ?? null} or a.project_id in (select id from projects where user_id = ${f.ownerId ?? null}))
      and (${f.actor ?? null}::text is null or a.actor_id = ${f.actor ?? null})
      and (${f.action ?? null}::text is null or a.action = ${f.action ?? null})
      and (${f.projectId ?? null}::text is null or a.project_id = ${f.projectId ?? null})
      and (${f.from ?? null}::timestamptz is null or a.at >= ${f.from ?? null})
      and (${f.to ?? null}::timestamptz is null or a.at < ${f.to ?? null})
    order by a.at desc, a.id desc
    limit ${f.limit} offset ${f.skip}`.execute(db);
  return rows;
}

/** Forgets entries older than `before` (AUDIT_RETENTION_DAYS); answers how many. */
export async function pruneAudit(db: Q, before: Date): Promise<number> {
  const r = await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
