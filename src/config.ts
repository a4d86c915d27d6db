import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Every setting the service reads. Built once by loadConfig and passed in; nothing else reads the environment. */
export interface Config {
  port: number;
  host: string;
  /** Unset: embedded PostgreSQL (PGlite) in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  jwtSecret: string;
  /** 32-byte AES-256-GCM key for write-only secrets. */
  secretKey: Buffer;
  cookieSecure: boolean;
  corsOrigins: string[];
  redisUrl: string | undefined;
  logLevel: string;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  /** Seed the demo account and presentation on start (default: on for the embedded database). */
  seedDemo: boolean;
  trustProxy: boolean;
  limits: Limits;
  argon2: { memoryCost: number; timeCost: number; parallelism: number };
}

export interface Limits {
  loginFailures: number;
  loginFailureWindowSec: number;
  loginPerMinute: number;
  publicLeadsPerMinute: number;
  holdsPerClient: number;
  holdRequestsPerMinute: number;
  /** How long a node may trust a session it has checked; logout reaches every node within this. */
  sessionCacheSec: number;
  holdSweepSec: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

/** Reads and validates the environment. Missing JWT_SECRET / SECRET_KEY are generated once and kept in DATA_DIR. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const str = (name: string, fallback?: string) => {
    const v = env[name];
    return v === undefined || v === '' ? fallback : v;
  };
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean) => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (/^(true|1|yes|on)$/i.test(raw)) return true;
    if (/^(false|0|no|off)$/i.test(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };

  const databaseUrl = str('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const redisUrl = str('REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    problems.push('REDIS_URL must be a redis:// or rediss:// URL');
  }
  const logLevel = str('LOG_LEVEL', 'info')!;
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}")`);
  }
  const corsOrigins = (str('CORS_ORIGINS', '') ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const o of corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(o)) problems.push(`CORS_ORIGINS entry "${o}" must be an origin such as https://example.com`);
  }
  const adminEmail = str('ADMIN_EMAIL');
  const adminPassword = str('ADMIN_PASSWORD');
  if ((adminEmail === undefined) !== (adminPassword === undefined)) {
    problems.push('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }
  if (adminEmail !== undefined && !EMAIL.test(adminEmail)) problems.push('ADMIN_EMAIL must be an e-mail address');
  if (adminPassword !== undefined && adminPassword.length < 8) problems.push('ADMIN_PASSWORD must be at least 8 characters');

  const dataDir = resolve(str('DATA_DIR', './data')!);
  const jwtSecretRaw = str('JWT_SECRET');
  if (jwtSecretRaw !== undefined && jwtSecretRaw.length < 32) problems.push('JWT_SECRET must be at least 32 characters');
  const secretKeyRaw = str('SECRET_KEY');
  let secretKey: Buffer | undefined;
  if (secretKeyRaw !== undefined) {
    secretKey = parseKey(secretKeyRaw);
    if (!secretKey) problems.push('SECRET_KEY must be 32 bytes, written as 64 hex characters or base64');
  }

  const config: Config = {
    port: int('PORT', 3000, 0, 65535),
    host: str('HOST', '127.0.0.1')!,
    databaseUrl,
    dataDir,
    jwtSecret: jwtSecretRaw ?? '',
    secretKey: secretKey ?? Buffer.alloc(0),
    cookieSecure: bool('COOKIE_SECURE', false),
    corsOrigins,
    redisUrl,
    logLevel,
    adminEmail,
    adminPassword,
    seedDemo: bool('SEED_DEMO', databaseUrl === undefined),
    trustProxy: bool('TRUST_PROXY', false),
    limits: {
      loginFailures: int('LOGIN_MAX_FAILURES', 10, 1, 1000),
      loginFailureWindowSec: int('LOGIN_FAILURE_WINDOW_SEC', 15 * 60, 1, 86400),
      loginPerMinute: int('LOGIN_RATE_PER_MINUTE', 60, 1, 100000),
      publicLeadsPerMinute: int('PUBLIC_LEADS_PER_MINUTE', 30, 1, 100000),
      holdsPerClient: int('HOLDS_PER_CLIENT', 3, 1, 1000),
      holdRequestsPerMinute: int('HOLD_REQUESTS_PER_MINUTE', 120, 1, 100000),
      sessionCacheSec: int('SESSION_CACHE_SEC', 30, 0, 60),
      holdSweepSec: int('HOLD_SWEEP_SEC', 30, 0, 3600),
    },
    argon2: {
      memoryCost: int('ARGON2_MEMORY_KIB', 19456, 1024, 1048576),
      timeCost: int('ARGON2_TIME_COST', 2, 1, 20),
      parallelism: int('ARGON2_PARALLELISM', 1, 1, 16),
    },
  };
  if (problems.length) throw new ConfigError(problems);

  if (!jwtSecretRaw || !secretKey) {
    const kept = keptSecrets(dataDir);
    config.jwtSecret = jwtSecretRaw ?? kept.jwtSecret;
    config.secretKey = secretKey ?? Buffer.from(kept.secretKey, 'hex');
  }
  return config;
}

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function parseKey(raw: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  const b = Buffer.from(raw, 'base64');
  return b.length === 32 ? b : undefined;
}

/** Generated once per data directory so restarts keep sessions and can decrypt stored secrets. */
function keptSecrets(dataDir: string): { jwtSecret: string; secretKey: string } {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) {
    let kept: { jwtSecret?: unknown; secretKey?: unknown } | undefined;
    try {
      kept = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      kept = undefined;
    }
    if (typeof kept?.jwtSecret !== 'string' || kept.jwtSecret.length < 32 || typeof kept.secretKey !== 'string' || !/^[0-9a-f]{64}$/i.test(kept.secretKey)) {
      throw new ConfigError([`${file} is damaged: restore it, or set JWT_SECRET and SECRET_KEY (deleting it ends every session and loses stored secrets)`]);
    }
    return { jwtSecret: kept.jwtSecret, secretKey: kept.secretKey };
  }
  mkdirSync(dataDir, { recursive: true });
  const kept = { jwtSecret: randomBytes(48).toString('base64url'), secretKey: randomBytes(32).toString('hex') };
  writeFileSync(file, JSON.stringify(kept), { mode: 0o600 });
  chmodSync(file, 0o600);
  return kept;
}
