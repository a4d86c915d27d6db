import { createHash, randomBytes } from 'node:crypto';
import { createSigner, createVerifier } from 'fast-jwt';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { newObjectId } from '../lib/object-id.ts';
import { isApiTokenShape, looksLikeApiToken } from '../lib/api-token.ts';
import { cookieOf } from './cookies.ts';
import { ERRORS } from './errors.catalogue.ts';

export const ISSUER = 'showsuite';
export const AUDIENCE = 'showsuite-api';
export const ACCESS_COOKIE = 'service';
export const REFRESH_COOKIE = 'serviceRefresh';
const DAY = 86_400;
export const ACCESS_TTL_SEC = DAY;
export const INTEGRATION_TTL_SEC = 90 * DAY;
export const REFRESH_TTL_SEC = 7 * DAY;

export interface Principal {
  id: string;
  username: string;
  role: 'user' | 'admin' | 'integration';
  /** The login session (a JWT's `sid`); empty for an API token. */
  sid: string;
  /** Set when the caller sent an API token instead of a session's JWT. */
  apiToken?: { id: string; scope: 'read' | 'write' };
  /** The client address of this request (what the audit log records beside the actor). */
  address?: string;
}

/** An API token's last use is written at most once per this interval (docs/authentication.md). */
export const TOKEN_USE_INTERVAL_MS = 60_000;
const READ_METHODS = new Set(['GET', 'HEAD']);

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

interface AccessClaims {
  sub: string;
  sid: string;
  jti: string;
  iat: number;
  exp: number;
}

export const accessTtlFor = (role: string) => (role === 'integration' ? INTEGRATION_TTL_SEC : ACCESS_TTL_SEC);
export const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');
export const newRefreshToken = () => randomBytes(32).toString('base64url');

/** A signed-in user as a session or an API token names them. */
export interface SessionPrincipal {
  id: string;
  username: string;
  role: string;
}

/**
 * Where the authentication edge finds who a session or an API token belongs to. The users and tokens modules own
 * those tables; the app hands their look-ups in, so http/ imports no module.
 */
export interface PrincipalLookups {
  session(sid: string): Promise<SessionPrincipal | undefined>;
  apiToken(tokenHash: string, now: Date): Promise<(SessionPrincipal & { tokenId: string; scope: string; lastUsedAt: Date | null }) | undefined>;
  /** Records a token's use unless it was recorded after `staleBefore`. */
  touchApiToken(tokenId: string, now: Date, staleBefore: Date): Promise<void>;
}

/**
 * Access tokens and the session check behind them. A verified token still needs a live session; each node
 * trusts a checked session for `sessionCacheSec` (≤ 60 s), which bounds how late a logout reaches it.
 */
export class Auth {
  readonly #sign: (payload: Record<string, unknown>) => string;
  readonly #verify: (token: string) => AccessClaims;
  readonly #sessions = new Map<string, { until: number; principal: SessionPrincipal | undefined }>();

  constructor(
    private readonly config: Config,
    private readonly lookups: PrincipalLookups,
    private readonly clock: Clock,
  ) {
    this.#sign = createSigner({ key: config.jwtSecret, algorithm: 'HS256', iss: ISSUER, aud: AUDIENCE });
    const verifier = (key: string) =>
      createVerifier({
        key,
        algorithms: ['HS256'],
        allowedIss: ISSUER,
        allowedAud: AUDIENCE,
        // allowedIss/allowedAud only judge claims that are present: a token without them must fail too.
        requiredClaims: ['iss', 'aud', 'sub', 'sid', 'exp', 'iat', 'jti'],
        cache: 10_000,
        clockTimestamp: undefined,
      }) as (token: string) => AccessClaims;
    const current = verifier(config.jwtSecret);
    // During a key change tokens signed under the retiring JWT_SECRET still verify; new ones are signed with the new.
    const previous = config.previousJwtSecret === undefined ? undefined : verifier(config.previousJwtSecret);
    this.#verify = previous
      ? (token) => {
          try {
            return current(token);
          } catch {
            return previous(token);
          }
        }
      : current;
  }

  signAccess(userId: string, sid: string, role: string): string {
    const iat = Math.floor(this.clock.now() / 1000);
    return this.#sign({ sub: userId, sid, jti: newObjectId(), iat, exp: iat + accessTtlFor(role) });
  }

