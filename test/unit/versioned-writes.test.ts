// Every versioned write goes through src/db/versioned.repo.ts (`versionedUpdate`, `bumpVersions`, or for the few
// statements one row's update cannot say, `versionBumpSql`), and every time it writes comes from the injected clock
// (`ctx.clock`): no `version + 1` and no SQL `now()` anywhere else in src/, but for the exceptions listed below.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;
const DOOR = 'src/db/versioned.repo.ts';

/** The database's clock where it is truly the one to read, each with its reason. */
const DATABASE_CLOCK: Record<string, string> = {
  // pg-boss's workers compare `start_after` with the database's now(): a job put back must be due by that clock.
  'src/outbox/outbox.repo.ts': "a job handed back to pg-boss's table is due by the clock pg-boss's workers read, the database's",
  // The migrations' own table, written before any app (and its clock) exists.
  'src/db/migrate.ts': 'the default of applied_at in the migrator’s own table, created before the app and its clock exist',
};

const VERSION_BUMP = /\bversion\s*\+\s*1\b/g;
// SQL `now()`: not `clock.now()`, `Date.now()`, `performance.now()`, nor a method declared `now(): number`.
const SQL_NOW = /(?<![.\w])now\(\)(?!\s*[:{])/g;

function sources(): string[] {
  return readdirSync(join(ROOT, 'src'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

function hits(file: string, pattern: RegExp): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(pattern)].map((m) => `${file}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
}

test('no `version + 1` outside versioned.repo.ts: a versioned write is versionedUpdate, bumpVersions or versionBumpSql', () => {
  const found = sources()
    .filter((f) => f !== DOOR)
    .flatMap((f) => hits(f, VERSION_BUMP));
  assert.deepEqual(found, []);
});

test('no SQL now() outside versioned.repo.ts but the listed uses of the database clock: times come from ctx.clock', () => {
  const found = sources()
    .filter((f) => f !== DOOR && !(f in DATABASE_CLOCK))
    .flatMap((f) => hits(f, SQL_NOW));
  assert.deepEqual(found, []);
});

test('each listed exception still reads the database clock (a stale entry is removed)', () => {
  for (const file of Object.keys(DATABASE_CLOCK)) assert.ok(hits(file, SQL_NOW).length > 0, `${file} no longer calls now(): take it off the list`);
});

test('versioned.repo.ts writes updated_at from the time it is given, never the database clock', () => {
  assert.deepEqual(hits(DOOR, SQL_NOW), []);
});

test('the scans see what they look for (they can fail)', () => {
  assert.equal('set version = u.version + 1, updated_at = now()'.match(VERSION_BUMP)?.length, 1);
  assert.equal('updated_at = now() where clock.now() and Date.now()'.match(SQL_NOW)?.length, 1);
  assert.ok(hits(DOOR, VERSION_BUMP).length > 0);
});
