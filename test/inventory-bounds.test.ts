import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { buildTestApp, caller, createProject, type LoggedIn, type TestApp, userWithToken } from './helpers.ts';

/**
 * The bounds on imports: rows (INVENTORY_MAX_ROWS) counted while the file streams in, bytes (each route its own
 * limit), imports at once per node (INVENTORY_IMPORTS_AT_ONCE), and a dry run's `changes` listing at most 1,000 rows.
 */
let t: TestApp;
let owner: LoggedIn;
let base: string;

before(async () => {
  t = await buildTestApp({ env: { INVENTORY_MAX_ROWS: '1500', INVENTORY_MAX_FILE_MB: '2', INVENTORY_IMPORTS_AT_ONCE: '1', ALLOW_PRIVATE_TARGETS: 'true' } });
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

  test('more cells than 48 a row allowed (a few rows hundreds of columns wide) → 413 naming the bound; a full-width file passes', async () => {
    const p = await createProject(t.app, owner.auth);
    const wide = (columns: number, rows: number) =>
      [
        ['name', ...Array.from({ length: columns - 1 }, (_, i) => `extra${i}`)].join(','),
        ...Array.from({ length: rows }, (_, r) => [`W-${r}`, ...Array(columns - 1).fill('x')].join(',')),
      ].join('\n');
    // 1,501 × 48 = 72,048 cells: 300 columns × 241 rows (with the header) is past it, 45 columns × 1,500 rows is not.
    const refused = await upload(p._id, wide(300, 240));
    assert.equal(refused.statusCode, 413, refused.body);
    assert.equal(refused.json().code, 'payload_too_large');
    assert.equal(refused.json().maxCells, 72048);
    assert.match(refused.json().detail, /more than 72048 cells/);
    const full = await upload(p._id, wide(45, 1500));
    assert.equal(full.statusCode, 200, full.body);
    assert.equal(full.json().summary.created, 1500);
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

  test('uploads trickling in a byte at a time hold no place: another import runs meanwhile', async () => {
    const p = await createProject(t.app, owner.auth);
    const slow = [streamingUpload(p._id), streamingUpload(p._id)];
    for (const u of slow) u.write('name,price\n');
    // Both bodies still arriving, a little at a time, while another owner imports (the node's one place is free).
    const other = await userWithToken(t);
    const theirs = await createProject(t.app, other.auth);
    for (let i = 0; i < 5; i++) {
      for (const u of slow) u.write(`S${i}`);
      // The place of the previous answer comes back once its connection is done with it: a few turns of I/O at most
      // (a place held by the trickling uploads would never come back, and this would end in 429).
      const theirImport = () =>
        t.app.inject({
          method: 'POST',
          url: `/projects/${theirs._id}/inventory/import?dryRun=true`,
          headers: { ...other.auth, 'content-type': 'text/csv' },
          payload: csv(2),
        });
      let res = await theirImport();
      for (let tries = 0; res.statusCode === 429 && tries < 100; tries++) {
        await new Promise((r) => setTimeout(r, 5));
        res = await theirImport();
      }
      assert.equal(res.statusCode, 200, `${res.body} ${JSON.stringify(res.headers)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Once a body has arrived it takes the place (one at a time here: the node has one).
    for (const u of slow) {
      u.write(',1\n');
      u.end();
      assert.equal((await u.answer).status, 200);
      await new Promise((r) => setTimeout(r, 100)); // its connection finishes with the place
    }
  });

  test('past INVENTORY_IMPORTS_AT_ONCE running imports → 429 with Retry-After, uploads and pulls alike; the place comes back', async () => {
    // A feed server that accepts the connection and never answers: the pull holds the node's one place meanwhile.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const p = await createProject(t.app, owner.auth, { body: { ftpUrl: `ftp://127.0.0.1:${port}`, ftpFileName: 'inventory.csv' } });
      const pulling = caller(t.app, owner.auth)('POST', `/projects/${p._id}/inventory/sync?dryRun=true`);
      while (!sockets.length) await new Promise((r) => setTimeout(r, 10));
      const refused = await upload(p._id, csv(2));
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(refused.headers['retry-after'], '5');
      assert.equal(refused.json().code, 'rate_limited');
      assert.match(refused.json().detail, /INVENTORY_IMPORTS_AT_ONCE/);
      assert.equal((await caller(t.app, owner.auth)('POST', `/projects/${p._id}/inventory/sync`)).statusCode, 429);
      for (const socket of sockets) socket.destroy();
      assert.equal((await pulling).statusCode, 502);
      // The place comes back when the pull's answer has been sent.
      const yieldToIo = () => new Promise((resolve) => setImmediate(resolve));
      let again;
      do again = (await yieldToIo(), await upload(p._id, csv(2)));
      while (again.statusCode === 429);
      assert.equal(again.statusCode, 200);
    } finally {
      silent.close();
    }
  });
});
