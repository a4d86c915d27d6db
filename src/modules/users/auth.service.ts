import type { FastifyReply } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/db.ts';
import { ACCESS_COOKIE, accessTtlFor, Auth, hashToken, newRefreshToken, REFRESH_COOKIE, REFRESH_TTL_SEC } from '../../http/auth.ts';
import type { Counters } from '../../http/counters.ts';
import { clearCookies, setCookies } from '../../http/cookies.ts';
import type { Clock } from '../../lib/clock.ts';
import { newObjectId } from '../../lib/object-id.ts';
import type { Passwords } from '../../lib/passwords.ts';
import { consumeRefreshToken, createSession, extendSession, findRefreshToken, insertRefreshToken, revokeSession } from './sessions.repo.ts';
import { recordAudit } from '../audit/audit.repo.ts';
import { findUserById, findUserByUsername, type UserRow } from './users.repo.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

export interface Issued {
  accessToken: string;
  refreshToken: string | undefined;
  role: string;
}

/** Login, refresh and logout: the authentication rules that span users, sessions and rate limits. */
export class AuthService {
  constructor(
    private readonly config: Config,
    private readonly db: Db,
    private readonly auth: Auth,
    private readonly passwords: Passwords,
    private readonly counters: Counters,
    private readonly clock: Clock,
  ) {}

  async login(input: { username: string; password: string | undefined; ip: string; bearer: string | undefined }): Promise<{ user: UserRow; issued: Issued }> {
    const actor = input.bearer ? await this.auth.principalFromToken(input.bearer) : undefined;
    if (actor && actor.username.toLowerCase() !== input.username.toLowerCase()) {
      return this.#impersonate({ ...actor, address: input.ip }, input.username);
    }
    if (input.password === undefined) {
      throw ERRORS.invalidBody('password is required', { errors: [{ path: '/password', message: 'is required' }] });
    }

    const user = await this.checkPassword(input.username, input.password, input.ip);
    if (!user) throw ERRORS.invalidCredentials('Unknown username or wrong password');
    // Said only to whoever knows the password: the account exists and an administrator turned it off.
    if (user.deactivated_at) throw deactivated();
    const issued = await this.#startSession(user, null);
    await recordAudit(this.db.kysely, { actor: { id: user.id, address: input.ip }, action: 'sign_in', subjectId: user.id, at: new Date(this.clock.now()) });
    return { user, issued };
  }

  /**
   * The user whose password this is, or undefined, counted against the login lockout: every check of an account's
   * password (logging in, accepting an invitation as an existing account) shares one failure counter per address
   * and username, and once it is full every attempt is 429 until the window ends.
   */
  async checkPassword(username: string, password: string, ip: string): Promise<UserRow | undefined> {
    const { loginFailures, loginFailureWindowSec } = this.config.limits;
    const failKey = `login-fail:${ip}:${username.toLowerCase()}`;
    const failures = await this.counters.peek(failKey);
    if (failures.count >= loginFailures) throw tooManyFailures(failures.resetMs);

    const user = await findUserByUsername(this.db.kysely, username);
    const ok = await this.passwords.verify(user?.password_hash, password);
    if (!ok || !user) {
      // Bounded like the attempts themselves: the lockout and the per-address login limit cap these rows.
      await recordAudit(this.db.kysely, {
        actor: null,
        address: ip,
        action: 'sign_in_failed',
        subjectId: user?.id,
        detail: { username },
        at: new Date(this.clock.now()),
      });
      const after = await this.counters.hit(failKey, loginFailureWindowSec * 1000);
      if (after.count > loginFailures) throw tooManyFailures(after.resetMs);
      return undefined;
    }
    await this.counters.clear(failKey);
    return user;
  }

  /** A new session for a user who proved who they are another way (an accepted invitation). */
  signIn(user: UserRow): Promise<Issued> {
    if (user.deactivated_at) throw deactivated();
    return this.#startSession(user, null);
  }

