import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { ENGINE, openTestDb, testConfig, userWithToken, type TestDb } from './helpers.ts';

/**
 * The request log (docs/operations.md): one line per request at its end, carrying the request's id, method, path
 * without the query, status and time; a route's own lines carry the same id; routes with their own level (health)
 * and a server at warn write none. The closing line is written without building a child logger, so these tests
 * hold what that must not change: the JSON a child bound to the request's id would have written.
 */
interface Line {
  level: number;
  reqId?: string;
  msg: string;
  method?: string;
  url?: string;
  statusCode?: number;
  responseTime?: number;
  [key: string]: unknown;
}

async function appLogging(testDb: TestDb, level: string) {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const text of chunk.toString().split('\n')) if (text) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  const app = await buildApp({ config: testConfig({ LOG_LEVEL: level }), db: testDb.db, logger: { level, stream } });
  app.get('/test/logs-itself', { schema: { hide: true } }, async (request) => {
    request.log.warn({ step: 'inside' }, 'handler line');
    request.log.debug('dropped at info');
    return { ok: true };
  });
  await app.ready();
  return { app, lines };
}

describe(`request log (${ENGINE})`, () => {
  let testDb: TestDb;
  let app: FastifyInstance;
  let lines: Line[];
  before(async () => {
    testDb = await openTestDb();
    ({ app, lines } = await appLogging(testDb, 'info'));
  });
  after(async () => {
    await app.close();
    await testDb.drop();
  });

  test('one line per request: its id, method, path without the query, status, time', async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/units/not-an-id?password=hunter2', headers: { 'x-request-id': 'trace-me-1' } });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['x-request-id'], 'trace-me-1');
    const mine = lines.filter((l) => l.reqId === 'trace-me-1');
    assert.equal(mine.length, 1, JSON.stringify(lines));
    const [line] = mine;
    assert.equal(line!.msg, 'request completed');
    assert.equal(line!.level, 30);
    assert.equal(line!.method, 'GET');
    assert.equal(line!.url, '/units/not-an-id');
    assert.equal(line!.statusCode, 401);
    assert.equal(typeof line!.responseTime, 'number');
    assert.ok(!JSON.stringify(lines).includes('hunter2'), 'the query never reaches the log');
    // Keys in the order a child logger bound to the id writes them: the server's own, then the id, then the fields.
    assert.deepEqual(Object.keys(line!).slice(0, 5), ['level', 'time', 'pid', 'hostname', 'reqId']);
  });

  test("a route's own lines carry the request's id; disabled levels write nothing", async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/test/logs-itself', headers: { 'x-request-id': 'trace-me-2' } });
    assert.equal(res.statusCode, 200);
    const mine = lines.filter((l) => l.reqId === 'trace-me-2');
    assert.deepEqual(
      mine.map((l) => l.msg),
      ['handler line', 'request completed'],
    );
    assert.equal(mine[0]!.step, 'inside');
    assert.equal(mine[0]!.level, 40);
    assert.equal(mine.filter((l) => l.reqId === 'trace-me-2').length, 2);
  });

  test('an authenticated read logs its line with a generated id, the one the answer carries', async () => {
    const { token } = await userWithToken({ app, db: testDb.db, config: testConfig(), close: async () => {} });
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/users/me', headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.statusCode, 200);
    const completed = lines.filter((l) => l.msg === 'request completed');
    assert.equal(completed.length, 1);
    assert.equal(completed[0]!.reqId, res.headers['x-request-id']);
    assert.equal(completed[0]!.url, '/users/me');
  });

  test('health and readiness keep their own level (warn): no line', async () => {
    lines.length = 0;
    assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
    assert.equal(lines.length, 0, JSON.stringify(lines));
  });

  test('at LOG_LEVEL=warn a request writes no line of its own, a warning still does', async () => {
    const quiet = await appLogging(testDb, 'warn');
    try {
      await quiet.app.inject({ method: 'GET', url: '/units/not-an-id' });
      assert.equal(quiet.lines.length, 0, JSON.stringify(quiet.lines));
      await quiet.app.inject({ method: 'GET', url: '/test/logs-itself', headers: { 'x-request-id': 'trace-me-3' } });
      assert.deepEqual(
        quiet.lines.map((l) => [l.reqId, l.msg]),
        [['trace-me-3', 'handler line']],
      );
    } finally {
      await quiet.app.close();
    }
  });
});
