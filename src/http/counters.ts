import { createHmac } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { commonJs } from '../lib/cjs.ts';
import { ERRORS } from './errors.catalogue.ts';

/** Windowed counters for rate limits: shared through Redis when configured, else per process. */
export interface Counters {
  /** Adds one to `key` in a window of `windowMs` that starts with the first hit. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  peek(key: string): Promise<{ count: number; resetMs: number }>;
  clear(key: string): Promise<void>;
}

export class MemoryCounters implements Counters {
  readonly #map = new Map<string, { count: number; resetAt: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, windowMs: number) {
    const t = this.now();
    let e = this.#map.get(key);
    if (!e || e.resetAt <= t) {
      if (this.#map.size > 100_000) this.#sweep(t);
      e = { count: 0, resetAt: t + windowMs };
      this.#map.set(key, e);
    }
    e.count++;
    return { count: e.count, resetMs: e.resetAt - t };
  }
  async peek(key: string) {
    const t = this.now();
    const e = this.#map.get(key);
    return e && e.resetAt > t ? { count: e.count, resetMs: e.resetAt - t } : { count: 0, resetMs: 0 };
  }
  async clear(key: string) {
    this.#map.delete(key);
  }
  #sweep(t: number) {
    for (const [k, e] of this.#map) if (e.resetAt <= t) this.#map.delete(k);
  }
}

const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {c, redis.call('PTTL', KEYS[1])}`;

/**
 * A Redis client for the shared counters. Commands fail at once while Redis is unreachable (no offline queue),
 * so the first requests wait here, boundedly, for the connection; a lost connection is logged and retried.
 */
export async function connectRedis(url: string, log: FastifyBaseLogger, waitMs = 2000): Promise<Redis> {
  // Loaded only when REDIS_URL is set; a CommonJS package (see commonJs).
  const { Redis } = commonJs(await import('ioredis'));
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: waitMs, enableOfflineQueue: false });
  redis.on('error', (err) => {
    log.warn({ err }, 'rate-limit store (Redis) unavailable');
  });
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    redis.once('ready', done);
  });
  return redis;
}

const storeDown = () => ERRORS.rateLimitUnavailable('The rate-limit store is unavailable; retry shortly');

/**
 * What a Redis key says of a person: nothing. A counter's key (`login-fail:<address>:<e-mail>`) is stored as its purpose
 * and an HMAC of the rest, under a key derived from SECRET_KEY, so neither a dump of Redis nor a guess at an address
 * turns back into one; the same input gives the same key on every node. A key change starts the counters afresh.
 */
export function redisKeyDigest(secretKey: Buffer): (key: string) => string {
  const k = createHmac('sha256', secretKey).update('showsuite redis keys v1').digest();
  return (key) => {
    const cut = key.indexOf(':');
    const [purpose, rest] = cut < 0 ? ['', key] : [`${key.slice(0, cut)}:`, key.slice(cut + 1)];
    return purpose + createHmac('sha256', k).update(rest).digest('base64url').slice(0, 27);
  };
}

export class RedisCounters implements Counters {
  /**
   * `prefix` is REDIS_PREFIX followed by `rl:`; `digest` (redisKeyDigest) turns a counter's key into the stored one.
   */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly digest: (key: string) => string,
  ) {}
  #key(key: string) {
    return this.prefix + this.digest(key);
  }
  async hit(key: string, windowMs: number) {
    const [count, ttl] = (await this.redis.eval(HIT, 1, this.#key(key), windowMs).catch(() => Promise.reject(storeDown()))) as [number, number];
    return { count, resetMs: Math.max(ttl, 0) };
  }
  async peek(key: string) {
    const stored = this.#key(key);
    const [count, ttl] = await Promise.all([this.redis.get(stored), this.redis.pttl(stored)]).catch(() => Promise.reject(storeDown()));
    return { count: Number(count ?? 0), resetMs: Math.max(ttl, 0) };
  }
  async clear(key: string) {
    await this.redis.del(this.#key(key)).catch(() => Promise.reject(storeDown()));
  }
}
