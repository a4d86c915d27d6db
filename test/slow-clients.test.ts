import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { createProject, createUnit, ENGINE, openTestDb, testConfig, userWithToken, type TestApp, type TestDb } from './helpers.ts';

/**
 * Slow clients over real sockets: a request whose headers or body never finish is answered 408 or closed, an idle
 * keep-alive connection is closed, a client that resets is logged as what it is (info or debug, never an
 * error), and what Node's parser refuses is problem+json. The timeouts are set short (1 s) so the test ends
 * quickly; it asserts only that an answer or a close arrives, never how soon.
 */

interface Outcome {
  text: string;
  closed: boolean;
}

/** Sends `chunks` and resolves with what came back once the server answers in full or closes the connection. */
function exchange(port: number, chunks: string[], opts: { reset?: boolean } = {}): Promise<Outcome> & { socket: Socket } {
  const socket = connect(port, '127.0.0.1');
  const done = new Promise<Outcome>((resolve) => {
    let text = '';
    const finish = (closed: boolean) => resolve({ text, closed });
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (head >= 0 && length !== undefined && text.length >= head + 4 + Number(length)) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => {});
  });
  socket.on('connect', () => {
    for (const c of chunks) socket.write(c);
    if (opts.reset) socket.resetAndDestroy();
  });
  return Object.assign(done, { socket });
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

