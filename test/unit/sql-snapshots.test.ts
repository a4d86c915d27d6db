// The SQL of every repository function, kept as files in src/db/queries/ (one per *.repo.ts) so a reviewer sees the
// SQL a change produces, as its diff. A change to a statement fails here until the snapshots are written again
// (`npm run gen:sql`), and a repository function without a call in scripts/sql-snapshots/cases/ is named here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { sqlSnapshotFiles } from '../../scripts/gen-sql.ts';
import { REPO_CASES } from '../../scripts/sql-snapshots/cases/index.ts';
import { NEVER_IN_SQL, TEXT } from '../../scripts/sql-snapshots/dummies.ts';
import { exportedFunctions, QUERIES_DIR, recordCase, ROOT, repoFiles } from '../../scripts/sql-snapshots/record.ts';

const files = await sqlSnapshotFiles();
const AGAIN = 'run `npm run gen:sql` and review the diff';

for (const [name, text] of files) {
  test(`the SQL of the repository functions is as src/db/queries/${name} shows`, () => {
    assert.equal(text, readFileSync(join(QUERIES_DIR, name), 'utf8'), `the SQL changed: ${AGAIN}`);
  });
}

test('src/db/queries/ holds no snapshot of a repository file that is gone', () => {
  const stale = readdirSync(QUERIES_DIR).filter((n) => n.endsWith('.sql') && !files.has(n));
  assert.deepEqual(stale, [], `snapshots without a repository: ${AGAIN}`);
});

test('every *.repo.ts file has its calls in scripts/sql-snapshots/cases/, once', () => {
  const covered = REPO_CASES.map((r) => r.file).sort();
  assert.deepEqual(covered, repoFiles());
});

test('every exported repository function has a snapshot, or says why it builds no SQL', async () => {
  const missing: string[] = [];
  const unknown: string[] = [];
  for (const r of REPO_CASES) {
    const actual = (await import(join(ROOT, r.file))) as Record<string, unknown>;
    // The cases must have been given the module itself, not a stand-in.
    assert.deepEqual(exportedFunctions(r.module), exportedFunctions(actual), r.file);
    for (const name of exportedFunctions(actual)) if (!r.entries[name]) missing.push(`${r.file}: ${name}`);
    for (const name of Object.keys(r.entries)) if (typeof actual[name] !== 'function') unknown.push(`${r.file}: ${name}`);
  }
  assert.deepEqual(missing, [], 'repository functions without a call in scripts/sql-snapshots/cases/ (add one, then npm run gen:sql)');
  assert.deepEqual(unknown, [], 'calls of functions the repository file no longer exports');
});

test('no value reaches a statement: every value of the calls is a parameter ($1, $2, …), never in the text', () => {
  const found = [...files].flatMap(([name, text]) =>
    text
      .split('\n')
      .filter((line) => !line.startsWith('-- ') && NEVER_IN_SQL.some((v) => line.includes(v)))
      .map((line) => `${name}: ${line}`),
  );
  assert.deepEqual(found, []);
});

test('the value scan can fail: a value written into the text is found', async () => {
  const [statement = ''] = await recordCase({ run: (db) => sql`select ${sql.lit(TEXT)}`.execute(db) });
  assert.ok(
    NEVER_IN_SQL.some((v) => statement.includes(v)),
    statement,
  );
});

test('the snapshots are made alike on every run (nothing in them depends on the time or on randomness)', async () => {
  assert.deepEqual(await sqlSnapshotFiles(), files);
});
