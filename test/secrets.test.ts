import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../src/lib/secret-box.ts';
import { PROJECT_SECRETS } from '../src/modules/projects/projects.schemas.ts';
import { type Caller, caller, createProject, type LoggedIn, slug, SPEC_SECRET_FIELDS, type TestApp, useOwnerApp, userWithToken } from './helpers.ts';

/**
 * Write-only secrets: never in any response, named in `configuredSecrets`, sealed at rest with the
 * configured key, cleared by null. The list of fields (SPEC_SECRET_FIELDS) is written out from the contract, not taken from the code.
 */
const SECRET_FIELDS = SPEC_SECRET_FIELDS;

let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({}, (f) => ({ t, owner, call } = f));

const secretValue = (field: string) => `SECRET-${field}-${randomBytes(8).toString('hex')}`;
const readSecrets = async (id: string) =>
  (await t.db.kysely.selectFrom('projects').select('secrets').where('id', '=', id).executeTakeFirstOrThrow()).secrets as Record<string, string>;

/** Every response body seen, to be scanned for every secret value at the end. */
function recorder() {
  const seen: { what: string; body: string; headers: string }[] = [];
  return {
    seen,
    add<T extends { body: string; headers: Record<string, unknown> }>(what: string, res: T): T {
      seen.push({ what, body: res.body, headers: JSON.stringify(res.headers) });
      return res;
    },
    assertClean(values: string[]) {
      for (const { what, body, headers } of seen) {
        for (const v of values) {
          assert.ok(!body.includes(v), `${what} carried ${v}`);
          assert.ok(!headers.includes(v), `${what} headers carried ${v}`);
          // Not even a prefix long enough to be useful, or the random part alone.
          assert.ok(!body.includes(v.slice(-16)), `${what} carried the tail of ${v}`);
        }
      }
    },
  };
}

