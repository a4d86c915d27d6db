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
  /** Where POST /media keeps files (default DATA_DIR/media). */
  mediaDir: string;
  jwtSecret: string;
  /** During a key change: the JWT_SECRET being retired, still accepted on tokens (never used to sign). */
  previousJwtSecret: string | undefined;
  /** 32-byte AES-256-GCM key for write-only secrets. */
  secretKey: Buffer;
  /** During a key change: the SECRET_KEY being retired, still used to open sealed values and signed links. */
  previousSecretKey: Buffer | undefined;
  cookieSecure: boolean;
  corsOrigins: string[];
  redisUrl: string | undefined;
  /** OpenID Connect sign-in; undefined when OIDC_ISSUER is unset. */
  oidc: { issuer: string; clientId: string; clientSecret: string; allowedDomains: string[] } | undefined;
  /** Audit log entries older than this many days are forgotten. */
  auditRetentionDays: number;
  /** Leads older than this many months are erased hourly; 0 keeps them. */
  leadsRetentionMonths: number;
  /** Put before every key this service writes in Redis, so several services can share one. */
  redisPrefix: string;
  logLevel: string;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  /** Seed the demo account and presentation on start (default: on for the embedded database). */
  seedDemo: boolean;
  trustProxy: boolean;
  /** Let webhooks and inventory feeds reach loopback and private addresses (ALLOW_PRIVATE_TARGETS; alias WEBHOOK_ALLOW_PRIVATE). */
  allowPrivateTargets: boolean;
  webhooks: { allowPrivate: boolean; timeoutMs: number };
  /** SIGTERM: how long the process may take to drain requests, end streams, finish or requeue outbox attempts and exit. */
  shutdownTimeoutSec: number;
  /** Live-feed streams open at once: per client address, and on this node. */
  /**
   * Live-feed bounds: streams per client address and per node; a resumed stream replays at most `replayMaxEvents`
   * missed events within `replayBudgetMs`, at most `replays` replays reading at once on this node (else `refetch`), from
   * ready frames kept per project up to `replayCacheMb` in all.
   */
  sse: { streamsPerClient: number; maxStreams: number; replayMaxEvents: number; replayBudgetMs: number; replays: number; replayCacheMb: number };
  /** Seconds between keep-alive comments on live-feed streams. */
  sseKeepAliveSec: number;
  /** Slow clients: headers and body must arrive within this; idle keep-alive sockets close after keepAliveTimeoutMs. */
  requestTimeoutMs: number;
  /** Headers alone must arrive within this (at most requestTimeoutMs). */
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /**
   * Open connections per client address (the socket's peer; not applied with TRUST_PROXY, where every connection is
   * the proxy's) and on this node.
   */
  connections: { perClient: number | undefined; max: number };
  /** Memory for serialised public bundles (MiB); 0 turns the cache off. */
  bundleCacheMb: number;
  limits: Limits;
  mail: MailConfig;
  outbox: { pollMs: number; concurrency: number };
  argon2: { memoryCost: number; timeCost: number; parallelism: number };
  inventory: InventoryConfig;
  integrations: IntegrationsConfig;
  /**
   * The origin the buyer's pages (`/p/...`, `/g/...`) are served on: another host name than the console's and the
   * API's (PUBLIC_URL), so a script a page carries never runs with a signed-in user's cookies (docs/presentation.md).
   */
  pagesUrl: string;
  media: MediaConfig;
  observability: ObservabilityConfig;
  insights: InsightsConfig;
  map: MapConfig;
  payments: PaymentsConfig;
  billing: BillingConfig;
}

/** Plans a hosted Showsuite bills its customers on (docs/billing.md); off unless BILLING=stripe. */
export interface BillingConfig {
  /** BILLING=stripe: publishing and hiding the branding follow the owner's plan. Off: no limits, nothing answers 402. */
  enabled: boolean;
  /** The Stripe price of each plan (price_…); empty when billing is off. */
  prices: { starter: string; pro: string };
  /** How many projects the Starter plan publishes at once (PLAN_STARTER_PROJECTS). */
  starterProjects: number;
  /** The trial a user's first subscription starts with, in days (0: none). */
  trialDays: number;
}

