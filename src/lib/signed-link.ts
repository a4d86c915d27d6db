import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Short signed tokens for addresses handed to people (a draft's preview link): `<expiry seconds>.<signature>`, the
 * signature an HMAC-SHA256 of the purpose, the subject and the expiry under a key derived from the server's
 * SECRET_KEY for that purpose alone. Nothing is stored: the token is good until it expires, for that subject only.
 */
export class LinkSigner {
  readonly #key: Buffer;
  /** During a key change, links signed under the retiring SECRET_KEY still verify. */
  readonly #previous: Buffer | undefined;

  constructor(
    secretKey: Buffer,
    private readonly purpose: string,
    previousKey?: Buffer,
  ) {
    const derive = (k: Buffer) => createHmac('sha256', k).update(`showsuite signed link: ${purpose}`).digest();
    this.#key = derive(secretKey);
    this.#previous = previousKey && derive(previousKey);
  }

  /** A token for `subject`, good until `expiresAtMs` (rounded down to the second). */
  sign(subject: string, expiresAtMs: number): string {
    const exp = Math.floor(expiresAtMs / 1000);
    return `${exp}.${this.#mac(this.#key, subject, exp)}`;
  }

  /** Whether `token` was signed for `subject` and has not expired at `nowMs`. */
  verify(subject: string, token: string | undefined, nowMs: number): boolean {
    const m = token === undefined ? null : /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!m) return false;
    const exp = Number(m[1]);
    if (exp * 1000 <= nowMs) return false;
    const got = Buffer.from(m[2] ?? '');
    return [this.#key, this.#previous].some((key) => {
      if (!key) return false;
      const want = Buffer.from(this.#mac(key, subject, exp));
      return want.length === got.length && timingSafeEqual(want, got);
    });
  }

  #mac(key: Buffer, subject: string, exp: number): string {
    return createHmac('sha256', key).update(`${this.purpose}.${subject}.${exp}`).digest('base64url');
  }
}
