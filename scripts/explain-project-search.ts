// Prints the query plans of GET /projects at 10,000 projects (docs/storage.md quotes them).
// Usage: DATABASE_URL=postgres://… tsx scripts/explain-project-search.ts  (creates and drops its own tables' rows)
import { sql } from 'kysely';
import { openDb } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { newObjectId } from '../src/lib/object-id.ts';
import { listProjects } from '../src/modules/projects/projects.repo.ts';

const SEARCH = process.env.SEARCH ?? 'quay tower';
const db = await openDb({ databaseUrl: process.env.DATABASE_URL });
await migrate(db);
const owner = newObjectId();
const other = newObjectId();
await sql`insert into users (id, username, password_hash) values (${owner}, ${`plan-${owner}@example.com`}, 'x'), (${other}, ${`plan-${other}@example.com`}, 'x')`.execute(
  db.kysely,
);
const words = ['Tower', 'Harbour', 'Lofts', 'Park', 'Residences', 'Gardens', 'Quay', 'Heights'];
const ids: string[] = [];
for (let batch = 0; batch < 10; batch++) {
  const rows = Array.from({ length: 1000 }, (_, i) => {
    const n = batch * 1000 + i;
    const id = newObjectId();
    ids.push(id);
    return {
      id,
      user_id: n % 10 === 0 ? owner : other,
      name: `${words[n % 8]} ${words[(n >> 3) % 8]} ${String(n).padStart(5, '0')}`,
      data: '{}',
      secrets: '{}',
    };
  });
  await db.kysely.insertInto('projects').values(rows).execute();
}
await sql`analyze projects`.execute(db.kysely);

for (const [label, principal] of [
  ['a user who owns 1,000 of them', { id: owner, username: 'x', role: 'user', sid: 'x' }],
  ['a platform administrator (sees all 10,000)', { id: owner, username: 'x', role: 'admin', sid: 'x' }],
] as const) {
  const started = performance.now();
  const result = await listProjects(db.kysely, { ...principal }, { name: SEARCH, skip: 0, limit: 20, sort: '-createdAt' });
  const ms = (performance.now() - started).toFixed(1);
  console.log(`\n## ${label}: filters.name = "${SEARCH}" → ${result.total} matches, first page in ${ms} ms\n`);
  const q =
    principal.role === 'admin'
      ? sql`explain (analyze, costs off, timing off) select p.id, count(*) over() from projects p where p.name ilike '%${sql.raw(SEARCH)}%' order by p.created_at desc, p.id desc limit 20`
      : sql`explain (analyze, costs off, timing off) select p.id, count(*) over() from projects p where (p.user_id = ${owner} or p.administrators @> array[${owner}]::char(24)[] or p.editors @> array[${owner}]::char(24)[]) and p.name ilike '%${sql.raw(SEARCH)}%' order by p.created_at desc, p.id desc limit 20`;
  const plan = await q.execute(db.kysely);
  for (const row of plan.rows as Record<string, string>[]) console.log('    ' + Object.values(row)[0]);
}
if (!process.env.KEEP) await db.kysely.deleteFrom('projects').where('id', 'in', ids).execute();
if (!process.env.KEEP) await db.kysely.deleteFrom('users').where('id', 'in', [owner, other]).execute();
await db.close();
