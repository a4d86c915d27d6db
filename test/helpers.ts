import { Writable } from 'node:stream';
import { createServer as createNetServer } from 'node:net';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { openDb, openPGlite, type Db } from '../src/db/db.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import type { Clock } from '../src/lib/clock.ts';
import { newObjectId } from '../src/lib/object-id.ts';
import { Passwords } from '../src/lib/passwords.ts';
import { createSession } from '../src/modules/users/sessions.repo.ts';
import { insertUser } from '../src/modules/users/users.repo.ts';
import type { Role } from '../src/modules/users/users.schemas.ts';

/** Which engine this run tests: TEST_DB=postgres or pglite (the default). */
export const ENGINE = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';
/** A database on the server where throwaway databases can be created. */
export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-0123456789';
export const TEST_PASSWORD = 'correct horse battery';

const tempDirs: string[] = [];
process.on('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory removed when the test process exits. */
export function tempDir(prefix = 'showsuite-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Real configuration parsing, with fixed secrets and a cheap (still argon2id) hash cost for speed. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    DATA_DIR: tempDir(),
    JWT_SECRET: TEST_JWT_SECRET,
    SECRET_KEY: randomBytes(32).toString('hex'),
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    // No background feed pulls in tests; the feed tests tick the schedule by hand.
    INVENTORY_SYNC_MINUTES: '0',
    // Tests reach the console and the API at 127.0.0.1 and localhost; the buyer's pages get a name of their own
    // unless a test serves them (test/support/browser.ts: twoOrigins).
    PAGES_URL: 'http://pages.localhost',
    ...env,
  });
}

/** Rate limits and lockouts set far out of reach, for tests that send thousands of requests from one address. */
export const HIGH_RATE_LIMITS = {
  LOGIN_RATE_PER_MINUTE: '100000',
  PUBLIC_LEADS_PER_MINUTE: '100000',
  HOLD_REQUESTS_PER_MINUTE: '100000',
  PUBLIC_EVENTS_PER_MINUTE: '100000',
  ALLOCATION_OPENS_PER_MINUTE: '100000',
  LOGIN_MAX_FAILURES: '1000',
  PASSWORD_RESETS_PER_HOUR: '1000',
  ACCOUNT_REQUESTS_PER_MINUTE: '100000',
};

