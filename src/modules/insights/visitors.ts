import { createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { ensureSalt, forgetSalts } from './ingest.repo.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day of an instant, YYYY-MM-DD. */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Visitors without cookies: a visitor is HMAC-SHA-256, keyed with the day's random salt, of the project, the
 * client address and the user agent (the first 16 bytes are kept). The salt is in the database, so every node
 * makes the same hash for the same visitor on the same day; once a salt is deleted (after two days) nobody can
 * tell which address and browser a hash stood for, nor link one day's visitor to another's.
 */
export class VisitorHasher {
  #day = '';
  #salt: Promise<Buffer> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The hash of a visitor now, and the UTC day it belongs to. */
  async visitor(projectId: string, address: string, userAgent: string): Promise<{ day: string; hash: Buffer }> {
    const day = utcDay(this.clock.now());
    const salt = await this.#saltOf(day);
    const hash = createHmac('sha256', salt).update(`${projectId}\n${address}\n${userAgent}`).digest().subarray(0, 16);
    return { day, hash };
  }

  #saltOf(day: string): Promise<Buffer> {
    if (day !== this.#day || !this.#salt) {
      this.#day = day;
      // The salt of a day never changes once made, so a node keeps it for the rest of the day.
      this.#salt = this.#newDay(day).catch((err: unknown) => {
        this.#salt = undefined;
        throw err;
      });
    }
    return this.#salt;
  }

  async #newDay(day: string): Promise<Buffer> {
    const salt = await ensureSalt(this.db, day, randomBytes(32));
    await forgetSalts(this.db, utcDay(Date.parse(day) - DAY_MS));
    return salt;
  }
}
