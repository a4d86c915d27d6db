// `npm run gen:sql`: the SQL of every repository function, one snapshot file per *.repo.ts in src/db/queries/, so a
// reviewer reads the SQL a change produces as its diff. How each is made: scripts/sql-snapshots/record.ts; the calls:
// scripts/sql-snapshots/cases/. test/unit/sql-snapshots.test.ts fails when a committed file is not what this writes.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_CASES } from './sql-snapshots/cases/index.ts';
import { QUERIES_DIR, renderRepo, snapshotName } from './sql-snapshots/record.ts';

/** Each snapshot file's name and text, as this script writes them. */
export async function sqlSnapshotFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const r of REPO_CASES) files.set(snapshotName(r.file), await renderRepo(r));
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await sqlSnapshotFiles();
  for (const name of readdirSync(QUERIES_DIR)) if (name.endsWith('.sql') && !files.has(name)) rmSync(join(QUERIES_DIR, name));
  for (const [name, text] of files) writeFileSync(join(QUERIES_DIR, name), text);
  console.log(`wrote ${files.size} files in ${QUERIES_DIR}`);
}
