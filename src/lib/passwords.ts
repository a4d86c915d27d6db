import { Algorithm, hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** The two argon2 calls, injectable so a test can see that an unknown user still costs one verification. */
export interface Argon2 {
  hash: (password: string, options: Parameters<typeof hash>[1]) => Promise<string>;
  verify: (hashed: string, password: string) => Promise<boolean>;
}
const nodeArgon2: Argon2 = { hash: (p, o) => hash(p, o), verify: (h, p) => verify(h, p) };

/** argon2id hashing, with a dummy hash so an unknown user costs the same time as a wrong password. */
export class Passwords {
  #dummy: Promise<string>;
  constructor(
    private readonly params: Argon2Params,
    private readonly argon2: Argon2 = nodeArgon2,
  ) {
    this.#dummy = this.hash(randomBytes(16).toString('hex'));
  }
  hash(password: string) {
    return this.argon2.hash(password, { algorithm: Algorithm.Argon2id, ...this.params });
  }
  /** Verifies against the stored hash, or against the dummy when there is no user; false either way on mismatch. */
  async verify(storedHash: string | undefined, password: string): Promise<boolean> {
    const target = storedHash ?? (await this.#dummy);
    const ok = await this.argon2.verify(target, password).catch(() => false);
    return ok && storedHash !== undefined;
  }
}
