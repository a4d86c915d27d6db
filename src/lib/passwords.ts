import type { Options } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** The two argon2 calls, injectable so a test can see that an unknown user still costs one verification. */
export interface Argon2 {
  hash: (password: string, options: Options) => Promise<string>;
  verify: (hashed: string, password: string) => Promise<boolean>;
}
// The native binding loads with the first hash or verification, not at every start.
const binding = () => import('@node-rs/argon2');
const nodeArgon2: Argon2 = {
  hash: async (p, o) => {
    const { Algorithm, hash } = await binding();
    return hash(p, { ...o, algorithm: Algorithm.Argon2id });
  },
  verify: async (h, p) => (await binding()).verify(h, p),
};

/** argon2id hashing, with a dummy hash so an unknown user costs the same time as a wrong password. */
export class Passwords {
  #dummy: Promise<string> | undefined;
  constructor(
    private readonly params: Argon2Params,
    private readonly argon2: Argon2 = nodeArgon2,
  ) {}
  hash(password: string) {
    // argon2id: set by the binding above (and @node-rs/argon2's default for any other implementation).
    return this.argon2.hash(password, { ...this.params });
  }
  /** Verifies against the stored hash, or against the dummy when there is no user; false either way on mismatch. */
  async verify(storedHash: string | undefined, password: string): Promise<boolean> {
    // Made with the first verification of any kind (not at start, where it cost a hash every boot).
    this.#dummy ??= this.hash(randomBytes(16).toString('hex'));
    const target = storedHash ?? (await this.#dummy);
    const ok = await this.argon2.verify(target, password).catch(() => false);
    return ok && storedHash !== undefined;
  }
}
