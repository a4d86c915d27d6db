import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildTestApp, caller, createProject, type LoggedIn, type TestApp, userWithToken } from './helpers.ts';

/**
 * The bounds on imports: rows (INVENTORY_MAX_ROWS) counted while the file streams in, bytes (each route its own
 * limit), imports at once per node (INVENTORY_IMPORTS_AT_ONCE), and a dry run's `changes` listing at most 1,000 rows.
 */
let t: TestApp;
let owner: LoggedIn;
let base: string;

before(async () => {
  t = await buildTestApp({ env: { INVENTORY_MAX_ROWS: '1500', INVENTORY_MAX_FILE_MB: '2', INVENTORY_IMPORTS_AT_ONCE: '1' } });
  owner = await userWithToken(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

const csv = (rows: number, from = 0) => ['name,price', ...Array.from({ length: rows }, (_, i) => `U-${from + i},${1000 + i}`)].join('\n') + '\n';
const upload = (projectId: string, body: string, type = 'text/csv', query = 'dryRun=true') =>
  t.app.inject({
    method: 'POST',
    url: `/projects/${projectId}/inventory/import?${query}`,
    headers: { ...owner.auth, 'content-type': type },
    payload: body,
  });

/** An upload over a real connection whose body is sent in parts: `write` more, `end` it; `answer` resolves when the server answers. */
function streamingUpload(projectId: string, type = 'text/csv') {
  let answered: (res: { status: number; body: string; headers: IncomingMessage['headers'] }) => void = () => {};
  const answer = new Promise<{ status: number; body: string; headers: IncomingMessage['headers'] }>((resolve) => (answered = resolve));
  const req = request(`${base}/projects/${projectId}/inventory/import?dryRun=true`, {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': type, 'transfer-encoding': 'chunked' },
  });
  req.on('response', (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (body += c));
    res.on('end', () => answered({ status: res.statusCode ?? 0, body, headers: res.headers }));
  });
  req.on('error', () => {});
  req.flushHeaders();
  return { write: (text: string) => req.write(text), end: () => req.end(), destroy: () => req.destroy(), answer };
}

describe('import bounds', () => {
  test('more rows than INVENTORY_MAX_ROWS → 413 too_many_rows naming the limit, CSV and JSON; blank lines do not count', async () => {
    const p = await createProject(t.app, owner.auth);
    const ok = await upload(p._id, `${csv(1500)}\n\n,\n`);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().summary.created, 1500);
    for (const res of [
      await upload(p._id, csv(1501)),
      await upload(p._id, JSON.stringify({ rows: Array.from({ length: 1501 }, (_, i) => ({ name: `J-${i}`, note: '{[ "}' })) }), 'application/json'),
    ]) {
      assert.equal(res.statusCode, 413, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const body = res.json();
      assert.equal(body.code, 'too_many_rows');
      assert.equal(body.maxRows, 1500);
      assert.match(body.detail, /more than 1500 rows.*INVENTORY_MAX_ROWS/);
    }
    const json = await upload(
      p._id,
      JSON.stringify({ rows: Array.from({ length: 1500 }, (_, i) => ({ name: `J-${i}`, note: '{"rows":[{}]}' })) }),
      'application/json',
    );
    assert.equal(json.statusCode, 200, 'objects inside a row or inside strings are not rows');
  });

  test('the row count refuses the file while it is still arriving, before the whole of it is held', async () => {
    const p = await createProject(t.app, owner.auth);
    const up = streamingUpload(p._id);
    up.write(csv(1600));
    // The body has not ended (a row is read once the next one starts): the answer comes anyway.
    const res = await up.answer;
    assert.equal(res.status, 413);
    assert.equal(JSON.parse(res.body).code, 'too_many_rows');
    up.destroy();
  });

  test("a file larger than the import's own limit → 413 naming it, in detail and maxBytes; other routes name theirs", async () => {
    const p = await createProject(t.app, owner.auth);
    const big = 'name,description\n' + `A,${'x'.repeat(2 * 1024 * 1024)}\n`;
    const csvRes = await upload(p._id, big);
    assert.equal(csvRes.statusCode, 413, csvRes.body);
    assert.equal(csvRes.json().maxBytes, 2 * 1024 * 1024);
    assert.match(csvRes.json().detail, /2 MiB.*INVENTORY_MAX_FILE_MB/);
    const jsonRes = await upload(p._id, JSON.stringify({ rows: [{ name: 'A', description: 'x'.repeat(2 * 1024 * 1024) }] }), 'application/json');
    assert.equal(jsonRes.statusCode, 413);
    assert.equal(jsonRes.json().maxBytes, 2 * 1024 * 1024);
    assert.match(jsonRes.json().detail, /2 MiB/);
    const record = await caller(t.app, owner.auth)('PATCH', `/project/${p._id}`, { description: 'x'.repeat(1024 * 1024 + 1) });
    assert.equal(record.statusCode, 413);
    assert.equal(record.json().maxBytes, 1024 * 1024);
    assert.match(record.json().detail, /1 MiB/);
  });

  test('an empty file → 400 naming the body, never a 500', async () => {
    const p = await createProject(t.app, owner.auth);
    for (const body of ['', '\n\n', '\uFEFF']) {
      const res = await upload(p._id, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().errors[0].path, '/');
    }
  });

  test('a dry run lists the first 1,000 changes (truncated: true) and counts every row in summary', async () => {
    const p = await createProject(t.app, owner.auth);
    const many = await upload(p._id, csv(1200));
    assert.equal(many.statusCode, 200);
    assert.equal(many.json().changes.length, 1000);
    assert.equal(many.json().truncated, true);
    assert.equal(many.json().changes[999].row, 1000);
    assert.equal(many.json().summary.created, 1200);
    const few = await upload(p._id, csv(3));
    assert.equal(few.json().truncated, false);
    assert.equal(few.json().changes.length, 3);
  });

  test('past INVENTORY_IMPORTS_AT_ONCE running imports → 429 with Retry-After, uploads and pulls alike; the place comes back', async () => {
    const p = await createProject(t.app, owner.auth);
    // Two uploads whose bodies are still arriving: whichever comes second finds the node's one place taken.
    const a = streamingUpload(p._id);
    const b = streamingUpload(p._id);
    a.write('name,price\nA,1\n');
    b.write('name,price\nB,1\n');
    const refused = await Promise.race([a.answer, b.answer]);
    assert.equal(refused.status, 429, refused.body);
    assert.equal(refused.headers['retry-after'], '5');
    assert.equal(JSON.parse(refused.body).code, 'rate_limited');
    assert.match(JSON.parse(refused.body).detail, /INVENTORY_IMPORTS_AT_ONCE/);
    const first = (await Promise.race([a.answer.then(() => b), b.answer.then(() => a)])) as ReturnType<typeof streamingUpload>;
    const second = await upload(p._id, csv(2));
    assert.equal(second.statusCode, 429, second.body);
    const pull = await caller(t.app, owner.auth)('POST', `/projects/${p._id}/inventory/sync`);
    assert.equal(pull.statusCode, 429);
    first.end();
    assert.equal((await first.answer).status, 200);
    // The place comes back when the first answer's connection has finished with it.
    const yieldToIo = () => new Promise((resolve) => setImmediate(resolve));
    let third;
    do third = (await yieldToIo(), await upload(p._id, csv(2)));
    while (third.statusCode === 429);
    assert.equal(third.statusCode, 200);
  });
});