  async #impersonate(actor: { id: string; role: string; address: string }, username: string) {
    if (actor.role !== 'admin') throw ERRORS.forbidden('Only platform administrators may log in as another user');
    const user = await findUserByUsername(this.db.kysely, username);
    if (!user) throw ERRORS.invalidCredentials('Unknown username or wrong password');
    if (user.deactivated_at) throw deactivated();
    const issued = await this.#startSession(user, actor.id);
    await recordAudit(this.db.kysely, { actor, action: 'impersonate', subjectId: user.id, at: new Date(this.clock.now()) });
    return { user, issued };
  }

  async #startSession(user: UserRow, impersonatorId: string | null): Promise<Issued> {
    const sid = newObjectId(this.clock.now());
    const integration = user.role === 'integration';
    const lifetimeSec = integration ? accessTtlFor(user.role) : REFRESH_TTL_SEC;
    const refreshToken = integration ? undefined : newRefreshToken();
    await this.db.kysely.transaction().execute(async (trx) => {
      await createSession(trx, { id: sid, userId: user.id, impersonatorId, expiresAt: new Date(this.clock.now() + lifetimeSec * 1000) });
      if (refreshToken) {
        await insertRefreshToken(trx, { tokenHash: hashToken(refreshToken), sessionId: sid, expiresAt: new Date(this.clock.now() + REFRESH_TTL_SEC * 1000) });
      }
    });
    return { accessToken: this.auth.signAccess(user.id, sid, user.role), refreshToken, role: user.role };
  }

  /** Rotates a refresh token. A token presented twice ends its whole family (the session) for everyone. */
  async refresh(refreshToken: string): Promise<Issued & { refreshToken: string }> {
    const tokenHash = hashToken(refreshToken);
    const next = newRefreshToken();
    const result = await this.db.kysely.transaction().execute(async (trx) => {
      const used = await consumeRefreshToken(trx, tokenHash, new Date(this.clock.now()));
      if (!used) return undefined;
      await insertRefreshToken(trx, { tokenHash: hashToken(next), sessionId: used.session_id, expiresAt: new Date(this.clock.now() + REFRESH_TTL_SEC * 1000) });
      await extendSession(trx, used.session_id, new Date(this.clock.now() + REFRESH_TTL_SEC * 1000));
      return used;
    });
    if (!result) {
      const known = await findRefreshToken(this.db.kysely, tokenHash);
      if (known?.used_at) {
        await revokeSession(this.db.kysely, known.session_id, new Date(this.clock.now()));
        this.auth.forgetSession(known.session_id);
      }
      throw ERRORS.unauthorized('The refresh token is invalid, expired or already used');
    }
    const user = await findUserById(this.db.kysely, result.user_id);
    if (!user) throw ERRORS.unauthorized('The refresh token is invalid, expired or already used');
    return { accessToken: this.auth.signAccess(user.id, result.session_id, user.role), refreshToken: next, role: user.role };
  }

  /** Ends the session named by the access token and/or the refresh token, whichever are presented. */
  async logout(accessToken: string | undefined, refreshToken: string | undefined) {
    const sids = new Set<string>();
    const claims = accessToken ? this.auth.verifyAccess(accessToken) : undefined;
    if (claims) sids.add(claims.sid);
    if (refreshToken) {
      const known = await findRefreshToken(this.db.kysely, hashToken(refreshToken));
      if (known) sids.add(known.session_id);
    }
    for (const sid of sids) {
      await revokeSession(this.db.kysely, sid, new Date(this.clock.now()));
      this.auth.forgetSession(sid);
    }
  }

  setCookies(reply: FastifyReply, issued: Issued) {
    const secure = this.config.cookieSecure;
    setCookies(reply, [
      [ACCESS_COOKIE, issued.accessToken, { httpOnly: true, sameSite: 'lax', path: '/', maxAge: accessTtlFor(issued.role), secure }],
      ...(issued.refreshToken
        ? [[REFRESH_COOKIE, issued.refreshToken, { httpOnly: true, sameSite: 'strict', path: '/users', maxAge: REFRESH_TTL_SEC, secure }] as const]
        : []),
    ]);
  }

  clearCookies(reply: FastifyReply) {
    const secure = this.config.cookieSecure;
    clearCookies(reply, [
      [ACCESS_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure }],
      [REFRESH_COOKIE, { httpOnly: true, sameSite: 'strict', path: '/users', secure }],
    ]);
  }
}

/** The answer to a deactivated account's sign-in, by password, as another user or by an invitation. */
export const deactivated = () => ERRORS.forbidden('This account has been deactivated; ask an administrator of this service to reactivate it');

function tooManyFailures(resetMs: number) {
  const retry = Math.max(1, Math.ceil(resetMs / 1000));
  return ERRORS.rateLimited(`Too many failed logins; retry in ${retry} s`, { headers: { 'Retry-After': String(retry) } });
}
