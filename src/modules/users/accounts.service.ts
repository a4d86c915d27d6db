import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import type { Lang } from '../../mail/templates.ts';
import { parseIfMatch, staleWrite } from '../shared/records.ts';
import type { Account } from './accounts.schemas.ts';
import { notifySessionsEnded, revokeUserSessions } from './sessions.repo.ts';
import { recordAudit } from '../audit/audit.repo.ts';
import { findUserById, listAccounts, setAccountActive, type AccountRow } from './users.repo.ts';
import { UserService } from './users.service.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

function toAccount(row: Omit<AccountRow, 'total'>): Account {
  const p = row.profile;
  return {
    _id: row.id,
    __v: row.version,
    username: row.username,
    role: row.role as Account['role'],
    ...(typeof p.name === 'string' ? { name: p.name } : {}),
    ...(typeof p.lastName === 'string' ? { lastName: p.lastName } : {}),
    active: row.deactivated_at === null,
    ...(row.deactivated_at ? { deactivatedAt: row.deactivated_at.toISOString() } : {}),
    ...(row.last_sign_in_at ? { lastSignInAt: new Date(row.last_sign_in_at).toISOString() } : {}),
    projects: row.projects,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * The service administrators' view of every account (the route lets only role admin in): list and search, deactivate
 * and reactivate, and mail a password-reset link.
 */
export class AccountService {
  constructor(private readonly ctx: Ctx) {}

  async list(f: { q?: string | undefined; active?: boolean | undefined; skip: number; limit: number }): Promise<{ records: Account[]; total: number }> {
    const rows = await listAccounts(this.ctx.db.kysely, f);
    return { records: rows.map(toAccount), total: Number(rows[0]?.total ?? 0) };
  }

  /**
   * Deactivating ends every session of the account and tells every node to stop trusting the ones it cached, in the
   * same commit; its API tokens are refused from then on (they are looked up on each request). Reactivating lets it
   * sign in again; nothing it had is restored (sessions stay ended).
   */
  async setActive(admin: Principal, id: string, active: boolean, ifMatch: string | undefined): Promise<Account> {
    const db = this.ctx.db.kysely;
    if (id === admin.id && !active) throw ERRORS.conflict('You cannot deactivate your own account; ask another administrator');
    const row = await findUserById(db, id);
    if (!row) throw notFound('Account');
    const ifVersion = parseIfMatch(ifMatch, row.version);
    const now = new Date(this.ctx.clock.now());
    await db.transaction().execute(async (trx) => {
      if ((row.deactivated_at === null) !== active) {
        if (!(await setAccountActive(trx, id, active, now, ifVersion))) throw staleWrite();
        await recordAudit(trx, { actor: admin, action: active ? 'account_reactivated' : 'account_deactivated', subjectId: id, at: now });
      }
      if (!active) {
        await revokeUserSessions(trx, id, now);
        await notifySessionsEnded(trx, id);
      }
    });
    if (!active) this.ctx.auth.forgetUser(id);
    return this.#one(id);
  }

  /** Mails the account a link to choose a new password (the forgotten-password mail); 409 for a deactivated one. */
  async sendPasswordReset(admin: Principal, id: string, lang: Lang): Promise<string> {
    const row = await findUserById(this.ctx.db.kysely, id);
    if (!row) throw notFound('Account');
    if (row.deactivated_at) throw ERRORS.conflict('This account is deactivated: reactivate it before sending a reset link');
    await new UserService(this.ctx).requestPasswordReset(row.username, lang);
    await recordAudit(this.ctx.db.kysely, { actor: admin, action: 'password_reset_sent', subjectId: id, at: new Date(this.ctx.clock.now()) });
    return `A link to choose a new password was mailed to ${row.username}.`;
  }

  async #one(id: string): Promise<Account> {
    const [row] = await listAccounts(this.ctx.db.kysely, { id, skip: 0, limit: 1 });
    if (!row) throw notFound('Account');
    return toAccount(row);
  }
}
