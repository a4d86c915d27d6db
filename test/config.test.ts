import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers.ts';
import { ConfigError, loadConfig } from '../src/config.ts';

const dataDir = () => tempDir('showsuite-config-');
const base = () => ({ DATA_DIR: dataDir() });

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ ...base(), ...env });
  } catch (err) {
    assert.ok(err instanceof ConfigError, `a ConfigError, got ${String(err)}`);
    return err;
  }
  assert.fail(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  test('defaults', () => {
    const c = loadConfig(base());
    assert.deepEqual(c.billing, { enabled: false, prices: { starter: '', pro: '' }, starterProjects: 1, trialDays: 14 }, 'plans off by default');
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.redisUrl, undefined);
    assert.equal(c.cookieSecure, false);
    assert.deepEqual(c.corsOrigins, []);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.adminEmail, undefined);
    assert.equal(c.seedDemo, true, 'the embedded database seeds the demo by default');
    assert.equal(c.limits.loginFailures, 10);
    assert.equal(c.limits.loginFailureWindowSec, 900);
    assert.equal(c.limits.loginPerMinute, 60);
    assert.ok(c.limits.sessionCacheSec <= 60);
    assert.ok(c.jwtSecret.length >= 32);
    assert.equal(c.secretKey.length, 32);
  });

  test('values are read and typed', () => {
    const key = randomBytes(32);
    const c = loadConfig({
      ...base(),
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db:5432/showsuite',
      JWT_SECRET: 'j'.repeat(40),
      SECRET_KEY: key.toString('base64'),
      COOKIE_SECURE: 'true',
      CORS_ORIGINS: 'https://a.example, http://localhost:5173',
      REDIS_URL: 'redis://cache:6379',
      LOG_LEVEL: 'debug',
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'long enough',
      LOGIN_MAX_FAILURES: '5',
      LOGIN_RATE_PER_MINUTE: '20',
    });
    assert.equal(c.port, 8080);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.databaseUrl, 'postgres://u:p@db:5432/showsuite');
    assert.equal(c.jwtSecret, 'j'.repeat(40));
    assert.deepEqual(c.secretKey, key);
    assert.equal(c.cookieSecure, true);
    assert.deepEqual(c.corsOrigins, ['https://a.example', 'http://localhost:5173']);
    assert.equal(c.redisUrl, 'redis://cache:6379');
    assert.equal(c.logLevel, 'debug');
    assert.equal(c.adminEmail, 'root@example.com');
    assert.equal(c.seedDemo, false, 'no demo seed on a server database by default');
    assert.equal(c.limits.loginFailures, 5);
    assert.equal(c.limits.loginPerMinute, 20);
    assert.equal(c.secretKey.length, 32);
  });

  const bad: Array<[Record<string, string>, string]> = [
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '-1' }, 'PORT'],
    [{ PORT: '80.5' }, 'PORT'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
    [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'localhost:5432' }, 'DATABASE_URL'],
    [{ SECRET_KEY: 'too-short' }, 'SECRET_KEY'],
    [{ SECRET_KEY: 'ab'.repeat(31) }, 'SECRET_KEY'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ ADMIN_EMAIL: 'root@example.com' }, 'ADMIN_PASSWORD'],
    [{ ADMIN_PASSWORD: 'long enough' }, 'ADMIN_EMAIL'],
    [{ ADMIN_EMAIL: 'root', ADMIN_PASSWORD: 'long enough' }, 'ADMIN_EMAIL'],
    [{ ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'short' }, 'ADMIN_PASSWORD'],
    [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL'],
    [{ SMTP_URL: 'smtp://user:pa#ss@mail:25' }, 'SMTP_URL'],
    [{ PUBLIC_URL: 'https://exa mple.com' }, 'PUBLIC_URL'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ SECRET_KEY_PREVIOUS: 'too-short' }, 'SECRET_KEY_PREVIOUS'],
    [{ JWT_SECRET_PREVIOUS: 'short' }, 'JWT_SECRET_PREVIOUS'],
    [{ JWT_SECRET: 'j'.repeat(40), JWT_SECRET_FILE: '/dev/null' }, 'JWT_SECRET_FILE'],
    [{ SECRET_KEY_FILE: '/nonexistent/secret-key' }, 'SECRET_KEY_FILE'],
    [{ CORS_ORIGINS: 'example.com' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://example.com/path' }, 'CORS_ORIGINS'],
    [{ COOKIE_SECURE: 'maybe' }, 'COOKIE_SECURE'],
    [{ LOGIN_RATE_PER_MINUTE: '0' }, 'LOGIN_RATE_PER_MINUTE'],
    [{ SESSION_CACHE_SEC: '120' }, 'SESSION_CACHE_SEC'],
    [{ BILLING: 'paypal' }, 'BILLING'],
    [{ BILLING: 'stripe', STRIPE_PRICE_PRO: 'price_pro' }, 'STRIPE_PRICE_STARTER'],
    [{ BILLING: 'stripe', STRIPE_PRICE_STARTER: 'price_a', STRIPE_PRICE_PRO: 'price_b' }, 'STRIPE_SECRET_KEY'],
    [{ STRIPE_PRICE_PRO: 'prod_123' }, 'STRIPE_PRICE_PRO'],
    [{ TRIAL_DAYS: '-1' }, 'TRIAL_DAYS'],
    [{ PLAN_STARTER_PROJECTS: '0' }, 'PLAN_STARTER_PROJECTS'],
  ];
  for (const [env, name] of bad) {
    test(`${JSON.stringify(env)} → ConfigError naming ${name}`, () => {
      const err = configError(env);
      assert.ok(
        err.problems.some((p) => p.includes(name)),
        err.message,
      );
      assert.match(err.message, new RegExp(name));
    });
  }

  test('every problem is reported at once', () => {
    const err = configError({ PORT: 'x', LOG_LEVEL: 'loud', JWT_SECRET: 'short' });
    assert.equal(err.problems.length, 3);
  });

  test('a bad value does not leave a generated secrets file behind', () => {
    const dir = dataDir();
    assert.throws(() => loadConfig({ DATA_DIR: dir, PORT: 'x' }), ConfigError);
    assert.equal(existsSync(join(dir, 'secrets.json')), false);
  });

  test('generated secrets are kept in DATA_DIR/secrets.json (mode 0600) and reused', () => {
    const dir = join(dataDir(), 'nested', 'data');
    const first = loadConfig({ DATA_DIR: dir });
    const file = join(dir, 'secrets.json');
    assert.ok(existsSync(file));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(kept.jwtSecret, first.jwtSecret);
    assert.equal(Buffer.from(kept.secretKey, 'hex').length, 32);
    const second = loadConfig({ DATA_DIR: dir });
    assert.equal(second.jwtSecret, first.jwtSecret);
    assert.deepEqual(second.secretKey, first.secretKey);
    // Another data directory gets its own.
    assert.notEqual(loadConfig({ DATA_DIR: dataDir() }).jwtSecret, first.jwtSecret);
  });

  test('a damaged secrets.json → ConfigError naming the file, not a crash', () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'secrets.json'), '{"jwtSecret": ');
    const err = (() => {
      try {
        loadConfig({ DATA_DIR: dir });
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, /secrets\.json/);
  });

  test('a secret set in the environment wins over the kept one', () => {
    const dir = dataDir();
    const generated = loadConfig({ DATA_DIR: dir });
    const c = loadConfig({ DATA_DIR: dir, JWT_SECRET: 'e'.repeat(40) });
    assert.equal(c.jwtSecret, 'e'.repeat(40));
    assert.deepEqual(c.secretKey, generated.secretKey, 'the unset one still comes from the file');
  });

  test('a URL setting that does not parse is named, with the fix, and its password is never repeated', () => {
    // Generated base64 passwords hold "/": the URL then reads as a host with a bad port.
    const err = configError({ DATABASE_URL: 'postgres://app:ab/c+d=@db:5432/showsuite' });
    assert.equal(err.problems.length, 1, err.message);
    assert.match(err.message, /DATABASE_URL is not a valid URL/);
    assert.match(err.message, /"\/" as %2F/);
    assert.doesNotMatch(err.message, /ab\/c\+d/, 'the password is not in the message');
    // Percent-encoded, the same password is fine.
    assert.equal(
      loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: 'postgres://app:ab%2Fc+d=@db:5432/showsuite' }).databaseUrl,
      'postgres://app:ab%2Fc+d=@db:5432/showsuite',
    );
  });

  test('every setting may come from a file named by <NAME>_FILE (one trailing line break dropped)', () => {
    const dir = dataDir();
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const c = loadConfig({
      DATA_DIR: dir,
      JWT_SECRET_FILE: file('jwt', `${'f'.repeat(40)}\n`),
      SECRET_KEY_FILE: file('key', 'ab'.repeat(32)),
      DATABASE_URL_FILE: file('db', 'postgres://u:p@db/showsuite\n'),
      METRICS_TOKEN_FILE: file('metrics', 'm'.repeat(20)),
    });
    assert.equal(c.jwtSecret, 'f'.repeat(40));
    assert.equal(c.secretKey.toString('hex'), 'ab'.repeat(32));
    assert.equal(c.databaseUrl, 'postgres://u:p@db/showsuite');
    // A value from a file is validated like one from the environment.
    assert.match(configError({ JWT_SECRET_FILE: file('short', 'short\n') }).message, /JWT_SECRET must be at least 32 characters/);
  });

  test('the retiring keys of a key change are read and typed', () => {
    const c = loadConfig({ DATA_DIR: dataDir(), JWT_SECRET_PREVIOUS: 'p'.repeat(40), SECRET_KEY_PREVIOUS: 'cd'.repeat(32) });
    assert.equal(c.previousJwtSecret, 'p'.repeat(40));
    assert.equal(c.previousSecretKey?.toString('hex'), 'cd'.repeat(32));
    const none = loadConfig({ DATA_DIR: dataDir() });
    assert.equal(none.previousJwtSecret, undefined);
    assert.equal(none.previousSecretKey, undefined);
  });
});
