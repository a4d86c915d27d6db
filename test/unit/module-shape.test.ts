import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The module shape (docs/architecture.md): the parts npm run lint:deps cannot see, as imports do not show them. */
const SRC = join(import.meta.dirname, '../../src');
const AREAS = ['public', 'presentation', ...readdirSync(join(SRC, 'modules')).map((m) => join('modules', m))];
const filesOf = (area: string) => readdirSync(join(SRC, area)).filter((f) => f.endsWith('.ts'));

test('every area with routes has a service for them to call and a schemas file for their requests and answers', () => {
  for (const area of AREAS) {
    const files = filesOf(area);
    if (!files.some((f) => f.endsWith('.routes.ts'))) continue;
    for (const part of ['.service.ts', '.schemas.ts'])
      assert.ok(
        files.some((f) => f.endsWith(part)),
        `${area} has routes but no *${part}`,
      );
  }
});

test('no route checks access or reaches the database itself: that is its service', () => {
  const forbidden = /\b(authorize|levelOf|can|checkGuardedFields)\(|\bctx\.db\b|\.kysely\b/;
  for (const area of AREAS) {
    for (const file of filesOf(area).filter((f) => f.endsWith('.routes.ts'))) {
      const hit = readFileSync(join(SRC, area, file), 'utf8').match(forbidden);
      assert.equal(hit, null, `${area}/${file}: ${hit?.[0]}`);
    }
  }
});

test('no route builds a TypeBox schema: it names one from a schemas file (a Type.Ref to a named schema is a name too)', () => {
  const builds = /\bType\.(?!Ref\b)\w+/;
  // The console's routes (src/admin/) are routes files too, though the console is no module.
  for (const area of [...AREAS, 'admin']) {
    for (const file of filesOf(area).filter((f) => f.endsWith('.routes.ts'))) {
      const hit = readFileSync(join(SRC, area, file), 'utf8').match(builds);
      assert.equal(hit, null, `${area}/${file}: ${hit?.[0]}`);
    }
  }
});

/** Where each table is written (a folder or file of src/, by prefix): its own module, nowhere else. */
const WRITTEN_IN: Record<string, string> = {
  projects: 'modules/projects/',
  floors: 'modules/floors/',
  units: 'modules/units/',
  groups: 'modules/groups/',
  group_projects: 'modules/groups/',
  holds: 'modules/holds/',
  leads: 'modules/leads/',
  worksheets: 'modules/worksheets/',
  invites: 'modules/invites/',
  events: 'modules/events/',
  project_event_counters: 'modules/events/',
  webhooks: 'modules/webhooks/',
  webhook_deliveries: 'modules/webhooks/',
  webhook_attempts: 'modules/webhooks/',
  users: 'modules/users/',
  sessions: 'modules/users/',
  refresh_tokens: 'modules/users/',
  password_resets: 'modules/users/',
  audit_log: 'modules/audit/',
  api_tokens: 'modules/tokens/',
  idempotency_keys: 'modules/shared/idempotency',
  inventory_syncs: 'modules/inventory/',
  inventory_feed_claims: 'modules/inventory/',
  integration_states: 'modules/integrations/',
  crm_pushes: 'modules/integrations/',
  cal_bookings: 'modules/integrations/',
  media_orphans: 'modules/media/',
  media_sweep_claims: 'modules/media/',
  insight_events: 'modules/insights/',
  insight_daily: 'modules/insights/',
  insight_daily_sources: 'modules/insights/',
  insight_daily_units: 'modules/insights/',
  insight_visitor_days: 'modules/insights/',
  insight_salts: 'modules/insights/',
  insight_report_claims: 'modules/insights/',
  deposits: 'modules/deposits/',
  payment_events: 'modules/deposits/',
  subscriptions: 'modules/billing/',
};

/** What `writesOf` names a write whose table is chosen at run time: outside db/, only an explicit exception may. */
const COMPUTED = '(computed)';

/**
 * Writes outside their table's module, each with its reason. `db/` is not scanned: its shared mechanisms
 * (`versionedUpdate`, `bumpVersions`, `reorderChildren`, the member lists) take the table from their caller.
 */
const ALLOWED: { file: string; table: string; why: string }[] = [
  { file: 'outbox/outbox.repo.ts', table: COMPUTED, why: "pg-boss's job table (in its own schema, not our migrations): the outbox is its one writer" },
  {
    file: 'modules/holds/holds.repo.ts',
    table: 'units',
    why: "a hold lives in its unit's hold columns (availability on_hold and back, on_hold_expires_at, held_by): placing, extending, releasing and the lapse are the holds module's; every other unit write is the units module's",
  },
];

/** Every file of src/ but db/ (migrations, shared mechanisms), with its path relative to src/. */
function sourceFiles(dir = ''): string[] {
  return readdirSync(join(SRC, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) return rel === 'db' ? [] : sourceFiles(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The tables the migrations create: a raw `update x` names a table only when x is one (not `do update set`, `for update of`). */
const TABLES = new Set(
  readdirSync(join(SRC, 'db/migrations'))
    .filter((f) => f.endsWith('.sql'))
    .flatMap((f) =>
      [...readFileSync(join(SRC, 'db/migrations', f), 'utf8').matchAll(/create table (?:if not exists )?(\w+)/gi)].map((m) => m[1]!.toLowerCase()),
    ),
);

/**
 * Each table a file writes: Kysely's insertInto/updateTable/deleteFrom, `versionedUpdate(db, 't'`, and raw
 * insert/update/delete SQL (a table named or `${sql.table('t')}`); `COMPUTED` for one not named by a literal.
 */
function writesOf(text: string): string[] {
  const kysely = /\b(?:insertInto|updateTable|deleteFrom)\(\s*(?:['"`](\w+))?/g;
  const versioned = /\bversionedUpdate\(\s*\w+,\s*(?:['"`](\w+))?/g;
  const raw = /\b(?:insert\s+into|update|delete\s+from)\s+(?:\$\{sql\.table\(['"`](\w+)|\$\{|(\w+))/gi;
  const tables = [...text.matchAll(kysely), ...text.matchAll(versioned)].map((m) => m[1] ?? COMPUTED);
  const rawTables = [...text.matchAll(raw)]
    .map((m) => (m[2] !== undefined ? m[2].toLowerCase() : (m[1] ?? COMPUTED)))
    .filter((t) => t === COMPUTED || TABLES.has(t));
  return [...new Set([...tables, ...rawTables])];
}

test('every table is written only in its own module', () => {
  const stray: string[] = [];
  for (const file of sourceFiles()) {
    for (const table of writesOf(readFileSync(join(SRC, file), 'utf8'))) {
      if (ALLOWED.some((a) => a.file === file && a.table === table)) continue;
      const home = WRITTEN_IN[table];
      if (table === COMPUTED) stray.push(`${file} writes a table chosen at run time`);
      else if (!home) stray.push(`${file} writes ${table}, which has no module in WRITTEN_IN`);
      else if (!file.startsWith(home)) stray.push(`${file} writes ${table} (its module: ${home})`);
    }
  }
  assert.deepEqual(stray, []);
});

test('the write scan sees each form of write', () => {
  assert.deepEqual(writesOf("db.insertInto('units').values(x)"), ['units']);
  assert.deepEqual(writesOf("qb\n  .updateTable('groups as g')"), ['groups']);
  assert.deepEqual(writesOf("db.deleteFrom('projects')"), ['projects']);
  assert.deepEqual(writesOf("versionedUpdate(db, 'users', id, set)"), ['users']);
  assert.deepEqual(writesOf('sql`INSERT INTO webhook_deliveries as wd (id)`'), ['webhook_deliveries']);
  assert.deepEqual(writesOf("sql`update ${sql.table('projects')} set`"), ['projects']);
  assert.deepEqual(writesOf('sql`delete from\n  leads where`'), ['leads']);
  assert.deepEqual(writesOf('on conflict (id) do update set n = 1 … for update of u … for no key update'), []);
  assert.deepEqual(writesOf('versionedUpdate(db, TABLE[kind], id, set)'), [COMPUTED]);
  assert.deepEqual(writesOf('sql`update ${sql.table(TABLE[kind])} set`'), [COMPUTED]);
  assert.deepEqual(writesOf('db.updateTable(table)'), [COMPUTED]);
});
