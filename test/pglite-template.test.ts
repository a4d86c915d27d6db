import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { openPGlite } from '../src/db/db.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { unpackDataDir } from '../src/db/pglite-files.ts';
import { DEMO_NAMESPACE, DEMO_USERNAME, seedDemo } from '../src/seed/demo.ts';
import { ENGINE, tempDir, testConfig } from './helpers.ts';

// A new DATA_DIR made from the build's template (dist/pglite-template.tar, src/cli/pglite-template.ts): unpacked with
// plain file writes into `pglite.partial` and renamed to `pglite` last. Embedded engine only.
const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as FastifyBaseLogger;

describe('a new embedded DATA_DIR from the template', { skip: ENGINE !== 'pglite' && 'the embedded engine only' }, () => {
  let template = '';
  const migrations = listMigrations().length;

  before(async () => {
    // As the build makes it: created, migrated, checkpointed, dumped.
    const db = await openPGlite(undefined);
    try {
      await migrate(db);
      await db.checkpoint();
      template = join(tempDir(), 'template.tar');
      writeFileSync(template, Buffer.from(await (await db.dumpDataDir()).arrayBuffer()));
    } finally {
      await db.close();
    }
  });

  const applied = async (db: Awaited<ReturnType<typeof openPGlite>>) =>
    (await sql<{ n: number }>`select count(*)::int as n from schema_migrations`.execute(db.kysely)).rows[0]!.n;

  test('is unpacked, opens migrated, takes the demo seed and keeps it across a restart', async () => {
    const dataDir = tempDir();
    const db = await openPGlite(dataDir, { template });
    try {
      assert.equal(await applied(db), migrations);
      assert.deepEqual(await migrate(db), [], 'nothing left to migrate');
      const shared = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(db.kysely);
      assert.equal(shared.rows[0]!.shared_buffers, '32MB');
      await seedDemo(db, silent, testConfig());
    } finally {
      await db.close();
    }
    assert.ok(existsSync(join(dataDir, 'pglite', 'PG_VERSION')));
    assert.ok(!existsSync(join(dataDir, 'pglite.partial')), 'no unpacking directory left');
    assert.ok(!existsSync(join(dataDir, 'pglite', 'postmaster.pid')), 'no lock file of the instance that wrote the template');

    // A second start opens the directory as it is (the template is not unpacked over it).
    const again = await openPGlite(dataDir, { template });
    try {
      const users = await sql<{ username: string }>`select username from users`.execute(again.kysely);
      assert.deepEqual(
        users.rows.map((r) => r.username),
        [DEMO_USERNAME],
      );
      const units = await sql<{
        n: number;
      }>`select count(*)::int as n from units u join projects p on p.id = u.project_id where p.namespace = ${DEMO_NAMESPACE}`.execute(again.kysely);
      assert.equal(units.rows[0]!.n, 24);
    } finally {
      await again.close();
    }
  });

  test('an unpack cut short is never taken for a database; the next start unpacks again and serves data', async () => {
    const dataDir = tempDir();
    const dir = join(dataDir, 'pglite');
    // Killed half-way through the tarball: what was written stays in pglite.partial, pglite gets nothing.
    const whole = readFileSync(template);
    const half = join(tempDir(), 'half.tar');
    writeFileSync(half, whole.subarray(0, Math.floor(whole.length / 2 / 512) * 512 + 100));
    assert.throws(() => unpackDataDir(half, dir), /truncated|bad tar header/);
    assert.ok(existsSync(join(dataDir, 'pglite.partial')), 'the half-written files are where the crash left them');
    assert.ok(!existsSync(join(dir, 'PG_VERSION')));
    // Cut just after PG_VERSION, before postgresql.conf: written in place, this would look like a database.
    let cut = -1;
    do cut = whole.indexOf('/PG_VERSION\0', cut + 1);
    while (cut !== -1 && cut % 512 !== 0); // the top-level one: a name at the start of a header
    assert.ok(cut > 0);
    writeFileSync(half, whole.subarray(0, cut + 1024));
    assert.throws(() => unpackDataDir(half, dir), /truncated/);
    assert.ok(existsSync(join(dataDir, 'pglite.partial', 'PG_VERSION')) && !existsSync(join(dir, 'PG_VERSION')));
    // And a `pglite` directory left half-loaded by an older start (no PG_VERSION, some files).
    mkdirSync(join(dir, 'base', '5'), { recursive: true });
    writeFileSync(join(dir, 'base', '5', '1259'), 'half a relation');

    const db = await openPGlite(dataDir, { template });
    try {
      assert.equal(await applied(db), migrations);
      await sql`insert into schema_migrations (version, name) values (9999, 'written after recovery')`.execute(db.kysely);
    } finally {
      await db.close();
    }
    assert.ok(!existsSync(join(dataDir, 'pglite.partial')));
    assert.notEqual(readFileSync(join(dir, 'base', '5', '1259'), 'utf8'), 'half a relation', 'the leftover was replaced');
    const again = await openPGlite(dataDir, { template });
    try {
      assert.equal(await applied(again), migrations + 1, 'the write made after recovery is kept');
    } finally {
      await again.close();
    }
  });

  test('a damaged template is refused, not half-used', () => {
    // One bit of the first header's name flipped: its checksum no longer matches.
    const bad = Buffer.from(readFileSync(template));
    bad[1] = bad[1]! ^ 0x01;
    const broken = join(tempDir(), 'broken.tar');
    writeFileSync(broken, bad);
    const dataDir = tempDir();
    assert.throws(() => unpackDataDir(broken, join(dataDir, 'pglite')), /bad tar header/);
    assert.ok(!existsSync(join(dataDir, 'pglite')));
  });
});