describe(`slow and broken clients (${ENGINE})`, () => {
  let testDb: TestDb;
  let app: FastifyInstance;
  let port: number;
  const lines: { level: number; msg: string; code?: string }[] = [];

  before(async () => {
    testDb = await openTestDb();
    const config = testConfig({ REQUEST_TIMEOUT_SEC: '1', KEEP_ALIVE_TIMEOUT_SEC: '1' });
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    app = await buildApp({ config, db: testDb.db, logger: { level: 'debug', stream } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  after(async () => {
    await app.close();
    await testDb.drop();
  });

  test('a body that never completes is answered 408 problem+json or closed', async () => {
    const body = JSON.stringify({ username: 'someone@example.com', password: 'password123' });
    const out = await exchange(port, [
      `POST /users/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body.slice(0, 10),
    ]);
    if (!out.closed || out.text) {
      assert.equal(statusOf(out.text), 408, out.text);
      assert.match(out.text, /content-type: application\/problem\+json/i);
      assert.equal(bodyOf(out.text).code, 'request_timeout');
    }
  });

  test('headers that never complete are answered 408 or closed', async () => {
    const out = await exchange(port, ['GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ']);
    if (out.text) assert.equal(statusOf(out.text), 408, out.text);
    else assert.ok(out.closed);
  });

  test('an idle keep-alive connection is closed by the server', async () => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('data', (d) => (text += d));
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await closed;
    assert.equal(statusOf(text), 200, text);
    assert.match(text, /keep-alive/i);
  });

  test('a client that resets mid-body is logged at info or debug, never as an error or a database outage', async () => {
    const before = lines.length;
    await exchange(port, ['POST /users/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n', '{"username":'], {
      reset: true,
    });
    // Wait until the server has noticed (its log says so), however long that takes on a busy machine.
    while (!lines.slice(before).some((l) => /client (closed|reset)/.test(l.msg))) await new Promise((r) => setImmediate(r));
    const mine = lines.slice(before);
    assert.deepEqual(
      mine.filter((l) => l.level >= 40),
      [],
      'nothing at warn or above',
    );
    assert.ok(!mine.some((l) => /database/i.test(l.msg)), JSON.stringify(mine));
    assert.ok(mine.some((l) => /client (closed|reset)/.test(l.msg) && l.level <= 30));
  });

  test('a client that resets before sending a whole request line is logged at debug', async () => {
    const before = lines.length;
    await exchange(port, ['GET /hea'], { reset: true });
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      lines.slice(before).filter((l) => l.level >= 40),
      [],
    );
  });

  test('what the HTTP parser refuses is problem+json: a malformed request line (400), oversized headers (431)', async () => {
    const bad = await exchange(port, ['THIS IS NOT HTTP\r\n\r\n']);
    assert.equal(statusOf(bad.text), 400, bad.text);
    assert.match(bad.text, /content-type: application\/problem\+json/i);
    assert.equal(bodyOf(bad.text).code, 'invalid_request');

    const big = await exchange(port, [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    assert.equal(statusOf(big.text), 431, big.text);
    assert.equal(bodyOf(big.text).code, 'headers_too_large');
  });

  test('a path segment over the router limit is 414 problem+json; an undecodable path is 400 problem+json', async () => {
    const long = await fetch(`http://127.0.0.1:${port}/units/${'a'.repeat(200)}`);
    assert.equal(long.status, 414);
    assert.match(String(long.headers.get('content-type')), /^application\/problem\+json/);
    assert.equal((await long.json()).code, 'uri_too_long');
    const bad = await fetch(`http://127.0.0.1:${port}/public/projects/a%ED%A0%80b`);
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).code, 'invalid_params');
  });
});

describe(`malformed bodies and parameters, one by one (${ENGINE})`, () => {
  let t: TestApp;
  let auth: { authorization: string };
  let unit: Record<string, any>;
  let project: Record<string, any>;
  before(async () => {
    const { buildTestApp } = await import('./helpers.ts');
    t = await buildTestApp();
    auth = (await userWithToken(t)).auth;
    project = await createProject(t.app, auth, { query: { namespace: `ns-${Date.now().toString(36)}` } });
    unit = await createUnit(t.app, auth, project._id);
  });
  after(async () => {
    await t.close();
  });

  const field = (res: { statusCode: number; body: string; json(): any }, path: string) => {
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(
      res.json().errors.map((e: { path: string }) => e.path),
      [path],
    );
  };

  test('U+0000 on public routes and in filters → 400 naming the field', async () => {
    field(await t.app.inject({ method: 'GET', url: '/public/projects/a%00b' }), '/namespace');
    field(await t.app.inject({ method: 'GET', url: '/projects?filters[name]=a%00b', headers: auth }), '/filters/name');
    const lead = { project: project._id, firstName: 'A\u0000', lastName: 'B', email: 'a@example.com', phone: '12345' };
    field(await t.app.inject({ method: 'POST', url: '/public/leads', payload: lead }), '/firstName');
  });

  test('a JSON body null, array, string or number on PATCH of an existing record → 400, nothing written', async () => {
    for (const body of ['null', '[]', '"x"', '7']) {
      const res = await t.app.inject({ method: 'PATCH', url: `/units/${unit._id}`, headers: { ...auth, 'content-type': 'application/json' }, payload: body });
      field(res, '/');
    }
    const after = await t.app.inject({ method: 'GET', url: `/units/${unit._id}`, headers: auth });
    assert.equal(after.headers.etag, `"${unit.__v ?? 1}"`);
  });

  test('a PATCH with no body at all is no change, not a fault', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: `/units/${unit._id}`, headers: auth });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, unit.name);
  });

  test('10,000-deep JSON in free-form fields → 400 naming the field', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const send = (url: string, name: string) =>
      t.app.inject({ method: 'PATCH', url, headers: { ...auth, 'content-type': 'application/json' }, payload: `{"${name}":${deep}}` });
    const res = await send(`/projects/${project._id}`, 'customFormFields');
    assert.equal(res.statusCode, 400, res.body);
    assert.ok(res.json().errors[0].path.startsWith('/customFormFields'));
  });

  test('options[skip] ≥ 2^63, position=Infinity and 1e400 → 400; nothing stored as Infinity or null', async () => {
    field(await t.app.inject({ method: 'GET', url: '/projects?options[skip]=9223372036854775808', headers: auth }), '/options/skip');
    field(await t.app.inject({ method: 'POST', url: `/units?project=${project._id}&name=x&position=Infinity`, headers: auth }), '/position');
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/units/${unit._id}`,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"price":1e400}',
    });
    field(res, '/price');
    const bundle = (await t.app.inject({ method: 'GET', url: `/public/projects/${project.namespace}` })).json();
    for (const u of bundle.unassignedUnits) assert.equal(typeof u.position, 'number');
  });
});