describe('write-only secrets', () => {
  test('every secret field and an allocation password: set, never in any response, named in configuredSecrets', async () => {
    const ns = slug('vault');
    const values = Object.fromEntries(SECRET_FIELDS.map((f) => [f, secretValue(f)]));
    const allocationPassword = secretValue('allocation');
    const all = [...Object.values(values), allocationPassword];
    const r = recorder();

    // Set on create (in the body) for one project, by PATCH for another.
    const created = r.add(
      'POST /projects',
      await call('POST', `/projects?name=Vault&namespace=${ns}`, {
        ...values,
        allocations: [{ name: 'Broker A', password: allocationPassword, allocation: '10' }],
        enableForms: true,
      }),
    );
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json()._id;
    const names = [...SECRET_FIELDS, 'allocations[Broker A].password'].sort();
    assert.deepEqual([...created.json().configuredSecrets].sort(), names);
    assert.deepEqual(created.json().allocations, [{ name: 'Broker A', allocation: '10' }]);
    for (const f of SECRET_FIELDS) assert.ok(!(f in created.json()), `${f} is not a response field`);

    const other = await createProject(t.app, owner.auth);
    const patched = r.add(
      'PATCH /project',
      await call('PATCH', `/project/${other._id}`, { ...values, allocations: [{ name: 'Broker A', password: allocationPassword, allocation: '5' }] }),
    );
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual([...patched.json().configuredSecrets].sort(), names);

    r.add('PATCH /projects (alias, no change)', await call('PATCH', `/projects/${id}`, { name: 'Vault' }));
    r.add('GET /project', await call('GET', `/project/${id}`));
    r.add('GET /projects/{id}', await call('GET', `/projects/${id}`));
    r.add('GET /projects', await call('GET', '/projects?options[limit]=500'));
    r.add('GET /projects filtered', await call('GET', `/projects?filters=${encodeURIComponent('{"name":"Vault"}')}`));
    r.add('GET /users/me', await call('GET', '/users/me'));
    r.add('GET /public/projects', await t.app.inject({ method: 'GET', url: `/public/projects/${ns}` }));
    // Refusals and validation errors that arrive with secrets in the body do not echo them either.
    r.add('PATCH with a bad field', await call('PATCH', `/project/${id}`, { pvPassword: values.pvPassword, showPrices: 'nope' }));
    r.add('PATCH with a secret of the wrong type', await call('PATCH', `/project/${id}`, { sfKey: 12, sfSecret: values.sfSecret, bogus: values.soKey }));
    r.add('PATCH with a stale If-Match', await call('PATCH', `/project/${id}`, { calKey: values.calKey }, { 'if-match': '"0"' }));
    const dupNs = r.add('POST with a taken namespace', await call('POST', `/projects?name=Dup&namespace=${ns}`, { srToken: values.srToken }));
    assert.equal(dupNs.statusCode, 409);
    const editor = await userWithToken(t);
    await call('PATCH', `/project/${id}`, { editors: [editor.id] });
    r.add('editor refused', await caller(t.app, editor.auth)('PATCH', `/project/${id}`, { yiApiToken: values.yiApiToken }));
    r.add('editor GET', await caller(t.app, editor.auth)('GET', `/project/${id}`));
    r.assertClean(all);
    assert.ok(r.seen.length >= 14);
  });

  test('stored sealed (AES-256-GCM) under the configured key, never as plaintext; a new value replaces the old', async () => {
    const values = Object.fromEntries(SECRET_FIELDS.map((f) => [f, secretValue(f)]));
    const allocationPassword = secretValue('allocation');
    const p = await createProject(t.app, owner.auth);
    const res = await call('PATCH', `/project/${p._id}`, { ...values, allocations: [{ name: 'Broker A', password: allocationPassword, allocation: '1' }] });
    assert.equal(res.statusCode, 200, res.body);

    const stored = await readSecrets(p._id);
    const raw = JSON.stringify(await t.db.kysely.selectFrom('projects').selectAll().where('id', '=', p._id).executeTakeFirstOrThrow());
    for (const v of [...Object.values(values), allocationPassword]) {
      assert.ok(!raw.includes(v), `the row carries ${v} in plaintext`);
      assert.ok(!raw.includes(Buffer.from(v).toString('base64')), `the row carries ${v} merely encoded`);
    }
    const box = new SecretBox(t.config.secretKey);
    for (const f of SECRET_FIELDS) assert.equal(box.open(stored[f]!), values[f], f);
    const allocationKey = Object.keys(stored).find((k) => !SECRET_FIELDS.includes(k))!;
    assert.equal(box.open(stored[allocationKey]!), allocationPassword);
    assert.throws(() => new SecretBox(randomBytes(32)).open(stored.pvPassword!), 'another key cannot open it');
    // Two seals of one value differ (random IV), so equal secrets cannot be spotted in the table.
    const q = await createProject(t.app, owner.auth, { body: { pvPassword: values.pvPassword } });
    assert.notEqual((await readSecrets(q._id)).pvPassword, stored.pvPassword);

    const next = secretValue('pvPassword');
    assert.equal((await call('PATCH', `/project/${p._id}`, { pvPassword: next })).statusCode, 200);
    const after = await readSecrets(p._id);
    assert.equal(box.open(after.pvPassword!), next);
    assert.equal(box.open(after.ftpPassword!), values.ftpPassword, 'the others are untouched');
  });

  test('null clears a secret (it leaves configuredSecrets and the table); null for one not set is no change', async () => {
    const p = await createProject(t.app, owner.auth, { body: { pvPassword: secretValue('pv'), calKey: secretValue('cal') } });
    assert.deepEqual(p.configuredSecrets, ['calKey', 'pvPassword']);
    const cleared = await call('PATCH', `/project/${p._id}`, { pvPassword: null });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.deepEqual(cleared.json().configuredSecrets, ['calKey']);
    assert.deepEqual(Object.keys(await readSecrets(p._id)), ['calKey']);
    assert.deepEqual((await call('GET', `/project/${p._id}`)).json().configuredSecrets, ['calKey']);

    const etag = cleared.headers.etag;
    const again = await call('PATCH', `/project/${p._id}`, { pvPassword: null, sfKey: null });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.headers.etag, etag, 'clearing what is not set writes nothing');
    assert.deepEqual(again.json().configuredSecrets, ['calKey']);
  });

  test('allocations: passwords write-only per entry; sent back without a password it is kept; removed entry or null password clears it', async () => {
    const [pa, pb] = [secretValue('a'), secretValue('b')];
    const p = await createProject(t.app, owner.auth, {
      body: {
        allocations: [
          { name: 'A', password: pa, allocation: '10' },
          { name: 'B', password: pb, allocation: '20' },
        ],
      },
    });
    assert.deepEqual(p.configuredSecrets, ['allocations[A].password', 'allocations[B].password']);
    assert.deepEqual(p.allocations, [
      { name: 'A', allocation: '10' },
      { name: 'B', allocation: '20' },
    ]);
    const fetched = (await call('GET', `/project/${p._id}`)).json();
    const same = await call('PATCH', `/project/${p._id}`, fetched);
    assert.equal(same.statusCode, 200, same.body);
    assert.deepEqual(same.json().configuredSecrets, ['allocations[A].password', 'allocations[B].password']);
    const box = new SecretBox(t.config.secretKey);
    assert.deepEqual(
      Object.values(await readSecrets(p._id))
        .map((s) => box.open(s))
        .sort(),
      [pa, pb].sort(),
    );

    const edited = await call('PATCH', `/project/${p._id}`, {
      allocations: [
        { name: 'A', allocation: '11' },
        { name: 'B', password: null, allocation: '20' },
      ],
    });
    assert.equal(edited.statusCode, 200, edited.body);
    assert.deepEqual(edited.json().configuredSecrets, ['allocations[A].password']);
    assert.deepEqual(edited.json().allocations, [
      { name: 'A', allocation: '11' },
      { name: 'B', allocation: '20' },
    ]);
    const dropped = await call('PATCH', `/project/${p._id}`, { allocations: [{ name: 'B', allocation: '20' }] });
    assert.deepEqual(dropped.json().configuredSecrets, []);
    assert.deepEqual(await readSecrets(p._id), {});
    const bad = await call('PATCH', `/project/${p._id}`, { allocations: [{ name: 'C', password: 5 }] });
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.json().errors.every((e: { path: string }) => e.path.startsWith('/allocations/0')));
  });
});