  /** The claims of a well-signed, unexpired token of ours; undefined for anything else. */
  verifyAccess(token: string): AccessClaims | undefined {
    try {
      const claims = this.#verify(token);
      return claims.exp * 1000 > this.clock.now() ? claims : undefined;
    } catch {
      return undefined;
    }
  }

  async principalFromToken(token: string): Promise<Principal | undefined> {
    const claims = this.verifyAccess(token);
    if (!claims) return undefined;
    const now = this.clock.now();
    let cached = this.#sessions.get(claims.sid);
    if (!cached || cached.until <= now) {
      const principal = await this.lookups.session(claims.sid);
      if (this.#sessions.size > 50_000) this.#sessions.clear();
      cached = { until: now + this.config.limits.sessionCacheSec * 1000, principal };
      this.#sessions.set(claims.sid, cached);
    }
    const p = cached.principal;
    if (!p || p.id !== claims.sub) return undefined;
    return { id: p.id, username: p.username, role: p.role as Principal['role'], sid: claims.sid };
  }

  /**
   * The user behind an API token, looked up by its hash on every request (no cache: a deleted token fails at once on
   * every node). Its last use is recorded at most once per TOKEN_USE_INTERVAL_MS.
   */
  async principalFromApiToken(token: string): Promise<Principal | undefined> {
    if (!isApiTokenShape(token)) return undefined;
    const now = this.clock.now();
    const found = await this.lookups.apiToken(hashToken(token), new Date(now));
    if (!found) return undefined;
    if (!found.lastUsedAt || found.lastUsedAt.getTime() <= now - TOKEN_USE_INTERVAL_MS) {
      await this.lookups.touchApiToken(found.tokenId, new Date(now), new Date(now - TOKEN_USE_INTERVAL_MS + 1));
    }
    const scope = found.scope === 'write' ? 'write' : 'read';
    return { id: found.id, username: found.username, role: found.role as Principal['role'], sid: '', apiToken: { id: found.tokenId, scope } };
  }

  /** This node learns of an ended session at once; the others within sessionCacheSec. */
  forgetSession(sid: string) {
    this.#sessions.delete(sid);
  }
  forgetAllSessions() {
    this.#sessions.clear();
  }
  /** Stops trusting every cached session of one user (a deactivated account), so its next request is checked again. */
  forgetUser(userId: string) {
    for (const [sid, entry] of this.#sessions) if (entry.principal?.id === userId) this.#sessions.delete(sid);
  }

  /** The bearer header wins over the cookie. */
  static tokenFrom(request: FastifyRequest): { token: string; via: 'header' | 'cookie' } | undefined {
    const h = request.headers.authorization;
    if (h) {
      const token = /^Bearer\s+(\S+)$/i.exec(h)?.[1];
      return token === undefined ? undefined : { token, via: 'header' };
    }
    const c = cookieOf(request, ACCESS_COOKIE);
    return c ? { token: c, via: 'cookie' } : undefined;
  }

  /** onRequest hook of the authenticated scope. */
  authenticate = async (request: FastifyRequest, _reply: FastifyReply) => {
    const found = Auth.tokenFrom(request);
    // An API token counts only in the header (a browser never holds one as the cookie).
    const apiToken = found !== undefined && looksLikeApiToken(found.token);
    const principal =
      found && (apiToken ? found.via === 'header' && (await this.principalFromApiToken(found.token)) : await this.principalFromToken(found.token));
    if (!principal) {
      throw ERRORS.unauthorized(
        found ? 'The token is invalid, expired or revoked, or its session has ended' : 'Send Authorization: Bearer <token> or the service cookie',
      );
    }
    if (principal.apiToken?.scope === 'read' && !READ_METHODS.has(request.method)) {
      throw ERRORS.forbidden('This API token has read scope: only GET and HEAD');
    }
    // A copy: the cached principal is shared by every request of the session.
    request.principal = { ...principal, address: request.ip };
  };
}

export function requireRole(request: FastifyRequest, role: Principal['role']): Principal {
  const p = request.principal;
  if (!p) throw ERRORS.unauthorized('Authentication required');
  if (p.role !== role) throw ERRORS.forbidden(`Only role ${role} may do this`);
  return p;
}

export function principalOf(request: FastifyRequest): Principal {
  const p = request.principal;
  if (!p) throw ERRORS.unauthorized('Authentication required');
  return p;
}
