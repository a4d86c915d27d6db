import { randomBytes } from 'node:crypto';
import type { Configuration } from 'openid-client';
import type { Ctx } from '../../context.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { recordAudit } from '../audit/audit.repo.ts';
import { hasOpenInvite } from '../invites/invites.repo.ts';
import { findUserByUsername, insertUser, type UserRow } from '../users/users.repo.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/** How long a sign-in may take at the provider before its state cookie lapses. */
export const SSO_STATE_SEC = 600;

type OpenId = typeof import('openid-client');

interface Pending {
  state: string;
  nonce: string;
  verifier: string;
  exp: number;
}

const refused = (detail: string) => ERRORS.forbidden(detail);

/**
 * Single sign-on with OpenID Connect (authorization code with PKCE, a maintained client: openid-client). The provider's
 * metadata is discovered once and kept; a failed discovery is tried again on the next sign-in. The state, nonce and
 * PKCE verifier travel sealed (SECRET_KEY) in a short-lived cookie of the callback's path, so any node can finish a
 * sign-in another node started. The account is matched by the verified e-mail address the provider asserts.
 */
export class SsoService {
  #discovered: Promise<{ lib: OpenId; config: Configuration }> | undefined;

  constructor(private readonly ctx: Pick<Ctx, 'config' | 'db' | 'clock' | 'secrets' | 'passwords'>) {}

  get redirectUri(): string {
    return `${this.ctx.config.mail.publicUrl}/auth/oidc/callback`;
  }

  async #provider(): Promise<{ lib: OpenId; config: Configuration }> {
    const oidc = this.ctx.config.oidc;
    if (!oidc) throw ERRORS.notFound('Single sign-on is not configured (OIDC_ISSUER)');
    this.#discovered ??= (async () => {
      // Loaded only when single sign-on is configured and used.
      const lib = await import('openid-client');
      const insecure = new URL(oidc.issuer).protocol === 'http:';
      // Plain http is accepted by the settings only for a provider on this machine (a development or test provider).
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- marked only to stand out; it is openid-client's documented switch
      const execute = insecure ? [lib.allowInsecureRequests] : [];
      const config = await lib.discovery(new URL(oidc.issuer), oidc.clientId, oidc.clientSecret, undefined, { execute });
      return { lib, config };
    })().catch((err: unknown) => {
      this.#discovered = undefined;
      throw ERRORS.upstreamFailed(`The sign-in provider could not be reached: ${err instanceof Error ? err.message : String(err)}`);
    });
    return this.#discovered;
  }

  /** Where to send the browser, and the sealed state for its cookie. */
  async start(): Promise<{ url: string; sealed: string }> {
    const { lib, config } = await this.#provider();
    const pending: Pending = {
      state: lib.randomState(),
      nonce: lib.randomNonce(),
      verifier: lib.randomPKCECodeVerifier(),
      exp: this.ctx.clock.now() + SSO_STATE_SEC * 1000,
    };
    const url = lib.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: 'openid email profile',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await lib.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, sealed: this.ctx.secrets.seal(JSON.stringify(pending)) };
  }

  /**
   * The provider's answer: the code exchanged and the ID token checked (issuer, audience, nonce, signature), then the
   * account of its verified e-mail signed in. Unknown addresses are refused unless an invitation to them is open (the
   * account is then made, with no password, so its invitation can be accepted); OIDC_ALLOWED_DOMAINS limits the
   * addresses when set; a deactivated account is refused.
   */
  async finish(query: string, sealed: string | undefined, ip: string): Promise<UserRow> {
    const { lib, config } = await this.#provider();
    const pending = this.#open(sealed);
    let claims: Record<string, unknown>;
    try {
      const callback = new URL(this.redirectUri);
      callback.search = query;
      const tokens = await lib.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const id = tokens.claims();
      if (!id) throw new Error('no ID token');
      // Providers may keep the e-mail for the UserInfo endpoint (only the ID token's subject is certain): ask it then.
      claims = typeof id.email === 'string' ? id : { ...(await lib.fetchUserInfo(config, tokens.access_token, id.sub)), sub: id.sub };
    } catch (err) {
      throw ERRORS.unauthorized(`The sign-in provider's answer was refused: ${err instanceof Error ? err.message : String(err)}`);
    }
    const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : undefined;
    if (!email || claims.email_verified !== true) throw refused('The sign-in provider did not assert a verified e-mail address');
    const domain = email.slice(email.lastIndexOf('@') + 1);
    const allowed = this.ctx.config.oidc?.allowedDomains ?? [];
    if (allowed.length && !allowed.includes(domain)) throw refused(`Addresses at ${domain} may not sign in here`);
    const db = this.ctx.db.kysely;
    let user = await findUserByUsername(db, email);
    if (!user) {
      if (!(await hasOpenInvite(db, email, new Date(this.ctx.clock.now())))) {
        throw refused(`No account uses ${email}; ask a colleague to invite you first`);
      }
      const name = typeof claims.given_name === 'string' ? { name: claims.given_name } : {};
      const lastName = typeof claims.family_name === 'string' ? { lastName: claims.family_name } : {};
      user = await insertUser(db, {
        id: newObjectId(this.ctx.clock.now()),
        username: email,
        // No password anyone knows: this account signs in through the provider (or sets one by a reset link).
        passwordHash: await this.ctx.passwords.hash(randomBytes(32).toString('base64url')),
        role: 'user',
        profile: { ...name, ...lastName },
      });
    }
    await recordAudit(db, {
      actor: { id: user.id, address: ip },
      action: 'sign_in',
      subjectId: user.id,
      detail: { via: 'oidc' },
      at: new Date(this.ctx.clock.now()),
    });
    return user;
  }

  #open(sealed: string | undefined): Pending {
    let pending: Pending | undefined;
    try {
      pending = sealed ? (JSON.parse(this.ctx.secrets.open(sealed)) as Pending) : undefined;
    } catch {
      pending = undefined;
    }
    if (!pending || pending.exp <= this.ctx.clock.now()) {
      throw ERRORS.invalidRequest('This sign-in has no state in this browser or took too long; start it again');
    }
    return pending;
  }
}