export interface TestDb {
  db: Db;
  /** Connection URL of the throwaway database (postgres engine only). */
  url: string | undefined;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file: a throwaway PostgreSQL database, or an in-memory PGlite. */
export async function openTestDb(opts: { migrate?: boolean } = {}): Promise<TestDb> {
  if (ENGINE === 'pglite' && opts.migrate === false) {
    const db = await openDb({});
    return { db, url: undefined, drop: () => db.close() };
  }
  if (ENGINE === 'pglite') {
    const dir = tempDir('showsuite-pglite-');
    const db = await openPGlite(dir, { template: pgliteTemplate() });
    await migrate(db);
    return {
      db,
      url: undefined,
      async drop() {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const created = await throwawayDatabase('showsuite_t', opts.migrate === false ? undefined : await postgresTemplate());
  const db = await openDb({ databaseUrl: created.url, poolSize: 10 });
  if (opts.migrate !== false) await migrate(db);
  return {
    db,
    url: created.url,
    async drop() {
      await db.close();
      await created.drop();
    },
  };
}

const TEMPLATE_SCRIPT = fileURLToPath(new URL('../src/cli/pglite-template.ts', import.meta.url));

/**
 * The build's template of a new embedded database (src/cli/pglite-template.ts: created, migrated, the job queue's
 * tables made), made once for a set of migrations and kept in the temporary directory for every test process after
 * it. A test database unpacked from it takes about a quarter of the CPU of initdb and every migration (~0.5 s against
 * ~2 s, for the ~90 databases a PGlite run opens), and is the database a first `npm start` gets.
 */
function pgliteTemplate(): string {
  const key = migrationsKey();
  key.update(readFileSync(TEMPLATE_SCRIPT));
  for (const pkg of ['@electric-sql/pglite', 'pg-boss']) key.update(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url)));
  const path = join(tmpdir(), `showsuite-test-pglite-${key.digest('hex').slice(0, 16)}.tar`);
  if (!existsSync(path)) {
    // Written under another name and renamed, so a process reading it never sees half a file.
    const partial = `${path}.${process.pid}`;
    execFileSync(process.execPath, ['--import', 'tsx', TEMPLATE_SCRIPT, partial], { stdio: 'inherit' });
    renameSync(partial, path);
  }
  return path;
}

/** A hash of the migrations: a template made from other migrations is another template. */
function migrationsKey() {
  const key = createHash('sha256');
  for (const m of listMigrations()) key.update(`${m.version} ${m.name}\n${m.sql}\n`);
  return key;
}

let pgTemplate: Promise<string> | undefined;

/**
 * A migrated PostgreSQL database on the test server that test databases are copied from (`create database … template`):
 * about a quarter of the time of migrating each new one. Made once for a set of migrations (its name carries their
 * hash) under a name of its own, then renamed, so a process copying it never finds it half migrated; nothing else
 * connects to it, as a copy requires.
 */
function postgresTemplate(): Promise<string> {
  pgTemplate ??= (async () => {
    const name = `showsuite_tpl_${migrationsKey().digest('hex').slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      if ((await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount) return name;
      const made = await throwawayDatabase(`${name}_new`);
      const db = await openDb({ databaseUrl: made.url, poolSize: 1 });
      await migrate(db);
      await db.close();
      // Another process may have made it meanwhile (42P04, duplicate_database): then theirs serves.
      await admin.query(`alter database ${new URL(made.url).pathname.slice(1)} rename to ${name}`).catch(async (err: { code?: string }) => {
        if (err.code !== '42P04') throw err;
        await made.drop();
      });
      return name;
    } finally {
      await admin.end();
    }
  })();
  return pgTemplate;
}

/** An empty PostgreSQL database of its own (as `createdb` makes it, or a copy of `template`) on the test server, and how to drop it. */
export async function throwawayDatabase(prefix: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  config: Config;
  close(): Promise<void>;
}

/**
 * One more node of a deployment on `testDb`'s database: on PostgreSQL with a pool of its own (added to `pools`, for
 * the caller to close after the app), on PGlite the same in-process database.
 */
export async function nodeOn(testDb: TestDb, opts: { env?: Record<string, string>; clock?: Clock }, pools: { close(): Promise<void> }[]): Promise<TestApp> {
  if (ENGINE === 'postgres' && testDb.url) {
    const db = await openDb({ databaseUrl: testDb.url, poolSize: 5 });
    pools.push(db);
    return buildTestApp({ ...opts, testDb: { db, url: testDb.url, drop: async () => {} } });
  }
  return buildTestApp({ ...opts, testDb });
}

/** The production app (same buildApp, same validation) over a throwaway database. */
/**
 * An app over `testDb` logging every line at the most talkative level into `logs` (to prove no secret reaches one),
 * its feed schedule stopped (tests tick it by hand).
 */
export async function loggingTestApp(testDb: TestDb, config: Config, clock: Clock, logs: string[]): Promise<TestApp> {
  const stream = new Writable({
    write(chunk, _e, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const app = await buildApp({ config, db: testDb.db, clock, logger: { level: 'trace', stream } });
  await app.ready();
  app.feedScheduler.stop();
  return { app, db: testDb.db, config, close: () => app.close() };
}

export async function buildTestApp(opts: { env?: Record<string, string>; clock?: Clock; testDb?: TestDb } = {}): Promise<TestApp> {
  const testDb = opts.testDb ?? (await openTestDb());
  const config = testConfig(opts.env);
  const app = await buildApp({ config, db: testDb.db, logger: false, ...(opts.clock ? { clock: opts.clock } : {}) });
  await app.ready();
  return {
    app,
    db: testDb.db,
    config,
    async close() {
      await app.close();
      if (!opts.testDb) await testDb.drop();
    },
  };
}

const hasher = new Passwords({ memoryCost: 1024, timeCost: 1, parallelism: 1 });

export interface TestUser {
  id: string;
  username: string;
  password: string;
  role: Role;
}

/** Inserts a user directly (unique username per call). */
export async function createUser(
  db: Db,
  opts: { role?: Role; username?: string; password?: string; profile?: Record<string, unknown> } = {},
): Promise<TestUser> {
  const username = opts.username ?? `user-${randomBytes(5).toString('hex')}@example.com`;
  const password = opts.password ?? TEST_PASSWORD;
  const role = opts.role ?? 'user';
  const row = await insertUser(db.kysely, {
    id: newObjectId(),
    username,
    passwordHash: await hasher.hash(password),
    role,
    profile: opts.profile ?? { name: 'Test', lastName: 'User' },
  });
  return { id: row.id, username, password, role };
}

/** Logs in through the real endpoint and returns the access token and cookies. */
export async function login(app: FastifyInstance, user: { username: string; password: string }) {
  const res = await app.inject({ method: 'POST', url: '/users/login', payload: { username: user.username, password: user.password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const body = res.json();
  const cookies = Object.fromEntries(res.cookies.map((c) => [c.name, c]));
  return { token: body.access_token as string, body, cookies, refreshToken: cookies.serviceRefresh?.value as string | undefined };
}

/** A logged-in user: created and logged in; `auth` is the header to send. */
export async function userWithToken(t: TestApp, opts: { role?: Role } = {}) {
  const user = await createUser(t.db, opts);
  const { token } = await login(t.app, user);
  return { ...user, token, auth: { authorization: `Bearer ${token}` } };
}

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  constructor(public t = Date.now()) {}
  now() {
    return this.t;
  }
  advance(ms: number) {
    this.t += ms;
  }
}

const HMAC_OF: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

/**
 * Signs a JWT by hand (node:crypto HMAC), so tests can make tokens the service's own signer never would:
 * other algorithms, `alg: none`, foreign issuers, expired ones.
 */
export function signTestJwt(payload: Record<string, unknown>, opts: { secret?: string; alg?: string; header?: Record<string, unknown> } = {}): string {
  const alg = opts.alg ?? 'HS256';
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${enc({ alg, typ: 'JWT', ...opts.header })}.${enc(payload)}`;
  if (alg === 'none') return `${input}.`;
  const digest = HMAC_OF[alg];
  if (!digest) throw new Error(`signTestJwt: unsupported alg ${alg}`);
  return `${input}.${createHmac(digest, opts.secret ?? TEST_JWT_SECRET)
    .update(input)
    .digest('base64url')}`;
}

/** The payload of a JWT, unverified. */
export function jwtClaims(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

/** Valid access-token claims for a session, as the service signs them (iss, aud, sub, sid, jti, iat, exp). */
export function accessClaims(userId: string, sid: string, nowMs = Date.now(), ttlSec = 3600) {
  const iat = Math.floor(nowMs / 1000);
  return { sub: userId, sid, jti: newObjectId(), iat, exp: iat + ttlSec, iss: 'showsuite', aud: 'showsuite-api' };
}

/** A session row written straight to the database and an access token for it, without going through login. */
export async function sessionToken(db: Db, userId: string, opts: { secret?: string } = {}): Promise<{ sid: string; token: string }> {
  const sid = newObjectId();
  await createSession(db.kysely, { id: sid, userId, impersonatorId: null, expiresAt: new Date(Date.now() + 86_400_000) });
  return { sid, token: signTestJwt(accessClaims(userId, sid), opts) };
}

type Auth = { authorization: string };

/** Creates a project through the API (owner = the token's user); `query` adds query parameters, `body` a JSON body. */
export async function createProject(
  app: FastifyInstance,
  auth: Auth,
  opts: { name?: string; query?: Record<string, string>; body?: Record<string, unknown> } = {},
) {
  const qs = new URLSearchParams({ name: opts.name ?? `Project ${randomBytes(3).toString('hex')}`, ...opts.query });
  const res = await app.inject({ method: 'POST', url: `/projects?${qs}`, headers: auth, ...(opts.body ? { payload: opts.body } : {}) });
  if (res.statusCode !== 201) throw new Error(`createProject: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, any> & { _id: string };
}

export async function createFloor(
  app: FastifyInstance,
  auth: Auth,
  project: string,
  opts: { name?: string; position?: number; body?: Record<string, unknown> } = {},
) {
  const qs = new URLSearchParams({ project, name: opts.name ?? 'Level', ...(opts.position !== undefined ? { position: String(opts.position) } : {}) });
  const res = await app.inject({ method: 'POST', url: `/floors?${qs}`, headers: auth, ...(opts.body ? { payload: opts.body } : {}) });
  if (res.statusCode !== 201) throw new Error(`createFloor: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, any> & { _id: string };
}

export async function createUnit(
  app: FastifyInstance,
  auth: Auth,
  project: string,
  opts: { name?: string; position?: number; floor?: string; body?: Record<string, unknown> } = {},
) {
  const qs = new URLSearchParams({
    project,
    name: opts.name ?? `Unit ${randomBytes(2).toString('hex')}`,
    position: String(opts.position ?? 0),
    ...(opts.floor ? { floor: opts.floor } : {}),
  });
  const res = await app.inject({ method: 'POST', url: `/units?${qs}`, headers: auth, ...(opts.body ? { payload: opts.body } : {}) });
  if (res.statusCode !== 201) throw new Error(`createUnit: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, any> & { _id: string };
}

/** Creates a group through the API (owner = the token's user); `query` adds query parameters, `body` a JSON body. */
export async function createGroup(
  app: FastifyInstance,
  auth: Auth,
  opts: { name?: string; query?: Record<string, string>; body?: Record<string, unknown> } = {},
) {
  const qs = new URLSearchParams({ name: opts.name ?? `Group ${randomBytes(3).toString('hex')}`, ...opts.query });
  const res = await app.inject({ method: 'POST', url: `/groups?${qs}`, headers: auth, ...(opts.body ? { payload: opts.body } : {}) });
  if (res.statusCode !== 201) throw new Error(`createGroup: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, any> & { _id: string };
}

/**
 * What the public routes' tests start from: a project with a namespace of its own (`settings`: more of its fields),
 * one floor, and on it the units named in `units` (each with fields of its own, where given). Ids by unit name.
 */
export async function publicProject(
  app: FastifyInstance,
  auth: Auth,
  opts: { name?: string; settings?: Record<string, unknown>; units: Record<string, Record<string, unknown>> },
) {
  const namespace = slug('pub');
  const p = await createProject(app, auth, { ...(opts.name ? { name: opts.name } : {}), body: { namespace, ...opts.settings } });
  const floor = await createFloor(app, auth, p._id);
  const units: Record<string, string> = {};
  for (const [name, body] of Object.entries(opts.units)) {
    units[name] = (await createUnit(app, auth, p._id, { floor: floor._id, name, ...(Object.keys(body).length ? { body } : {}) }))._id;
  }
  return { id: p._id, namespace, floor: floor._id, units };
}

/** A short way to send one request as one caller: `call('PATCH', url, body, { 'if-match': etag })`. No auth when `auth` is undefined. */
export function caller(app: FastifyInstance, auth?: Auth) {
  return (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method, url, headers: { ...auth, ...headers }, ...(payload !== undefined ? { payload: payload as object } : {}) });
}

export type Caller = ReturnType<typeof caller>;
export type LoggedIn = Awaited<ReturnType<typeof userWithToken>>;

/** What most test files work with: the app over its own throwaway database, its owner user, and a caller as that owner. */
export interface OwnerApp {
  t: TestApp;
  owner: LoggedIn;
  call: Caller;
}

/**
 * The one set-up most test files share: before the file's tests, an app (`buildTestApp(opts)`), a logged-in owner and
 * a caller as the owner, handed to `use` (which assigns the file's variables); after them, the app closes and its
 * database is dropped.
 */
export function useOwnerApp(opts: Parameters<typeof buildTestApp>[0], use: (fixture: OwnerApp) => void) {
  let fixture: OwnerApp | undefined;
  before(async () => {
    const t = await buildTestApp(opts);
    const owner = await userWithToken(t);
    fixture = { t, owner, call: caller(t.app, owner.auth) };
    use(fixture);
  });
  after(() => fixture?.t.close());
}

/**
 * Two service processes as `src/main.ts` starts them from source, on the one PostgreSQL database `url`, each on a port
 * of its own with a DATA_DIR of its own, both ready; `env`: more settings. The processes go into `children`, for the
 * file to kill after its tests. Returns the two ports.
 */
export async function startTwoNodes(url: string, children: ChildProcess[], env: Record<string, string> = {}): Promise<number[]> {
  const ports = [await freePort(), await freePort()];
  for (const port of ports) {
    const nodeEnv = {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: TEST_JWT_SECRET,
      SECRET_KEY: 'a'.repeat(64),
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'false',
      DATA_DIR: tempDir('showsuite-node-'),
      ...env,
    };
    children.push(spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: nodeEnv, stdio: ['ignore', 'ignore', 'inherit'] }));
  }
  for (const port of ports) await waitReady(port);
  return ports;
}

/** A unique lower-case slug for namespaces and host names. */
export const slug = (prefix = 'ns') => `${prefix}-${randomBytes(5).toString('hex')}`;

/** A JSON schema as the field-coverage tests read it. */
export type FieldSchema = { type?: string; anyOf?: FieldSchema[]; $ref?: string };

/** The JSON type a schema accepts (nullable unions by their non-null member; refs are objects; integers numbers). */
export function schemaType(s: FieldSchema): string | undefined {
  if (s.anyOf) return schemaType(s.anyOf.find((x) => x.type !== 'null')!);
  if (s.$ref) return 'object';
  if (s.type === 'integer') return 'number';
  return s.type === 'string' || s.type === 'number' || s.type === 'boolean' || s.type === 'array' || s.type === 'object' ? s.type : undefined;
}

/** A value of the wrong JSON type for a field of that type. */
export function wrongValueFor(type: string | undefined): unknown {
  return type === 'string' ? 12345 : type === 'number' ? 'twelve' : type === 'boolean' ? 'yes' : type === 'array' ? 'not an array' : 'not an object';
}

/** A TCP port free right now on loopback (for a child service process). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Waits (up to 60 s) until a service process on `port` answers `/ready` with 200. */
export async function waitReady(port: number) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`service on ${port} did not become ready`);
}

/**
 * The spec's secret-bearing Project fields (write-only, named in `configuredSecrets`), written out here
 * from the contract rather than taken from the code, so a field the code forgets to seal is caught.
 */
export const SPEC_SECRET_FIELDS = [
  'pvPassword',
  'ftpPassword',
  'ftpUsername',
  'sfKey',
  'sfSecret',
  'soKey',
  'soSecret',
  'zhClientSecret',
  'zhAccessToken',
  'bsPassword',
  'yiApiToken',
  'srToken',
  'calKey',
];
