import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { hashToken, type Principal } from '../../http/auth.ts';
import { type FieldError } from '../../http/errors.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { resetMail, type Lang } from '../../mail/templates.ts';
import { deepEqual, invalid, parseIfMatch, staleWrite } from '../shared/records.ts';
import { claimPasswordReset, countResetsSince, insertPasswordReset, spendUserResets } from './password-reset.repo.ts';
import { recordAudit } from '../audit/audit.repo.ts';
import { toInvite } from '../invites/invites.repo.ts';
import { revokeUserSessions } from './sessions.repo.ts';
import { deleteUserApiTokens } from '../tokens/tokens.repo.ts';
import {
  findCircle,
  findMemberships,
  findNamespacesLike,
  findUserById,
  findUserByUsername,
  insertUser,
  mergeUserProfile,
  setUserPassword,
  toUser,
  type Derived,
  type UserRow,
} from './users.repo.ts';
import { SelfEditable, type CreateUserBody, type PatchMeBody, type User } from './users.schemas.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import { checkPlan } from '../billing/plans.ts';

/** A namespace slug (the pattern of `Namespace`): lower-case letters and digits joined by single dashes, at most 50. */
export const slugOf = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 50)
    .replace(/-+$/, '');

/** The slug a user's next project is proposed: their company's, else their name's, else their address's local part. */
function proposedSlug(row: UserRow): string {
  const p = row.profile;
  const text = (k: string) => (typeof p[k] === 'string' ? p[k] : '');
  for (const source of [text('companyName'), `${text('name')} ${text('lastName')}`, row.username.split('@')[0] ?? '']) {
    const slug = slugOf(source);
    if (slug) return slug;
  }
  return 'project';
}

/** A reset link works once, for this long. */
export const RESET_TTL_MS = 60 * 60 * 1000;

// The worked-out fields (administrators, editors, invites, projectNameURL) move as other people act: a record sent back with them stale is no attempt to change them.
const SERVER_KEPT = new Set([
  '_id',
  '__v',
  'createdAt',
  'updatedAt',
  'configuredSecrets',
  'token',
  'access_token',
  'message',
  'administrators',
  'editors',
  'invites',
  'projectNameURL',
]);
const SELF_EDITABLE = new Set(Object.keys(SelfEditable));

/** Whether new `preferences` hide a mark of the service the current ones show. */
function hidesBranding(current: unknown, next: unknown): boolean {
  if (typeof next !== 'object' || next === null) return false;
  const was = (typeof current === 'object' && current !== null ? current : {}) as Record<string, unknown>;
  const now = next as Record<string, unknown>;
  return (['hideBrandingIcon', 'hideLoadingLogo'] as const).some((k) => now[k] === true && was[k] !== true);
}

/** Accounts: creation, the caller's own record and password, and forgotten passwords. */
export class UserService {
  constructor(private readonly ctx: Ctx) {}

  /** A new account (the caller is a platform administrator, checked by the route's role gate). */
  async create(body: Static<typeof CreateUserBody>): Promise<User> {
    const { username, password, role, ...profile } = body;
    const row = await insertUser(this.ctx.db.kysely, {
      id: newObjectId(this.ctx.clock.now()),
      username,
      passwordHash: await this.ctx.passwords.hash(password),
      role: role ?? 'user',
      profile,
    });
    return toUser(row);
  }

  /** The caller's record with the projects and groups they belong to; 401 when the account is gone. */
  async me(principal: Principal): Promise<User> {
    const row = await this.#current(principal);
    return this.record(row);
  }

  /** The User record of a row, with its memberships and what is worked out for it (login, /users/me). */
  async record(row: UserRow): Promise<User> {
    return toUser(row, await findMemberships(this.ctx.db.kysely, row.id), await this.#derived(row));
  }

  /** The worked-out fields: the people sharing the user's projects by role, the invitations waiting for them, a namespace for their next project. */
  async #derived(row: UserRow): Promise<Derived> {
    const db = this.ctx.db.kysely;
    const circle = await findCircle(db, row.id, row.username, new Date(this.ctx.clock.now()));
    const slug = proposedSlug(row);
    const taken = new Set(await findNamespacesLike(db, slug));
    let projectNameURL = slug;
    for (let n = 2; taken.has(projectNameURL); n++) projectNameURL = `${slug.slice(0, 60 - String(n).length)}-${n}`;
    return {
      administrators: circle.administrators,
      editors: circle.editors,
      invites: circle.invites.map((i) => ({ ...toInvite(i), [i.target_kind]: { _id: i.target_id, name: i.target_name } })),
      projectNameURL,
    };
  }

