import { Algorithm, hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** argon2id hashing, with a dummy hash so an unknown user costs the same time as a wrong password. */
export class Passwords {
  #dummy: Promise<string>;
  constructor(private readonly params: Argon2Params) {
    this.#dummy = this.hash(randomBytes(16).toString('hex'));
  }
  hash(password: string) {
    return hash(password, { algorithm: Algorithm.Argon2id, ...this.params });
  }
  /** Verifies against the stored hash, or against the dummy when there is no user; false either way on mismatch. */
  async verify(storedHash: string | undefined, password: string): Promise<boolean> {
    const target = storedHash ?? (await this.#dummy);
    const ok = await verify(target, password).catch(() => false);
    return ok && storedHash !== undefined;
  }
}
