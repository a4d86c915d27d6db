import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { BUNDLE_RECHECK_MS } from '../src/public/bundle-memo.ts';
import {
  buildTestApp,
  caller,
  createFloor,
  createProject,
  createUnit,
  ENGINE,
  openTestDb,
  slug,
  TestClock,
  userWithToken,
  type TestApp,
  type TestDb,
} from './helpers.ts';
import { SseClient } from './sse-client.ts';

/**
 * The bundle's hot path (src/public/bundle-memo.ts) keeps it fresh: a write on this node shows at once, a write on
 * another node within BUNDLE_RECHECK_MS (well inside the contract's 5 s), and both nodes then serve the same bytes.
 */
const clock = new TestClock();
let testDb: TestDb;
let a: TestApp;
let b: TestApp;
before(async () => {
  testDb = await openTestDb();
  a = await buildTestApp({ testDb, clock });
  b = await buildTestApp({ testDb, clock });
  for (const t of [a, b]) await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await b.close();
  await a.close();
  await testDb.drop();
});

test(`a write shows at once on its node and within ${BUNDLE_RECHECK_MS} ms on another (${ENGINE})`, async () => {
  const owner = await userWithToken(a);
  const ns = slug();
  const p = await createProject(a.app, owner.auth, { query: { namespace: ns } });
  const f = await createFloor(a.app, owner.auth, p._id);
  const u = await createUnit(a.app, owner.auth, p._id, { floor: f._id, body: { price: 100 } });
  const bundle = (t: TestApp) => t.app.inject({ method: 'GET', url: `/public/projects/${ns}` });
  const price = async (t: TestApp) => (await bundle(t)).json().floors[0].units[0].price;
  assert.equal(await price(a), 100);
  assert.equal(await price(b), 100);

  assert.equal((await caller(a.app, owner.auth)('PATCH', `/units/${u._id}`, { price: 200 })).statusCode, 200);
  assert.equal(await price(a), 200, 'the node that wrote shows it at once');
  const onB = await price(b);
  assert.ok(onB === 100 || onB === 200);
  clock.advance(BUNDLE_RECHECK_MS);
  const [ra, rb] = [await bundle(a), await bundle(b)];
  assert.equal(rb.json().floors[0].units[0].price, 200, 'the other node within the recheck interval');
  assert.equal(ra.headers.etag, rb.headers.etag);
  assert.equal(ra.body, rb.body, 'the same bytes from both nodes');
  assert.equal(rb.headers['content-length'], String(Buffer.byteLength(rb.body)));

  // Revalidation from the memo: 304 with the same headers, no body.
  const again = await b.app.inject({ method: 'GET', url: `/public/projects/${ns}`, headers: { 'if-none-match': String(rb.headers.etag) } });
  assert.equal(again.statusCode, 304);
  assert.equal(again.headers['cache-control'], 'public, max-age=5');
  assert.equal(again.body, '');
});

test(`a live-feed open trusts what its node last found for ${BUNDLE_RECHECK_MS} ms; a write on the node ends that at once (${ENGINE})`, async () => {
  const owner = await userWithToken(a);
  const ns = slug();
  const p = await createProject(a.app, owner.auth, { query: { namespace: ns } });
  const base = (t: TestApp) => `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const open = async (t: TestApp) => {
    const stream = await SseClient.open(`${base(t)}/public/projects/${ns}/events`);
    stream.close();
    return stream.status;
  };
  assert.equal(await open(a), 200);
  assert.equal(await open(b), 200);

  // Made a draft on node a: a's next open is refused at once; b trusts its last look until the interval is over.
  assert.equal((await caller(a.app, owner.auth)('PATCH', `/project/${p._id}`, { published: false })).statusCode, 200);
  assert.equal(await open(a), 404, 'the node that wrote refuses at once');
  assert.equal(await open(b), 200, 'the other node within the interval it trusts its last look');
  clock.advance(BUNDLE_RECHECK_MS);
  assert.equal(await open(b), 404, 'the other node once the interval is over');

  // Published again on node b: b opens at once; a's last look (the draft) is older than the interval, so a looks again.
  assert.equal((await caller(b.app, owner.auth)('PATCH', `/project/${p._id}`, { published: true })).statusCode, 200);
  assert.equal(await open(b), 200);
  assert.equal(await open(a), 200);
});

test(`a crowd right after a write shares the node's read: every request gets the new version, whole or 304 (${ENGINE})`, async () => {
  const owner = await userWithToken(a);
  const ns = slug();
  const p = await createProject(a.app, owner.auth, { query: { namespace: ns } });
  const f = await createFloor(a.app, owner.auth, p._id);
  const u = await createUnit(a.app, owner.auth, p._id, { floor: f._id, body: { price: 100 } });
  const get = (headers: Record<string, string> = {}) => a.app.inject({ method: 'GET', url: `/public/projects/${ns}`, headers });
  const old = await get();
  assert.equal((await caller(a.app, owner.auth)('PATCH', `/units/${u._id}`, { price: 300 })).statusCode, 200);
  // Plain, holding the old version, asking for brotli: all at once, while the node's memo is due.
  const crowd = await Promise.all(
    Array.from({ length: 24 }, (_, i) => get([{}, { 'if-none-match': String(old.headers.etag) }, { 'accept-encoding': 'br' }][i % 3])),
  );
  const plain = crowd.filter((_, i) => i % 3 !== 2);
  for (const r of plain) {
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().floors[0].units[0].price, 300);
    assert.equal(r.headers['content-length'], String(Buffer.byteLength(r.body)));
  }
  assert.equal(new Set(plain.map((r) => r.headers.etag)).size, 1, 'one version for all');
  assert.notEqual(plain[0]?.headers.etag, old.headers.etag);
  for (const r of crowd.filter((_, i) => i % 3 === 2)) {
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-encoding'], 'br');
  }
  // Those that hold the new version now: 304, together too.
  const now = String(plain[0]?.headers.etag);
  const again = await Promise.all(Array.from({ length: 8 }, () => get({ 'if-none-match': now })));
  assert.deepEqual(
    again.map((r) => r.statusCode),
    Array(8).fill(304),
  );
});
