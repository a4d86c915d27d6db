import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../context.ts';
import { hashToken, type Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { inviteMail, langOf } from '../../mail/templates.ts';
import { authorize } from '../shared/access.ts';
import { recordAudit } from '../audit/audit.repo.ts';
import { findUserById, findUserByUsername, insertUser, type UserRow } from '../users/users.repo.ts';
import { deactivated, type Issued } from '../users/auth.service.ts';
import { UserService } from '../users/users.service.ts';
import type { User } from '../users/users.schemas.ts';
import { addProjectMember, listProjectInvite, transferProjectOwner, unlistProjectInvite } from '../projects/projects.repo.ts';
import { addGroupMember, listGroupInvite, transferGroupOwner, unlistGroupInvite } from '../groups/groups.repo.ts';
import { findInviteByToken, findTarget, insertInvite, markAccepted, revokeInvite, toInvite, type InviteRow, type TargetKind } from './invites.repo.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import { billTransfer } from '../billing/billing.service.ts';

/** An invitation link works for this long. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type Level = 'administrator' | 'editor' | 'owner';

/** The writes of an invited record's lists, each in its record's module. */
const LISTS = {
  project: { listInvite: listProjectInvite, unlistInvite: unlistProjectInvite, addMember: addProjectMember, transferOwner: transferProjectOwner },
  group: { listInvite: listGroupInvite, unlistInvite: unlistGroupInvite, addMember: addGroupMember, transferOwner: transferGroupOwner },
} as const;

const what = (kind: TargetKind) => (kind === 'project' ? 'Project' : 'Group');

/** Why a token no longer works, or undefined while it does. */
function spent(invite: InviteRow, now: number): string | undefined {
  if (invite.accepted_at) return 'This invitation was already accepted';
  if (invite.revoked_at) return 'This invitation was revoked';
  if (new Date(invite.expires_at).getTime() <= now) return 'This invitation has expired';
  return undefined;
}

/** Invitations to a project or group: made and revoked by its managers, looked up and accepted by token. */
export class InviteService {
  constructor(private readonly ctx: Ctx) {}

  /** Lists the invite on the record and queues its mail, in one transaction; the token only ever leaves in the mail. */
  async create(principal: Principal, kind: TargetKind, id: string, body: { email: string; firstName?: string; lastName?: string; level: Level }) {
    const token = randomBytes(32).toString('base64url');
    const now = this.ctx.clock.now();
    const invite = await this.ctx.db.kysely.transaction().execute(async (trx) => {
      // Handing the record over is the owner's alone; inviting members is for its managers.
      const { row: target } = authorize(principal, await findTarget(trx, kind, id), body.level === 'owner' ? 'own' : 'manage', what(kind));
      const row = await insertInvite(trx, {
        id: newObjectId(now),
        tokenHash: hashToken(token),
        kind,
        targetId: id,
        // Usernames match without regard to case; the invite keeps the address as usernames are compared.
        email: body.email.toLowerCase(),
        firstName: body.firstName,
        lastName: body.lastName,
        level: body.level,
        invitedBy: principal.id,
        createdAt: new Date(now),
        expiresAt: new Date(now + INVITE_TTL_MS),
      });
      const invite = toInvite(row);
      await LISTS[kind].listInvite(trx, id, invite, this.ctx.clock.now());
      await recordAudit(trx, {
        actor: principal,
        action: 'member_invited',
        subjectId: row.id,
        projectId: kind === 'project' ? id : null,
        detail: { kind, targetId: id, level: row.level },
        at: new Date(now),
      });
      const settings = target.data;
      await this.ctx.mail.queue(
        trx,
        inviteMail({
          to: row.email,
          lang: langOf(kind === 'project' ? settings.projectLang : settings.groupLang),
          inviter: principal.username,
          targetName: target.name,
          level: row.level,
          link: `${this.ctx.config.mail.publicUrl}/admin/invites/${token}`,
          now,
        }),
      );
      return invite;
    });
    this.ctx.mail.wake();
    return invite;
  }

  /** The link stops working and the invite leaves the record's `invites`. */
  async revoke(principal: Principal, kind: TargetKind, id: string, inviteId: string): Promise<void> {
    await this.ctx.db.kysely.transaction().execute(async (trx) => {
      authorize(principal, await findTarget(trx, kind, id), 'manage', what(kind));
      if (!(await revokeInvite(trx, kind, id, inviteId, new Date(this.ctx.clock.now())))) throw notFound('Invite');
      await LISTS[kind].unlistInvite(trx, id, inviteId, this.ctx.clock.now());
      await recordAudit(trx, {
        actor: principal,
        action: 'invite_revoked',
        subjectId: inviteId,
        projectId: kind === 'project' ? id : null,
        detail: { kind, targetId: id },
        at: new Date(this.ctx.clock.now()),
      });
    });
  }

  /** What a live token is for: 404 unknown, 410 used, revoked, expired or its record gone. */
  async lookup(token: string) {
    const db = this.ctx.db.kysely;
    const invite = await this.#live(token);
    const target = await findTarget(db, invite.target_kind, invite.target_id);
    if (!target) throw ERRORS.gone(`The ${invite.target_kind} of this invitation no longer exists`);
    return {
      email: invite.email,
      level: invite.level,
      ...(invite.first_name !== null ? { firstName: invite.first_name } : {}),
      ...(invite.last_name !== null ? { lastName: invite.last_name } : {}),
      expiresAt: new Date(invite.expires_at).toISOString(),
      [invite.target_kind]: { _id: target.id, name: target.name },
    };
  }

  /**
   * Signed in as the invited address, that user joins; not signed in, the account is made (or, when it exists, its
   * password must be sent). The invitee lands in `administrators` or `editors` and is signed in.
   */
  async accept(
    token: string,
    principal: Principal | undefined,
    body: { password?: string; name?: string; lastName?: string },
    ip: string,
  ): Promise<{ user: User; issued: Issued }> {
    const db = this.ctx.db.kysely;
    const tokenHash = hashToken(token);
    const first = await this.#live(token);
    if (principal && principal.username.toLowerCase() !== first.email.toLowerCase()) {
      throw ERRORS.forbidden('This invitation is for another address; sign out or sign in as the invited user');
    }

    // The slow work (hashing, verifying a password) before the transaction; the transaction re-checks the invite.
    let userId = principal?.id;
    let newUser: { id: string; passwordHash: string; profile: Record<string, unknown> } | undefined;
    if (!userId) {
      const { password, name, lastName } = body;
      if (password === undefined) throw ERRORS.invalidBody('password is required', { errors: [{ path: '/password', message: 'is required' }] });
      const existing = await findUserByUsername(db, first.email);
      if (existing) {
        // The same failure counter as login: an invitation is no way around the lockout.
        if (!(await this.ctx.authService.checkPassword(first.email, password, ip)))
          throw ERRORS.invalidCredentials('This address has an account: send its password, or sign in first');
        if (existing.deactivated_at) throw deactivated();
        userId = existing.id;
      } else {
        const profile: Record<string, unknown> = {};
        const n = name ?? first.first_name;
        const l = lastName ?? first.last_name;
        if (n) profile.name = n;
        if (l) profile.lastName = l;
        newUser = { id: newObjectId(this.ctx.clock.now()), passwordHash: await this.ctx.passwords.hash(password), profile };
      }
    }

    const user = await db.transaction().execute(async (trx) => {
      const invite = await findInviteByToken(trx, tokenHash, { lock: true });
      if (!invite) throw ERRORS.gone('This invitation no longer exists');
      const gone = spent(invite, this.ctx.clock.now());
      if (gone) throw ERRORS.gone(gone);
      const target = await findTarget(trx, invite.target_kind, invite.target_id);
      if (!target) throw ERRORS.gone(`The ${invite.target_kind} of this invitation no longer exists`);
      let row: UserRow | undefined;
      if (newUser) {
        row = await insertUser(trx, { id: newUser.id, username: invite.email, passwordHash: newUser.passwordHash, role: 'user', profile: newUser.profile });
      } else if (userId) {
        row = await findUserById(trx, userId);
      }
      if (!row) throw ERRORS.unauthorized('The signed-in user no longer exists');
      let previousOwner: string | undefined;
      if (invite.level === 'owner') {
        previousOwner = await LISTS[invite.target_kind].transferOwner(trx, invite.target_id, row.id, this.ctx.clock.now());
        // A published project takes a place in its new owner's plan, as publishing it would.
        if (invite.target_kind === 'project')
          await billTransfer(trx, { config: this.ctx.config.billing, outbox: this.ctx.outbox, now: this.ctx.clock.now() }, target, row.id, previousOwner);
      } else await LISTS[invite.target_kind].addMember(trx, invite.target_id, row.id, invite.level, this.ctx.clock.now());
      await LISTS[invite.target_kind].unlistInvite(trx, invite.target_id, invite.id, this.ctx.clock.now());
      await markAccepted(trx, invite.id, row.id, new Date(this.ctx.clock.now()));
      if (previousOwner) {
        await recordAudit(trx, {
          actor: { id: row.id, address: ip },
          action: 'owner_changed',
          subjectId: invite.target_id,
          projectId: invite.target_kind === 'project' ? invite.target_id : null,
          detail: { kind: invite.target_kind, targetId: invite.target_id, from: previousOwner, to: row.id },
          at: new Date(this.ctx.clock.now()),
        });
      }
      await recordAudit(trx, {
        actor: { id: row.id, address: ip },
        action: 'member_joined',
        subjectId: invite.id,
        projectId: invite.target_kind === 'project' ? invite.target_id : null,
        detail: { kind: invite.target_kind, targetId: invite.target_id, level: invite.level },
        at: new Date(this.ctx.clock.now()),
      });
      return row;
    });
    const issued = await this.ctx.authService.signIn(user);
    // The whole record, as the login answer has it (its worked-out fields included).
    return { user: await new UserService(this.ctx).record(user), issued };
  }

  /** The invite of a token that still works: 404 unknown, 410 used, revoked or expired. */
  async #live(token: string): Promise<InviteRow> {
    const invite = await findInviteByToken(this.ctx.db.kysely, hashToken(token));
    if (!invite) throw notFound('Invitation');
    const why = spent(invite, this.ctx.clock.now());
    if (why) throw ERRORS.gone(why);
    return invite;
  }
}