/** Deposits through each owner's own Stripe account (docs/deposits.md). */
export interface PaymentsConfig {
  /** The platform's Stripe secret key; unset: payments are off (no onboarding, no deposit offered). */
  secretKey: string | undefined;
  /** The signing secret of the platform's Stripe webhook endpoint (POST /payments/webhook). */
  webhookSecret: string | undefined;
  /** Where the Stripe SDK sends its requests: Stripe's own API, or a sandbox or test server. */
  api: { protocol: 'http' | 'https'; host: string; port: number };
  /** How long a hold waits for its deposit before the unit is released and the Checkout Session expired. */
  depositWindowMinutes: number;
}

/** The map on the buyer's page and the group page (docs/map.md): a style URL per `mapStyle`, and the hosts they load from. */
export interface MapConfig {
  /** MapLibre style URLs by `mapStyle`; a path (`/p/assets/…`) is one this service serves. */
  styles: { Light: string; Dark: string; Streets: string; Satellite: string };
  /**
   * Origins the styles fetch from beyond their own (tiles, sprites, glyphs on other hosts; MAP_CONNECT_ORIGINS). A page
   * with a map allows its style's origin and these in its CSP's connect-src, and no page without one does.
   */
  origins: string[];
}

/** Public styles that need no key: OpenFreeMap's vector styles, and Esri World Imagery (raster) in a style this service serves. */
export const MAP_STYLE_DEFAULTS: MapConfig['styles'] = {
  Light: 'https://tiles.openfreemap.org/styles/positron',
  Dark: 'https://tiles.openfreemap.org/styles/dark',
  Streets: 'https://tiles.openfreemap.org/styles/liberty',
  Satellite: '/p/assets/map-satellite.json',
};

/** Page analytics and the weekly report (docs/insights.md). */
export interface InsightsConfig {
  /** Raw events older than this many days are deleted; daily totals are kept. */
  retentionDays: number;
  /** The weekly report goes out on this ISO weekday (1 Monday … 7 Sunday) at reportHour:00 UTC. */
  reportWeekday: number;
  reportHour: number;
}

/** Where uploads live and how long unreferenced ones are kept (docs/media.md). */
export interface MediaConfig {
  /** `local`: files under mediaDir; `s3`: an S3-compatible bucket. */
  store: 'local' | 's3';
  s3: S3Config | undefined;
  /** A file no record has referred to for this many days is deleted. */
  orphanDays: number;
  /** How often a node looks for unreferenced files (once per interval across nodes); 0: this node never does. */
  sweepMinutes: number;
}

