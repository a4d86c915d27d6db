import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { ENGINE, openTestDb, testConfig, type TestDb } from './helpers.ts';

/**
 * Connection bounds on a listening server: idle half-sent connections from one address (127.0.0.2, one of the
 * loopback addresses) up to CONNECTIONS_PER_CLIENT, the next refused with 429 problem+json written on the socket,
 * while `/health` from another address (127.0.0.1) still answers; MAX_CONNECTIONS refuses with 503 on the node.
 */

const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;

/** A connection from `from` that has sent part of a request's headers and then nothing more. */
function halfSent(port: number, from: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    socket.on('error', reject);
    socket.on('connect', () => {
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      resolve(socket);
    });
  });
}

/** Sends `request` from `from` and resolves with everything the server wrote before it closed the connection. */
function answer(port: number, from: string, request = ''): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(text));
    socket.on('connect', () => {
      if (request) socket.write(request);
    });
  });
}

const HEALTH = 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { code: string; status: number };

function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

async function listening(testDb: TestDb, env: Record<string, string>): Promise<{ app: FastifyInstance; port: number }> {
  const app = await buildApp({ config: testConfig({ METRICS_TOKEN: TOKEN, ...env }), db: testDb.db, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as { port: number }).port };
}

const metrics = async (app: FastifyInstance) => (await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;

describe('CONNECTIONS_PER_CLIENT and MAX_CONNECTIONS settings', () => {
  test('defaults, and no per-address bound behind a proxy (every connection is the proxy’s)', () => {
    assert.deepEqual(testConfig({}).connections, { perClient: 100, max: 6000 });
    assert.deepEqual(testConfig({ SSE_MAX_STREAMS: '100', CONNECTIONS_PER_CLIENT: '7' }).connections, { perClient: 7, max: 1100 });
    assert.deepEqual(testConfig({ TRUST_PROXY: 'true', MAX_CONNECTIONS: '50' }).connections, { perClient: undefined, max: 50 });
    assert.equal(testConfig({ HEADERS_TIMEOUT_SEC: '60', REQUEST_TIMEOUT_SEC: '20' }).headersTimeoutMs, 20_000);
  });
});

describe(`connection bounds on a listening server (${ENGINE})`, () => {
  let testDb: TestDb;
  const held: Socket[] = [];
  before(async () => (testDb = await openTestDb()));
  after(async () => {
    for (const s of held) s.destroy();
    await testDb.drop();
  });

  test('one address over CONNECTIONS_PER_CLIENT gets 429 with Retry-After and is closed; /health from another address answers', async () => {
    const { app, port } = await listening(testDb, { CONNECTIONS_PER_CLIENT: '3' });
    try {
      for (let i = 0; i < 3; i++) held.push(await halfSent(port, '127.0.0.2'));
      const refused = await answer(port, '127.0.0.2', HEALTH);
      assert.equal(statusOf(refused), 429, refused);
      assert.match(refused, /content-type: application\/problem\+json/i);
      assert.match(refused, /retry-after: \d+/i);
      assert.equal(bodyOf(refused).code, 'rate_limited');

      const health = await answer(port, '127.0.0.1', HEALTH);
      assert.equal(statusOf(health), 200, health);

      const text = await metrics(app);
      assert.equal(sample(text, 'showsuite_connections_refused_total', { bound: 'client' }), 1);
      assert.equal(sample(text, 'showsuite_connections_refused_total', { bound: 'node' }), 0);
      assert.ok((sample(text, 'showsuite_connections') ?? 0) >= 3, text);
    } finally {
      for (const s of held.splice(0)) s.destroy();
      await app.close();
    }
  });

  test('over MAX_CONNECTIONS any address gets 503 too_many_connections; a place freed is served again', async () => {
    const { app, port } = await listening(testDb, { MAX_CONNECTIONS: '3' });
    try {
      for (const from of ['127.0.0.2', '127.0.0.3', '127.0.0.4']) held.push(await halfSent(port, from));
      const refused = await answer(port, '127.0.0.5', HEALTH);
      assert.equal(statusOf(refused), 503, refused);
      assert.match(refused, /retry-after: \d+/i);
      assert.equal(bodyOf(refused).code, 'too_many_connections');
      assert.equal(sample(await metrics(app), 'showsuite_connections_refused_total', { bound: 'node' }), 1);

      // The server learns of the close when its socket does; until then a new connection may still be refused.
      held.shift()?.destroy();
      let health = '';
      for (let tries = 0; tries < 1000 && statusOf(health) !== 200; tries++) health = await answer(port, '127.0.0.5', HEALTH);
      assert.equal(statusOf(health), 200, health);
    } finally {
      for (const s of held.splice(0)) s.destroy();
      await app.close();
    }
  });
});