  /**
   * PATCH /users/me: self-editable fields merge; any other field must carry its current value; a new password needs
   * the current one and ends every session of the user.
   */
  async patchMe(principal: Principal, body: Static<typeof PatchMeBody>, ifMatch: string | undefined): Promise<User> {
    const db = this.ctx.db.kysely;
    const row = await this.#current(principal);
    const ifVersion = parseIfMatch(ifMatch, row.version);
    const memberships = await findMemberships(db, row.id);
    const derived = await this.#derived(row);
    const current: Record<string, unknown> = toUser(row, memberships, derived);
    const { password, currentPassword, ...fields } = body;

    const patch: Record<string, unknown> = {};
    const errors: FieldError[] = [];
    for (const [key, value] of Object.entries(fields)) {
      if (SERVER_KEPT.has(key)) continue;
      if (SELF_EDITABLE.has(key)) patch[key] = value;
      else if (!deepEqual(current[key] ?? null, value ?? null)) {
        errors.push({ path: `/${key}`, message: 'is not yours to change' });
      }
    }
    let passwordHash: string | undefined;
    if (password !== undefined) {
      if (currentPassword === undefined) errors.push({ path: '/currentPassword', message: 'is required to change the password' });
      else if (!(await this.ctx.passwords.verify(row.password_hash, currentPassword))) errors.push({ path: '/currentPassword', message: 'is incorrect' });
      else passwordHash = await this.ctx.passwords.hash(password);
    }
    if (errors.length) invalid(errors);

    const updated = await db.transaction().execute(async (trx) => {
      // With plans on, hiding the branding on the user's pages needs a plan that allows it (402 otherwise).
      if (hidesBranding(row.profile.preferences, patch.preferences))
        await checkPlan(trx, this.ctx.config.billing, this.ctx.clock.now(), row.id, { hidesBranding: true });
      if (!(await mergeUserProfile(trx, row.id, patch, passwordHash, { at: this.ctx.clock.now(), ifVersion }))) throw staleWrite();
      if (passwordHash) {
        await revokeUserSessions(trx, row.id, new Date(this.ctx.clock.now()));
        await recordAudit(trx, { actor: principal, action: 'password_changed', subjectId: row.id, at: new Date(this.ctx.clock.now()) });
      }
      return findUserById(trx, row.id);
    });
    if (!updated) throw staleWrite();
    if (passwordHash) this.ctx.auth.forgetAllSessions();
    // Worked out again: the proposed namespace follows a new company or name.
    return toUser(updated, memberships, await this.#derived(updated));
  }

  /**
   * Mails a reset link to an existing account, at most `resetsPerHour` per address. The same statements run whether
   * the account exists or not (a look-up, a count, a row, a queued job that for an unknown address sends nothing):
   * timing tells nothing.
   */
  async requestPasswordReset(address: string, lang: Lang): Promise<void> {
    const username = address.toLowerCase();
    const token = randomBytes(32).toString('base64url');
    const now = this.ctx.clock.now();
    const { mail } = this.ctx.config;
    await this.ctx.db.kysely.transaction().execute(async (trx) => {
      const found = await findUserByUsername(trx, username);
      // A deactivated account gets no link: it could not sign in with the password it chose.
      const user = found?.deactivated_at ? undefined : found;
      if ((await countResetsSince(trx, username, new Date(now - 60 * 60 * 1000))) >= mail.resetsPerHour) return;
      await insertPasswordReset(trx, {
        tokenHash: hashToken(token),
        userId: user?.id ?? null,
        username,
        createdAt: new Date(now),
        expiresAt: new Date(now + RESET_TTL_MS),
      });
      await this.ctx.mail.queue(trx, user ? resetMail({ to: user.username, lang, link: `${mail.publicUrl}/admin/reset/${token}`, now }) : null);
    });
    this.ctx.mail.wake();
  }

  /** Sets the password with a live token (once): every other link of the user stops working and every session ends; 410 otherwise. */
  async resetPassword(token: string, password: string): Promise<void> {
    const tokenHash = hashToken(token);
    const now = new Date(this.ctx.clock.now());
    const passwordHash = await this.ctx.passwords.hash(password);
    const userId = await this.ctx.db.kysely.transaction().execute(async (trx) => {
      const id = await claimPasswordReset(trx, tokenHash, now);
      if (!id) return undefined;
      await setUserPassword(trx, id, passwordHash, now);
      await spendUserResets(trx, id, now);
      await revokeUserSessions(trx, id, now);
      // Whoever needed a reset may have lost more than the password: the account's API tokens end with it.
      const tokens = await deleteUserApiTokens(trx, id);
      await recordAudit(trx, { actor: { id }, action: 'password_reset', subjectId: id, detail: { apiTokensRevoked: tokens }, at: now });
      return id;
    });
    if (!userId) throw ERRORS.gone('This reset link was already used, has expired or is unknown; ask for a new one');
    this.ctx.auth.forgetAllSessions();
  }

  async #current(principal: Principal): Promise<UserRow> {
    const row = await findUserById(this.ctx.db.kysely, principal.id);
    if (!row) throw ERRORS.unauthorized('The user no longer exists');
    return row;
  }
}
