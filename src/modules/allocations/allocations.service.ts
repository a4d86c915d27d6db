import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Ctx } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { findAllocationDoor, findAllocationSeal, listAllocatedUnits } from './allocations.repo.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/** How long an opened allocation's token works. */
export const ALLOCATION_TOKEN_MS = 12 * 60 * 60 * 1000;
/**
 * Opening compares against at least this many allocations (the spare comparisons against a throwaway value), so a
 * project with one allocation and one with a few take the same time to refuse, and a project nobody allocated
 * answers like one with a wrong password.
 */
const MIN_COMPARISONS = 8;

export interface AllocationAccess {
  projectId: string;
  name: string;
}

const refused = () => ERRORS.invalidCredentials('Wrong password');
const badToken = () => ERRORS.unauthorized('The allocation token is not valid (expired, replaced or removed); open the allocation again');

/**
 * Realtors' allocations: opening one with its password, and the signed token that then names it.
 *
 * The token is stateless: `base64url(JSON {p, n, e, f}).base64url(HMAC)`, keyed by a key derived from SECRET_KEY,
 * where `f` is a fingerprint of the allocation's sealed password as stored. Every use reads that sealed value again,
 * so replacing the password (even with the same text: sealing uses a new IV) or removing the allocation ends every
 * token at once on every node, with nothing to store or revoke.
 */
export class Allocations {
  readonly #key: Buffer;
  constructor(private readonly ctx: Pick<Ctx, 'config' | 'secrets' | 'clock' | 'db'>) {
    this.#key = createHmac('sha256', ctx.config.secretKey).update('showsuite allocation tokens v1').digest();
  }

  /**
   * POST /public/allocations/open. The password is compared with every allocation's (HMACs of both, compared in
   * constant time), with no early exit, so the time says neither which allocation matched nor whether one did.
   */
  async open(namespace: string, password: string) {
    const db = this.ctx.db.kysely;
    const door = await findAllocationDoor(db, namespace);
    const candidates = door?.allocations ?? [];
    const sent = this.#mac('password', password);
    let matched: { name: string; seal: string } | undefined;
    for (let i = 0; i < Math.max(MIN_COMPARISONS, candidates.length); i++) {
      const c = candidates[i];
      let stored: Buffer;
      try {
        stored = this.#mac('password', c?.seal ? this.ctx.secrets.open(c.seal) : '\u0000unset');
      } catch {
        stored = this.#mac('password', '\u0000unreadable');
      }
      const equal = timingSafeEqual(sent, stored);
      if (equal && c?.seal && matched === undefined) matched = { name: c.name, seal: c.seal };
    }
    if (!door || !matched) throw refused();
    const expiresAt = this.ctx.clock.now() + ALLOCATION_TOKEN_MS;
    const token = this.#sign({ p: door.id, n: matched.name, e: expiresAt, f: this.#fingerprint(matched.seal) });
    const units = (await listAllocatedUnits(db, door.id)).filter((u) => u.allocation === matched.name).map((u) => u.unit_id);
    return { name: matched.name, token, expiresAt: new Date(expiresAt).toISOString(), units };
  }

  /**
   * The allocation an `X-Allocation-Token` names, for a request about `projectId`; undefined when none was sent.
   * 401 for a token that is forged, expired, for another project, or whose allocation's password was replaced or removed.
   */
  async verify(db: Kysely<Database>, token: string | undefined, projectId: string): Promise<AllocationAccess | undefined> {
    if (token === undefined || token === '') return undefined;
    const claims = this.#read(token);
    if (!claims || claims.p !== projectId || claims.e <= this.ctx.clock.now()) throw badToken();
    const seal = await findAllocationSeal(db, projectId, claims.n);
    if (!seal || !safeEqual(this.#fingerprint(seal), claims.f)) throw badToken();
    return { projectId, name: claims.n };
  }

  /** The project a token claims (before it is verified), to find the project a token-only request is about. */
  projectOf(token: string): string | undefined {
    return this.#read(token)?.p;
  }

  #mac(label: string, value: string): Buffer {
    return createHmac('sha256', this.#key).update(label).update('\u0000').update(value).digest();
  }

  #fingerprint(seal: string): string {
    return this.#mac('seal', seal).subarray(0, 16).toString('base64url');
  }

  #sign(claims: TokenClaims): string {
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${body}.${this.#mac('token', body).toString('base64url')}`;
  }

  #read(token: string): TokenClaims | undefined {
    if (token.length > 2048) return undefined;
    const [body, sig, ...rest] = token.split('.');
    if (!body || !sig || rest.length) return undefined;
    if (!safeEqual(this.#mac('token', body).toString('base64url'), sig)) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenClaims;
      if (typeof claims.p !== 'string' || typeof claims.n !== 'string' || typeof claims.e !== 'number' || typeof claims.f !== 'string') return undefined;
      return claims;
    } catch {
      return undefined;
    }
  }
}

interface TokenClaims {
  /** project id */
  p: string;
  /** allocation name */
  n: string;
  /** expiry, epoch ms */
  e: number;
  /** fingerprint of the sealed password the token was opened with */
  f: string;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