/** As the owner, with extra headers merged in. */
const inject = (method: string, url: string, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method: method as 'GET', url, headers: { ...owner.auth, ...extra }, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('write-only secrets: every response, configuredSecrets, sealed, null clears', () => {
  test('no response ever carries a secret value; configuredSecrets names them; stored sealed; null clears', async () => {
    const values: Record<string, string> = {};
    for (const f of PROJECT_SECRETS) values[f] = `SECRET-${f}-${randomBytes(6).toString('hex')}`;
    const allocationPassword = `SECRET-allocation-${randomBytes(6).toString('hex')}`;
    const secretValues = [...Object.values(values), allocationPassword];
    const responses: string[] = [];
    const record = (body: string) => {
      responses.push(body);
      return body;
    };

    const created = await t.app.inject({
      method: 'POST',
      url: '/projects?name=Vault',
      headers: owner.auth,
      payload: { ...values, allocations: [{ name: 'Broker A', password: allocationPassword, allocation: '10' }] },
    });
    assert.equal(created.statusCode, 201, created.body);
    record(created.body);
    const id = created.json()._id;
    assert.deepEqual(created.json().configuredSecrets, [...PROJECT_SECRETS, 'allocations[Broker A].password'].sort());
    assert.deepEqual(created.json().allocations, [{ name: 'Broker A', allocation: '10' }]);

    record((await inject('PATCH', `/project/${id}`, { ...values, name: 'Vault 2' })).body);
    record((await inject('GET', `/project/${id}`)).body);
    record((await inject('GET', `/projects/${id}`)).body);
    record((await inject('GET', '/projects')).body);
    record((await inject('GET', '/users/me')).body);
    for (const body of responses) {
      for (const v of secretValues) assert.ok(!body.includes(v), `a response carried ${v.slice(0, 20)}…`);
    }

    // Sealed at rest with the configured key, not plaintext.
    const row = await t.db.kysely.selectFrom('projects').select('secrets').where('id', '=', id).executeTakeFirstOrThrow();
    const raw = JSON.stringify(row.secrets);
    for (const v of secretValues) assert.ok(!raw.includes(v));
    const box = new SecretBox(t.config.secretKey);
    assert.equal(box.open(row.secrets.pvPassword!), values.pvPassword);
    assert.equal(box.open(row.secrets['allocation:Broker A']!), allocationPassword);

    // Sending back allocations without passwords keeps them; null clears a secret.
    const kept = await inject('PATCH', `/project/${id}`, { allocations: [{ name: 'Broker A', allocation: '12' }], pvPassword: null });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.ok(kept.json().configuredSecrets.includes('allocations[Broker A].password'));
    assert.ok(!kept.json().configuredSecrets.includes('pvPassword'));
    const dropped = await inject('PATCH', `/project/${id}`, { allocations: [] });
    assert.ok(!dropped.json().configuredSecrets.some((n: string) => n.startsWith('allocations')));
  });
});
