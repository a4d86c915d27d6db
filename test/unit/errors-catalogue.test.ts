// The one error catalogue (src/http/errors.catalogue.ts): every problem is made by a factory of ERRORS, so no
// throw site chooses a status, each code has one status wherever it is answered or written about, and
// docs/errors.md's table is the catalogue's.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { problemFromDatabaseError } from '../../src/db/pg-errors.ts';
import { AppError, ERROR_KINDS, ERRORS, type ErrorCode } from '../../src/http/errors.catalogue.ts';
import { problem } from '../../src/http/errors.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const CATALOGUE = 'src/http/errors.catalogue.ts';
const CODES = Object.keys(ERROR_KINDS) as ErrorCode[];

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** `file:line` of each match of `pattern` in the text of `files`. */
function occurrences(files: string[], pattern: RegExp): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`))) {
      found.push(`${file}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
    }
  }
  return found;
}

const camel = (code: string) => code.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

test('no `new AppError(` outside the catalogue: every error comes from a factory of ERRORS', () => {
  const files = filesUnder('src', /\.tsx?$/).filter((f) => f !== CATALOGUE);
  assert.deepEqual(occurrences(files, /new\s+AppError\s*\(/), [], 'throw ERRORS.<code>(detail, { errors, extra, headers }) instead (docs/errors.md)');
});

test('the scan sees a stray `new AppError(` (the check can fail)', () => {
  assert.ok(occurrences([CATALOGUE], /new\s+AppError\s*\(/).length > 0);
});

test('each code has one factory, named after it, that makes that code with its one status and title', () => {
  assert.deepEqual(Object.keys(ERRORS).sort(), CODES.map(camel).sort());
  for (const code of CODES) {
    const factory = (ERRORS as Record<string, (detail: string) => AppError>)[camel(code)];
    assert.ok(factory, code);
    const err = factory('detail');
    assert.ok(err instanceof AppError);
    assert.equal(err.code, code);
    assert.equal(err.status, ERROR_KINDS[code].status, code);
    const body = problem(code, 'detail');
    assert.equal(body.status, ERROR_KINDS[code].status, code);
    assert.equal(body.title, ERROR_KINDS[code].title, code);
  }
});

test("the database map's statuses are the catalogue's (pg-errors.ts names its codes itself, below http/)", () => {
  const sqlstates = ['23505', '23503', '22P02', '22001', '23514', '23502', '22021', '22P05', '22003', '2201W', '2201X', '22007', '22008', '54001'];
  const unavailable = ['40001', '40P01', '08006', '53300', '57P01', '57014', 'ECONNREFUSED', 'ETIMEDOUT'];
  for (const code of [...sqlstates, ...unavailable]) {
    const mapped = problemFromDatabaseError({ code });
    assert.ok(mapped, code);
    assert.equal(mapped.status, ERROR_KINDS[mapped.code].status, `${code} → ${mapped.code}`);
  }
});

test('a status written next to a code, in src/ and docs/, is that code\'s one status ("502 `upstream_failed`")', () => {
  const files = [...filesUnder('src', /\.tsx?$/), ...filesUnder('docs', /\.md$/)];
  const wrong = occurrences(files, new RegExp(`\\b[1-5]\\d\\d\\s+\\\\?\`(${CODES.join('|')})\\\\?\``)).filter((hit) => {
    const [, status, code] = /\b(\d{3})\s+\\?`([a-z_]+)/.exec(hit.slice(hit.indexOf(': ') + 2)) ?? [];
    return ERROR_KINDS[code as ErrorCode].status !== Number(status);
  });
  assert.deepEqual(wrong, []);
});

test("docs/errors.md's catalogue table lists every code once, with the catalogue's status, and nothing else", () => {
  const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
  const table = doc.slice(doc.indexOf('## Catalogue'), doc.indexOf('\n## ', doc.indexOf('## Catalogue') + 1));
  const rows = [...table.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])] as const);
  assert.deepEqual(rows.map(([code]) => code).sort(), [...CODES].sort(), 'every code once');
  for (const [code, status] of rows) assert.equal(status, ERROR_KINDS[code as ErrorCode].status, code);
});
