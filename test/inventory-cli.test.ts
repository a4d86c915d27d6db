import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildTestApp, caller, createFloor, createProject, createUnit, slug, tempDir, userWithToken, type TestApp } from './helpers.ts';

/** `npm run inventory -- export|import` against the service listening on a real port. */
let t: TestApp;
let owner: Awaited<ReturnType<typeof userWithToken>>;
let call: ReturnType<typeof caller>;
let base: string;
const dir = tempDir('showsuite-cli-');

before(async () => {
  t = await buildTestApp();
  owner = await userWithToken(t);
  call = caller(t.app, owner.auth);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/inventory.ts', ...args], {
      env: { ...process.env, SHOWSUITE_URL: base, SHOWSUITE_TOKEN: owner.token, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('inventory command', () => {
  test('export writes the CSV; import --dry-run prints the diff table and changes nothing; import applies it', async () => {
    const namespace = slug('cli');
    const p = await createProject(t.app, owner.auth, { query: { namespace } });
    const f = await createFloor(t.app, owner.auth, p._id, { name: 'Ground' });
    await createUnit(t.app, owner.auth, p._id, { floor: f._id, name: 'A1', body: { price: 100000 } });
    await createUnit(t.app, owner.auth, p._id, { floor: f._id, name: 'A2', position: 1, body: { price: 200000 } });
    const file = join(dir, 'units.csv');
    const exported = await cli(['export', file, '--project', namespace]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /Wrote 2 units/);
    const csv = readFileSync(file, 'utf8');
    assert.equal(csv, (await call('GET', `/units?project=${p._id}&format=csv`)).body);

    const header = csv.split('\r\n')[0]!.split(',');
    writeFileSync(file, csv.replace(',100000,', ',"$1,250,000",') + header.map((h) => (h === 'name' ? 'B1' : '')).join(',') + '\r\n');
    const preview = await cli(['import', file, '--project', namespace, '--dry-run']);
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stdout, /row\s+action\s+unit\s+floor\s+changes/);
    assert.match(preview.stdout, /1\s+update\s+A1\s+Ground\s+price: 100000 → 1250000/);
    assert.match(preview.stdout, /3\s+create\s+B1/);
    assert.match(preview.stdout, /1 to create, 1 to update, 1 unchanged/);
    const before = (await call('GET', `/units?project=${p._id}`)).json();
    assert.equal(before.length, 2, 'a dry run changes nothing');

    const applied = await cli(['import', file, '--project', namespace], {
      SHOWSUITE_TOKEN: '',
      SHOWSUITE_USERNAME: owner.username,
      SHOWSUITE_PASSWORD: owner.password,
    });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /Applied: 1 created, 1 updated, 1 unchanged/);
    const units = (await call('GET', `/units?project=${p._id}`)).json() as { name: string; price?: number }[];
    assert.deepEqual(units.map((u) => [u.name, u.price ?? null]).sort(), [
      ['A1', 1250000],
      ['A2', 200000],
      ['B1', null],
    ]);
  });

  test('a long file shows a progress bar; row errors apply nothing and exit 1; bad arguments print the usage', async () => {
    const namespace = slug('cli');
    await createProject(t.app, owner.auth, { query: { namespace } });
    const file = join(dir, 'long.csv');
    writeFileSync(file, 'name,price\n' + Array.from({ length: 1500 }, (_, i) => `U${i},${i % 500 === 7 ? 'lots' : 1000 + i}`).join('\n'));
    const res = await cli(['import', file, '--project', namespace]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /\[#+\.*\]\s+\d+% uploading/);
    assert.match(res.stderr, /100% waiting for the server/);
    assert.match(res.stdout, /Row errors:/);
    assert.match(res.stdout, /8\s+price\s+"lots" is not a number/);
    assert.match(res.stdout, /Nothing applied/);
    const usage = await cli(['import', file]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Usage:/);
    const unknown = await cli(['export', file, '--project', 'no-such-namespace']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No project with namespace "no-such-namespace"/);
  });
});