export interface S3Config {
  bucket: string;
  region: string;
  /** Unset: AWS itself. */
  endpoint: string | undefined;
  /** Both unset: the SDK's own credential chain (instance role, AWS_* variables). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
}

/** GET /metrics and trace export (docs/deploy.md#metrics-and-traces). */
export interface ObservabilityConfig {
  /** Bearer token GET /metrics asks for; unset: no /metrics route at all (404). */
  metricsToken: string | undefined;
  /** OTLP/HTTP collector base URL; set: every request is traced and exported to `<url>/v1/traces`. */
  otlpEndpoint: string | undefined;
}

/** Inventory imports and the FTP/SFTP feed (docs/inventory.md). */
/** Where each vendor of an integration is reached (a sandbox or a test server may stand in), and how long it may take. */
export interface IntegrationsConfig {
  salesforceLoginUrl: string;
  zohoAccountsUrl: string;
  zohoApiUrl: string;
  rentcafeApiUrl: string;
  calUrl: string;
  /** One call to a vendor, answer included. */
  timeoutMs: number;
}

export interface InventoryConfig {
  /** Every node pulls every project's feed this often, once per project per interval across nodes; 0: never. */
  syncMinutes: number;
  /** Connect and read timeout of a feed server. */
  ftpTimeoutSec: number;
  /** Largest import: a feed file or an uploaded body. */
  maxFileBytes: number;
  /** Extra certificate authorities (PEM text) trusted for ftps feeds, read from INVENTORY_FTP_CA (a file). */
  ftpCa: string | undefined;
  /** Most rows one import may have (counted while the file is read). */
  maxRows: number;
  /** Imports and feed pulls running at once on this node; more → 429. */
  importsAtOnce: number;
}

export interface Limits {
  loginFailures: number;
  loginFailureWindowSec: number;
  loginPerMinute: number;
  publicLeadsPerMinute: number;
  holdsPerClient: number;
  holdRequestsPerMinute: number;
  /** POST /public/events per client address per minute (→ 429). */
  publicEventsPerMinute: number;
  /** Tries at opening a realtor's allocation per client address per minute (→ 429). */
  allocationOpensPerMinute: number;
  /** Worksheets an allocation may have waiting for the sales team at once (→ 409). */
  worksheetsPerAllocation: number;
  /** How long a node may trust a session it has checked; logout reaches every node within this. */
  sessionCacheSec: number;
  holdSweepSec: number;
}

export interface MailConfig {
  /** smtp:// or smtps:// with user and password in the URL; unset: each message becomes DATA_DIR/mail/<id>.eml. */
  smtpUrl: string | undefined;
  /** The sender, `Name <address>` or a bare address. */
  from: { name: string; address: string };
  /** Where links in mail point (no trailing slash). */
  publicUrl: string;
  /** Password-reset requests mailed per username per hour; more are answered the same and send nothing. */
  resetsPerHour: number;
  /** Password-reset and invitation requests per client address per minute (→ 429). */
  accountRequestsPerMinute: number;
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
  /**
   * The variable's value; undefined when it is unset or empty. Every variable may instead be read from a file named by
   * `<NAME>_FILE` (a mounted secret), with one trailing line break dropped; setting both is a mistake.
   */
  const str = (name: string): string | undefined => {
    const v = env[name];
    const file = env[`${name}_FILE`];
    if (file !== undefined && file !== '') {
      if (v !== undefined && v !== '') {
        problems.push(`${name} and ${name}_FILE are both set; set one`);
        return v;
      }
      try {
        const text = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
        return text === '' ? undefined : text;
      } catch (err) {
        problems.push(`${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
        return undefined;
      }
    }
    return v === undefined || v === '' ? undefined : v;
  };
  /**
   * A URL setting: its scheme one of `schemes`, and parseable as a whole. The value is never repeated in the message,
   * since it may carry a password; what usually breaks it is a reserved character in the user name or password.
   */
  const url = (name: string, schemes: string[]): string | undefined => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
    const want = `${/^(http|smtp)/.test(schemes[0] ?? '') ? 'an' : 'a'} ${schemes.map((x) => `${x}://`).join(' or ')}`;
    if (scheme === undefined || !schemes.includes(scheme)) problems.push(`${name} must be ${want} URL`);
    else if (!URL.canParse(raw)) {
      problems.push(
        `${name} is not a valid URL (value not shown; it may hold a password): percent-encode reserved characters in ` +
          'its user name and password, "/" as %2F, "@" as %40, ":" as %3A, "#" as %23, "?" as %3F',
      );
    }
    return raw;
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

  const databaseUrl = url('DATABASE_URL', ['postgres', 'postgresql']);
  const redisUrl = url('REDIS_URL', ['redis', 'rediss']);
  const redisPrefix = str('REDIS_PREFIX') ?? 'showsuite:';
  if (!/^[A-Za-z0-9:._-]{0,64}$/.test(redisPrefix)) problems.push('REDIS_PREFIX must be up to 64 letters, digits and : . _ -');
  const logLevel = str('LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}")`);
  }
  const corsOrigins = (str('CORS_ORIGINS') ?? '')
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

  const smtpUrl = url('SMTP_URL', ['smtp', 'smtps']);
  const mailFromRaw = str('MAIL_FROM') ?? 'Showsuite <no-reply@localhost>';
  const mailFrom = parseMailbox(mailFromRaw);
  if (!mailFrom) problems.push(`MAIL_FROM must be an address or "Name <address>" (got "${mailFromRaw}")`);
  const publicUrlRaw = url('PUBLIC_URL', ['http', 'https']);
  const pagesUrlRaw = str('PAGES_URL');
  if (pagesUrlRaw !== undefined && !/^https?:\/\/[^/\s?#]+\/?$/.test(pagesUrlRaw)) {
    problems.push('PAGES_URL must be an origin such as https://homes.example.com (http:// or https://, no path)');
  }

  const metricsToken = str('METRICS_TOKEN');
  if (metricsToken !== undefined && (metricsToken.length < 16 || /\s/.test(metricsToken))) {
    problems.push('METRICS_TOKEN must be at least 16 characters with no spaces');
  }
  const otlpEndpoint = url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http', 'https'])?.replace(/\/+$/, '');

  const dataDir = resolve(str('DATA_DIR') ?? './data');
  const media = readMediaConfig(str, int, bool, problems);
  const map = readMapConfig(str, problems);
  const jwtSecretRaw = str('JWT_SECRET');
  if (jwtSecretRaw !== undefined && jwtSecretRaw.length < 32) problems.push('JWT_SECRET must be at least 32 characters');
  const previousJwtSecret = str('JWT_SECRET_PREVIOUS');
  if (previousJwtSecret !== undefined && previousJwtSecret.length < 32) problems.push('JWT_SECRET_PREVIOUS must be at least 32 characters');
  const key = (name: string) => {
    const raw = str(name);
    const parsed = raw === undefined ? undefined : parseKey(raw);
    if (raw !== undefined && !parsed) problems.push(`${name} must be 32 bytes, written as 64 hex characters or base64`);
    return parsed;
  };
  const secretKey = key('SECRET_KEY');
  const previousSecretKey = key('SECRET_KEY_PREVIOUS');

  // WEBHOOK_ALLOW_PRIVATE is the older name of ALLOW_PRIVATE_TARGETS (it now covers the inventory feeds too).
  const allowPrivateTargets = str('ALLOW_PRIVATE_TARGETS') !== undefined ? bool('ALLOW_PRIVATE_TARGETS', false) : bool('WEBHOOK_ALLOW_PRIVATE', false);

  // A vendor's address: its own by default, without a trailing slash (paths are appended).
  const vendorUrl = (name: string, fallback: string) => (url(name, ['https', 'http']) ?? fallback).replace(/\/+$/, '');

  const trustProxy = bool('TRUST_PROXY', false);
  const requestTimeoutSec = int('REQUEST_TIMEOUT_SEC', 30, 1, 300);
  const maxStreams = int('SSE_MAX_STREAMS', 5000, 1, 1_000_000);

  const config: Config = {
    port: int('PORT', 3000, 0, 65535),
    host: str('HOST') ?? '127.0.0.1',
    databaseUrl,
    dataDir,
    mediaDir: resolve(str('MEDIA_DIR') ?? join(dataDir, 'media')),
    jwtSecret: jwtSecretRaw ?? '',
    previousJwtSecret,
    secretKey: secretKey ?? Buffer.alloc(0),
    previousSecretKey,
    cookieSecure: bool('COOKIE_SECURE', false),
    corsOrigins,
    redisUrl,
    auditRetentionDays: int('AUDIT_RETENTION_DAYS', 365, 1, 3650),
    leadsRetentionMonths: int('LEADS_RETENTION_MONTHS', 0, 0, 1200),
    oidc: readOidc(str, url, problems),
    redisPrefix,
    logLevel,
    adminEmail,
    adminPassword,
    seedDemo: bool('SEED_DEMO', databaseUrl === undefined),
    trustProxy,
    sseKeepAliveSec: int('SSE_KEEPALIVE_SEC', 20, 1, 25),
    shutdownTimeoutSec: int('SHUTDOWN_TIMEOUT_SEC', 10, 1, 600),
    requestTimeoutMs: requestTimeoutSec * 1000,
    headersTimeoutMs: Math.min(int('HEADERS_TIMEOUT_SEC', 10, 1, 300), requestTimeoutSec) * 1000,
    keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_SEC', 5, 1, 300) * 1000,
    bundleCacheMb: int('BUNDLE_CACHE_MB', 32, 0, 4096),
    allowPrivateTargets,
    sse: {
      streamsPerClient: int('SSE_STREAMS_PER_CLIENT', 20, 1, 100_000),
      maxStreams,
      replayMaxEvents: int('SSE_REPLAY_MAX_EVENTS', 1000, 0, 100_000),
      replayBudgetMs: int('SSE_REPLAY_BUDGET_MS', 2000, 100, 60_000),
      replays: int('SSE_REPLAYS', 2, 1, 64),
      replayCacheMb: int('SSE_REPLAY_CACHE_MB', 32, 0, 4096),
    },
    connections: {
      perClient: trustProxy ? undefined : int('CONNECTIONS_PER_CLIENT', 100, 1, 1_000_000),
      // Room for every live-feed stream and as many connections again for everything else.
      max: int('MAX_CONNECTIONS', maxStreams + 1000, 1, 10_000_000),
    },
    webhooks: { allowPrivate: allowPrivateTargets, timeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000) },
    limits: {
      loginFailures: int('LOGIN_MAX_FAILURES', 10, 1, 1000),
      loginFailureWindowSec: int('LOGIN_FAILURE_WINDOW_SEC', 15 * 60, 1, 86400),
      loginPerMinute: int('LOGIN_RATE_PER_MINUTE', 60, 1, 100000),
      publicLeadsPerMinute: int('PUBLIC_LEADS_PER_MINUTE', 30, 1, 100000),
      holdsPerClient: int('HOLDS_PER_CLIENT', 3, 1, 1000),
      holdRequestsPerMinute: int('HOLD_REQUESTS_PER_MINUTE', 120, 1, 100000),
      publicEventsPerMinute: int('PUBLIC_EVENTS_PER_MINUTE', 120, 1, 1_000_000),
      allocationOpensPerMinute: int('ALLOCATION_OPENS_PER_MINUTE', 10, 1, 100000),
      worksheetsPerAllocation: int('WORKSHEETS_PER_ALLOCATION', 200, 1, 100000),
      sessionCacheSec: int('SESSION_CACHE_SEC', 30, 0, 60),
      holdSweepSec: int('HOLD_SWEEP_SEC', 30, 0, 3600),
    },
    mail: {
      smtpUrl,
      from: mailFrom ?? { name: '', address: 'no-reply@localhost' },
      publicUrl: '',
      resetsPerHour: int('PASSWORD_RESETS_PER_HOUR', 3, 1, 1000),
      accountRequestsPerMinute: int('ACCOUNT_REQUESTS_PER_MINUTE', 10, 1, 100000),
    },
    outbox: {
      pollMs: int('OUTBOX_POLL_MS', 1000, 0, 600_000),
      concurrency: int('OUTBOX_CONCURRENCY', 5, 1, 100),
    },
    inventory: {
      syncMinutes: int('INVENTORY_SYNC_MINUTES', 15, 0, 10080),
      ftpTimeoutSec: int('INVENTORY_FTP_TIMEOUT_SEC', 30, 1, 600),
      maxFileBytes: int('INVENTORY_MAX_FILE_MB', 20, 1, 200) * 1024 * 1024,
      ftpCa: readCaFile(str('INVENTORY_FTP_CA'), problems),
      maxRows: int('INVENTORY_MAX_ROWS', 20_000, 1, 1_000_000),
      importsAtOnce: int('INVENTORY_IMPORTS_AT_ONCE', 2, 1, 100),
    },
    integrations: {
      salesforceLoginUrl: vendorUrl('SALESFORCE_LOGIN_URL', 'https://login.salesforce.com'),
      zohoAccountsUrl: vendorUrl('ZOHO_ACCOUNTS_URL', 'https://accounts.zoho.com'),
      zohoApiUrl: vendorUrl('ZOHO_API_URL', 'https://www.zohoapis.com'),
      rentcafeApiUrl: vendorUrl('RENTCAFE_API_URL', 'https://api.rentcafe.com'),
      calUrl: vendorUrl('CAL_URL', 'https://cal.com'),
      timeoutMs: int('INTEGRATION_TIMEOUT_MS', 10_000, 100, 60_000),
    },
    media,
    observability: { metricsToken, otlpEndpoint },
    insights: {
      retentionDays: int('INSIGHTS_RETENTION_DAYS', 400, 1, 36500),
      reportWeekday: int('REPORT_WEEKDAY', 1, 1, 7),
      reportHour: int('REPORT_HOUR', 8, 0, 23),
    },
    argon2: {
      memoryCost: int('ARGON2_MEMORY_KIB', 19456, 1024, 1048576),
      timeCost: int('ARGON2_TIME_COST', 2, 1, 20),
      parallelism: int('ARGON2_PARALLELISM', 1, 1, 16),
    },
    pagesUrl: '',
    map,
    payments: readPayments(str, int, url, problems),
    billing: readBilling(str, int, problems),
  };
  if (problems.length) throw new ConfigError(problems);
  config.mail.publicUrl = (publicUrlRaw ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
  config.pagesUrl = pagesUrlRaw !== undefined ? new URL(pagesUrlRaw).origin : defaultPagesUrl(config.mail.publicUrl);
  if (new URL(config.pagesUrl).hostname === new URL(config.mail.publicUrl).hostname) {
    // Cookies are kept per host name (not per port): pages on the console's host name would share its session.
    throw new ConfigError([`PAGES_URL (${config.pagesUrl}) must name another host than PUBLIC_URL (${config.mail.publicUrl}), not only another port`]);
  }

  if (!jwtSecretRaw || !secretKey) {
    const kept = keptSecrets(dataDir);
    config.jwtSecret = jwtSecretRaw ?? kept.jwtSecret;
    config.secretKey = secretKey ?? Buffer.from(kept.secretKey, 'hex');
  }
  return config;
}

/**
 * Where the pages are when PAGES_URL is unset: on one machine the other loopback name (the console on
 * localhost, the pages on 127.0.0.1: different origins, cookie hosts and sites, one port), else `pages.` before
 * the console's host name (that name must then reach the service too).
 */
export function defaultPagesUrl(publicUrl: string): string {
  const url = new URL(publicUrl);
  const swap: Record<string, string> = { localhost: '127.0.0.1', '127.0.0.1': 'localhost', '[::1]': 'localhost' };
  url.hostname = swap[url.hostname] ?? `pages.${url.hostname}`;
  return url.origin;
}

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** `Name <address>` or a bare address. */
export function parseMailbox(raw: string): { name: string; address: string } | undefined {
  const m = /^\s*(?:"?([^"<]*?)"?\s*)?<([^<>\s]+)>\s*$/.exec(raw);
  const name = (m?.[1] ?? '').trim();
  // Group 2 always takes part in a match.
  const address = m?.[2] ?? raw.trim();
  // A host without a dot (localhost) is fine for a sender.
  return /^[^\s@<>"]+@[^\s@<>"]+$/.test(address) ? { name, address } : undefined;
}

/** MAP_STYLE_LIGHT, _DARK, _STREETS and _SATELLITE (http(s) URLs or paths of this service) and MAP_CONNECT_ORIGINS. */
function readMapConfig(str: (name: string) => string | undefined, problems: string[]): MapConfig {
  const styles = { ...MAP_STYLE_DEFAULTS };
  for (const key of Object.keys(styles) as (keyof MapConfig['styles'])[]) {
    const name = `MAP_STYLE_${key.toUpperCase()}`;
    const v = str(name);
    if (v === undefined) continue;
    if (/^https?:\/\/[^\s]+$/.test(v) ? !URL.canParse(v) : !/^\/[^\s/][^\s]*$/.test(v))
      problems.push(`${name} must be an http(s) URL or a path such as /p/assets/style.json`);
    else styles[key] = v;
  }
  const origins = new Set<string>();
  for (const o of (str('MAP_CONNECT_ORIGINS') ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (!/^https?:\/\/[^/\s]+$/.test(o)) problems.push(`MAP_CONNECT_ORIGINS entry "${o}" must be an origin such as https://tiles.example.com`);
    else origins.add(o);
  }
  return { styles, origins: [...origins] };
}

function readMediaConfig(
  str: (name: string) => string | undefined,
  int: (name: string, fallback: number, min: number, max: number) => number,
  bool: (name: string, fallback: boolean) => boolean,
  problems: string[],
): MediaConfig {
  const store = str('MEDIA_STORE') ?? 'local';
  if (store !== 'local' && store !== 's3') problems.push(`MEDIA_STORE must be local or s3 (got "${store}")`);
  const orphanDays = int('MEDIA_ORPHAN_DAYS', 7, 1, 3650);
  const sweepMinutes = int('MEDIA_SWEEP_MINUTES', 60, 0, 10080);
  if (store !== 's3') return { store: 'local', s3: undefined, orphanDays, sweepMinutes };
  const bucket = str('S3_BUCKET');
  if (bucket === undefined) problems.push('S3_BUCKET is required when MEDIA_STORE=s3');
  const endpoint = str('S3_ENDPOINT');
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(endpoint)) problems.push('S3_ENDPOINT must be an http:// or https:// address with no path');
  const accessKeyId = str('S3_ACCESS_KEY_ID');
  const secretAccessKey = str('S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  return {
    store: 's3',
    s3: {
      bucket: bucket ?? '',
      region: str('S3_REGION') ?? 'us-east-1',
      endpoint,
      credentials: accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey } : undefined,
      forcePathStyle: bool('S3_FORCE_PATH_STYLE', false),
    },
    orphanDays,
    sweepMinutes,
  };
}

function readOidc(str: (name: string) => string | undefined, url: (name: string, schemes: string[]) => string | undefined, problems: string[]): Config['oidc'] {
  const issuer = url('OIDC_ISSUER', ['https', 'http']);
  const clientId = str('OIDC_CLIENT_ID');
  const clientSecret = str('OIDC_CLIENT_SECRET');
  const domains = (str('OIDC_ALLOWED_DOMAINS') ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  if (issuer === undefined) {
    if (clientId !== undefined || clientSecret !== undefined) problems.push('OIDC_CLIENT_ID and OIDC_CLIENT_SECRET need OIDC_ISSUER');
    return undefined;
  }
  if (clientId === undefined || clientSecret === undefined) problems.push('OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
  // Plain http only for a provider on this machine (a development or test provider): tokens never cross a network in clear.
  if (/^http:/i.test(issuer) && URL.canParse(issuer) && !['localhost', '127.0.0.1', '[::1]'].includes(new URL(issuer).hostname)) {
    problems.push('OIDC_ISSUER must be an https:// URL (http:// only for localhost)');
  }
  for (const d of domains) if (!/^[a-z0-9.-]+\.[a-z]{2,}$/.test(d)) problems.push(`OIDC_ALLOWED_DOMAINS entry "${d}" must be a domain such as example.com`);
  return { issuer, clientId: clientId ?? '', clientSecret: clientSecret ?? '', allowedDomains: domains };
}

function readPayments(
  str: (name: string) => string | undefined,
  int: (name: string, fallback: number, min: number, max: number) => number,
  url: (name: string, schemes: string[]) => string | undefined,
  problems: string[],
): PaymentsConfig {
  const secretKey = str('STRIPE_SECRET_KEY');
  const webhookSecret = str('STRIPE_WEBHOOK_SECRET');
  if (secretKey !== undefined && !/^(sk|rk)_[A-Za-z0-9_]+$/.test(secretKey)) problems.push('STRIPE_SECRET_KEY must be a Stripe secret key (sk_… or rk_…)');
  if (webhookSecret !== undefined && !/^whsec_[A-Za-z0-9_]+$/.test(webhookSecret))
    problems.push('STRIPE_WEBHOOK_SECRET must be a webhook signing secret (whsec_…)');
  if (secretKey !== undefined && webhookSecret === undefined)
    problems.push('STRIPE_SECRET_KEY needs STRIPE_WEBHOOK_SECRET (deposits are confirmed by signed events)');
  const base = new URL(url('STRIPE_API_BASE', ['https', 'http']) ?? 'https://api.stripe.com');
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return {
    secretKey,
    webhookSecret,
    api: { protocol, host: base.hostname, port: base.port ? Number(base.port) : protocol === 'http' ? 80 : 443 },
    depositWindowMinutes: int('DEPOSIT_WINDOW_MINUTES', 15, 1, 24 * 60),
  };
}

function readBilling(
  str: (name: string) => string | undefined,
  int: (name: string, fallback: number, min: number, max: number) => number,
  problems: string[],
): BillingConfig {
  const mode = str('BILLING');
  if (mode !== undefined && mode !== 'stripe') problems.push('BILLING must be "stripe" or unset (unset: no plans, nothing is limited)');
  const enabled = mode === 'stripe';
  const price = (name: string) => {
    const value = str(name);
    if (value !== undefined && !/^price_[A-Za-z0-9_]+$/.test(value)) problems.push(`${name} must be a Stripe price id (price_…)`);
    else if (enabled && value === undefined) problems.push(`BILLING=stripe needs ${name} (the Stripe price of that plan)`);
    return value ?? '';
  };
  const prices = { starter: price('STRIPE_PRICE_STARTER'), pro: price('STRIPE_PRICE_PRO') };
  if (enabled && prices.starter && prices.starter === prices.pro) problems.push('STRIPE_PRICE_STARTER and STRIPE_PRICE_PRO must be two prices');
  if (enabled && str('STRIPE_SECRET_KEY') === undefined) problems.push('BILLING=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET');
  return { enabled, prices, starterProjects: int('PLAN_STARTER_PROJECTS', 1, 1, 10_000), trialDays: int('TRIAL_DAYS', 14, 0, 730) };
}

function readCaFile(path: string | undefined, problems: string[]): string | undefined {
  if (path === undefined) return undefined;
  try {
    const pem = readFileSync(path, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) problems.push(`INVENTORY_FTP_CA (${path}) holds no PEM certificate`);
    return pem;
  } catch {
    problems.push(`INVENTORY_FTP_CA: cannot read ${path}`);
    return undefined;
  }
}

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
      kept = JSON.parse(readFileSync(file, 'utf8')) as { jwtSecret?: unknown; secretKey?: unknown };
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
