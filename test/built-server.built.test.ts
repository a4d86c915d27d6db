import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { sql } from 'kysely';
import { startBuilt, sharedPostgres, type BuiltNode, type SharedPostgres } from './built.ts';
import { createUser, freePort, type TestUser } from './helpers.ts';
import { launchBrowser, skip as noBrowser } from './support/browser.ts';
import { selfSignedCert, startFtpServer, startSftpServer } from './support/feed-servers.ts';
import { SseClient } from './sse-client.ts';
import { startS3, type TestS3 } from './s3.ts';
import { startSmtp, type Smtp } from './smtp.ts';
import sharp from 'sharp';

/**
 * The built server, started as `npm start` starts it (test/built.ts), driven over HTTP through every dependency
 * its code loads lazily: Redis shared by two nodes on one PostgreSQL database, the FTP, FTPS and SFTP feeds, SMTP,
 * the docs page, media in an S3-protocol store; CORS in Chromium from a page on another origin; and SIGTERM under
 * load. The two nodes, one PostgreSQL, Redis and the S3 server are the topology deploy/compose.yaml runs: a request
 * through either node sees the other's writes, holds, limits and live updates. The source-level tests
 * load the same modules through Node (tsx), which resolves CommonJS packages differently from the bundle.
 * Runs once per suite, on PostgreSQL (scripts/run-tests.mjs: *.built.test.ts).
 */
const FEED_USER = 'feed-user-b1';
const FEED_PASSWORD = 'feed-pass-b1-secret';
const CSV = 'Unidad;Precio;Estado\nA1;"1.250.000";Vendido\nA2;99.000;Disponible\nB1;"300.000";Apartado\nP1;5.000;Disponible\n';

let shared: SharedPostgres;
let a: BuiltNode;
let b: BuiltNode;
let smtp: Smtp;
let s3: TestS3;
let ftp: Awaited<ReturnType<typeof startFtpServer>>;
let ftps: Awaited<ReturnType<typeof startFtpServer>>;
let sftp: Awaited<ReturnType<typeof startSftpServer>>;
let page: Server;
let pageOrigin: string;
let owner: TestUser & { token: string };

/** JSON over HTTP to a node, with the owner's token unless `token: null`. */
async function api(node: BuiltNode, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, token: string | null = owner.token) {
  const res = await fetch(node.url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: (): any => JSON.parse(text) };
}

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const login = (node: BuiltNode, username: string, password: string) => api(node, 'POST', '/users/login', { username, password }, {}, null);

before(async () => {
  const tls = selfSignedCert();
  [ftp, ftps, sftp, smtp, shared, s3] = await Promise.all([
    startFtpServer({ username: FEED_USER, password: FEED_PASSWORD }),
    startFtpServer({ username: FEED_USER, password: FEED_PASSWORD, tls }),
    startSftpServer({ username: FEED_USER, password: FEED_PASSWORD }),
    // Mail to hold-*@ waits for its answer: an outbox attempt in flight when the node is stopped.
    startSmtp({ hold: (rcpt) => rcpt.some((r) => r.startsWith('hold-')) }),
    sharedPostgres(),
    startS3(),
  ]);
  for (const server of [ftp, ftps, sftp]) server.put('exports/inventory.csv', CSV);
  // The dashboard page, on an origin of its own.
  const pagePort = await freePort();
  pageOrigin = `http://127.0.0.1:${pagePort}`;
  page = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>dashboard</title><p>dashboard');
  });
  await new Promise<void>((resolve) => page.listen(pagePort, '127.0.0.1', resolve));
  // A Redis database of its own (1–15), so no other suite's counters meet these.
  const redisDb = 1 + Math.floor(Math.random() * 15);
  const common = {
    DATABASE_URL: shared.url,
    REDIS_URL: `redis://127.0.0.1:6379/${redisDb}`,
    LOGIN_MAX_FAILURES: '3',
    LOGIN_RATE_PER_MINUTE: '10000',
    SMTP_URL: smtp.url,
    INVENTORY_FTP_CA: tls.certFile,
    INVENTORY_FTP_TIMEOUT_SEC: '5',
    CORS_ORIGINS: pageOrigin,
    // Three hold requests a minute per address, counted in Redis across both nodes (the two-node test).
    HOLD_REQUESTS_PER_MINUTE: '3',
    ...s3.env,
  };
  // Node A sends no mail (its outbox worker is off), so every message goes through node B, the one stopped last.
  [a, b] = await Promise.all([
    startBuilt({ env: { ...common, OUTBOX_POLL_MS: '0' } }),
    // debug: each request's arrival is logged, which the SIGTERM test waits for.
    startBuilt({ env: { ...common, LOG_LEVEL: 'debug', SHUTDOWN_TIMEOUT_SEC: '5' } }),
  ]);
  const user = await createUser(shared.db);
  const res = await login(a, user.username, user.password);
  assert.equal(res.status, 200, res.text);
  owner = { ...user, token: res.json().access_token };
});

after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all([ftp?.close(), ftps?.close(), sftp?.close(), smtp?.stop(), s3?.stop(), new Promise((r) => (page ? page.close(r) : r(undefined)))]);
  await shared?.drop();
});

describe('the built server (npm start)', () => {
  test('REDIS_URL: both nodes start and count one login-failure limit together', async () => {
    const user = await createUser(shared.db);
    // Three failures, split over the two nodes: each node alone has seen fewer than the limit.
    for (const node of [a, b, a]) assert.equal((await login(node, user.username, 'not the password')).status, 401);
    for (const node of [b, a]) {
      const res = await login(node, user.username, user.password);
      assert.equal(res.status, 429, `the limit is shared: ${res.text}`);
      assert.ok(Number(res.headers.get('retry-after')) > 0);
    }
  });

  for (const kind of ['ftp', 'ftps', 'sftp'] as const) {
    test(`${kind} inventory feed: a sync imports the file`, async () => {
      const server = { ftp, ftps, sftp }[kind];
      const created = await api(a, 'POST', `/projects?name=${kind}-feed`, {
        ftpUrl: `${kind}://127.0.0.1`,
        ftpPort: server.port,
        ftpPath: '/exports',
        ftpFileName: 'inventory.csv',
        ftpUsername: FEED_USER,
        ftpPassword: FEED_PASSWORD,
        ftpMapping: [
          { header: 'Unidad', property: 'name' },
          { header: 'Precio', property: 'price' },
          { header: 'Estado', property: 'availability' },
        ],
        yiStatusMapping: { available: 'Disponible', sold: 'Vendido', reserved: 'Apartado' },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.json()._id as string;
      const sync = await api(b, 'POST', `/projects/${id}/inventory/sync`);
      assert.equal(sync.status, 200, sync.text);
      assert.equal(sync.json().summary.created, 4);
      const units = (await api(a, 'GET', `/units?project=${id}`)).json() as { name: string; availability: string }[];
      assert.deepEqual(units.map((u) => `${u.name}:${u.availability}`).sort(), ['A1:sold', 'A2:available', 'B1:reserved', 'P1:available']);
    });
  }

  test('.xlsx: the template is written and an Excel workbook imported (exceljs, loaded on first use)', async () => {
    const created = await api(a, 'POST', '/projects?name=xlsx-import');
    assert.equal(created.status, 201, created.text);
    const id = created.json()._id as string;
    const upload = async (file: ArrayBuffer | Buffer, query: string) => {
      const res = await fetch(`${b.url}/projects/${id}/inventory/import?${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': XLSX },
        body: new Uint8Array(file),
      });
      const text = await res.text();
      return { status: res.status, text, json: (): any => JSON.parse(text) };
    };
    const { Workbook } = (await import('exceljs')).default;
    const book = new Workbook();
    const sheet = book.addWorksheet('Units');
    for (const row of [
      ['Name', 'Floor', 'Status', 'Price', 'Beds', 'Sq Ft'],
      ['X1', 'Level 1', 'Available', 450000, 2, 850],
      ['X2', 'Level 1', 'Sold', 520000, 3, 990],
    ])
      sheet.addRow(row);
    const applied = await upload(await book.xlsx.writeBuffer(), '');
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.json().summary.created, 2);
    const template = await fetch(`${a.url}/projects/${id}/inventory/template?format=xlsx`, { headers: { authorization: `Bearer ${owner.token}` } });
    assert.equal(template.status, 200);
    assert.equal(template.headers.get('content-type'), XLSX);
    const back = await upload(await template.arrayBuffer(), 'dryRun=true');
    assert.equal(back.status, 200, back.text);
    assert.deepEqual(back.json().summary, { created: 0, updated: 0, unchanged: 2, kept: 0, errors: 0, skipped: 0 });
  });

  test('SMTP: a password-reset mail arrives', async () => {
    const user = await createUser(shared.db);
    const before = smtp.received.length;
    const res = await api(a, 'POST', '/users/password-reset', { username: user.username }, {}, null);
    assert.equal(res.status, 202, res.text);
    await smtp.waitFor(before + 1);
    const mail = smtp.received[before]!;
    assert.deepEqual(mail.rcptTo, [user.username]);
    assert.equal(mail.parsed.subject, 'Reset your Showsuite password');
  });

  test('/docs: the reference page, its files and a guide', async () => {
    const html = await fetch(`${a.url}/docs`);
    assert.equal(html.status, 200);
    assert.match(String(html.headers.get('content-type')), /text\/html/);
    const text = await html.text();
    const asset = /(?:src|href)="\.?\/?((?:docs\/)?static\/[^"]+\.(?:js|css))"/.exec(text)?.[1];
    assert.ok(asset, text.slice(0, 500));
    const file = await fetch(`${a.url}/${asset.startsWith('docs/') ? asset : `docs/${asset}`}`);
    assert.equal(file.status, 200, asset);
    assert.ok((await file.arrayBuffer()).byteLength > 100);
    // The guides are rendered by marked, loaded on the first guide request.
    const guide = await fetch(`${a.url}/docs/guides/errors`);
    assert.equal(guide.status, 200);
    assert.match(await guide.text(), /<h1 id=/);
  });

  test('CORS in Chromium: a page on another origin PATCHes and DELETEs with a bearer token and reads ETag and X-Total-Count', { skip: noBrowser }, async () => {
    const project = await api(a, 'POST', '/projects?name=cors-dashboard');
    assert.equal(project.status, 201);
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      await tab.goto(`${pageOrigin}/`);
      const seen = await tab.evaluate(
        async ({ api, token, id }) => {
          const auth = { authorization: `Bearer ${token}` };
          const list = await fetch(`${api}/projects?options[limit]=1`, { headers: auth });
          const one = await fetch(`${api}/project/${id}`, { headers: auth });
          const etag = one.headers.get('ETag') ?? '';
          const patched = await fetch(`${api}/project/${id}`, {
            method: 'PATCH',
            headers: { ...auth, 'content-type': 'application/json', 'if-match': etag },
            body: JSON.stringify({ name: 'Renamed from the dashboard' }),
          });
          const deleted = await fetch(`${api}/project/${id}`, { method: 'DELETE', headers: { ...auth, 'if-match': patched.headers.get('ETag') ?? '' } });
          return {
            total: list.headers.get('X-Total-Count'),
            etag,
            patched: patched.status,
            name: ((await patched.json()) as { name: string }).name,
            newEtag: patched.headers.get('ETag'),
            deleted: deleted.status,
          };
        },
        { api: a.url, token: owner.token, id: project.json()._id as string },
      );
      assert.ok(Number(seen.total) >= 1, JSON.stringify(seen));
      assert.match(seen.etag, /^(W\/)?"/);
      assert.equal(seen.patched, 200);
      assert.equal(seen.name, 'Renamed from the dashboard');
      assert.ok(seen.newEtag && seen.newEtag !== seen.etag);
      assert.equal(seen.deleted, 204);
      assert.equal((await api(a, 'GET', `/project/${project.json()._id}`)).status, 404);
    } finally {
      await browser.close();
    }
  });

  test('S3 media: an upload through one node is served by the other, resized as WebP', async () => {
    const png = await sharp({ create: { width: 800, height: 500, channels: 3, background: '#3a7' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([png], { type: 'image/png' }), 'plan.png');
    const up = await fetch(`${a.url}/media`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
    assert.equal(up.status, 201, await up.clone().text());
    const { url } = (await up.json()) as { url: string };
    const original = await fetch(`${b.url}${url}`);
    assert.equal(original.status, 200);
    assert.deepEqual(Buffer.from(await original.arrayBuffer()), png);
    const variant = await fetch(`${b.url}${url}?w=320`, { headers: { accept: 'image/webp' } });
    assert.equal(variant.status, 200);
    assert.equal(variant.headers.get('content-type'), 'image/webp');
    assert.match(String(variant.headers.get('vary')), /Accept/);
    const meta = await sharp(Buffer.from(await variant.arrayBuffer())).metadata();
    assert.equal(meta.width, 320);
  });

  test('two nodes: writes, holds, limits and live updates made through one are seen through the other', async () => {
    const namespace = `two-${Date.now().toString(36)}`;
    const created = await api(a, 'POST', `/projects?name=Two+Nodes&namespace=${namespace}`, {
      onHoldExperienceEnabled: true,
      onHoldMinsDuration: 10,
      enableForms: true,
    });
    assert.equal(created.status, 201, created.text);
    const project = created.json()._id as string;
    const floor = await api(a, 'POST', `/floors?project=${project}&name=Level+1`);
    assert.equal(floor.status, 201, floor.text);
    const unit = await api(b, 'POST', `/units?project=${project}&floor=${floor.json()._id}&name=A-101&position=0`);
    assert.equal(unit.status, 201, unit.text);
    const unitId = unit.json()._id as string;

    // A write through B is read through A, same version.
    const read = await api(a, 'GET', `/units/${unitId}`);
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('etag'), unit.headers.get('etag'));

    // Live updates: a stream open on B hears a change written through A.
    const stream = await SseClient.open(`${b.url}/public/projects/${namespace}/events`);
    assert.equal(stream.status, 200);
    try {
      const patched = await api(a, 'PATCH', `/units/${unitId}`, { price: 425000 }, { 'if-match': String(read.headers.get('etag')) });
      assert.equal(patched.status, 200, patched.text);
      await stream.until((c) => c.messages.some((m) => m.data.includes(unitId) && m.data.includes('425000')));
    } finally {
      stream.close();
    }

    // A hold placed through B is seen through A, and A cannot give the unit to someone else.
    const visitor = { firstName: 'Vera', lastName: 'Visitor', email: 'vera@example.com', phone: '+1 555 0100' };
    const held = await api(b, 'POST', `/public/units/${unitId}/hold`, visitor, {}, null);
    assert.equal(held.status, 200, held.text);
    assert.equal((await api(a, 'GET', `/units/${unitId}`)).json().availability, 'on_hold');
    const second = await api(a, 'POST', `/public/units/${unitId}/hold`, { ...visitor, email: 'other@example.com' }, {}, null);
    assert.equal(second.status, 409, second.text);

    // One limit across both nodes: the third hold request of the minute through A, the fourth through B refused.
    assert.equal((await api(a, 'POST', `/public/units/${unitId}/hold`, visitor, {}, null)).status, 409);
    const fourth = await api(b, 'POST', `/public/units/${unitId}/hold`, visitor, {}, null);
    assert.equal(fourth.status, 429, fourth.text);
    assert.ok(fourth.headers.get('retry-after'));
  });

  test('SIGTERM under load: requests that arrived are answered, streams end with retry:, outbox attempts finish or go back, exit 0', async () => {
    const ns = `sigterm-${Date.now().toString(36)}`;
    // A lead on this project queues two messages in one transaction (the team's notice, the visitor's confirmation),
    // so node B's worker takes both in one fetch; the SMTP server holds both (hold-*@).
    const project = (
      await api(a, 'POST', `/projects?name=sigterm&namespace=${ns}`, { enableForms: true, formsSendTo: 'hold-team@example.com', formsMessage: 'Thank you' })
    ).json() as { _id: string };
    const units: string[] = [];
    for (let i = 0; i < 8; i++) units.push((await api(a, 'POST', `/units?project=${project._id}&name=U${i}&position=${i}`)).json()._id);

    // A live-feed stream on the node that stops.
    const stream = await SseClient.open(`${b.url}/public/projects/${ns}/events`);
    assert.equal(stream.status, 200);
    // Two mail attempts in flight on node B: one is answered after the signal, one never.
    const lead = await api(
      b,
      'POST',
      '/public/leads',
      { namespace: ns, firstName: 'Vera', lastName: 'Visitor', email: 'hold-visitor@example.com', phone: '+1 555 0100' },
      {},
      null,
    );
    assert.equal(lead.status, 201, lead.text);
    await smtp.waitForHeld(2);

    // Requests whose bodies are still arriving when the signal comes.
    const sockets: { socket: Socket; rest: string; answer: Promise<string> }[] = [];
    for (const [i, id] of units.entries()) {
      const body = JSON.stringify({ price: 1000 + i });
      const socket = connect(b.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      let answer = '';
      const answered = new Promise<string>((resolve) => {
        socket.on('data', (d) => {
          answer += String(d);
          if (/\r\n\r\n[\s\S]*\}$/.test(answer)) resolve(answer);
        });
        socket.on('close', () => resolve(answer));
      });
      socket.write(
        `PATCH /units/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`,
      );
      sockets.push({ socket, rest: body.slice(3), answer: answered });
    }
    for (const id of units) await b.waitForOutput(new RegExp(`"url":"/units/${id}"`));

    b.child.kill('SIGTERM');
    await b.waitForOutput(/shutting down/);
    for (const s of sockets) s.socket.write(s.rest);
    smtp.release('hold-team@example.com');

    const answers = await Promise.all(sockets.map((s) => s.answer));
    for (const s of sockets) s.socket.destroy();
    for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 200 /, `in-flight request answered:\n${answer}\n${b.output().slice(-3000)}`);
    await stream.until((c) => /retry: \d+/.test(c.body) || c.comments.includes('closing'));
    assert.match(stream.body + stream.comments.join('\n'), /retry: \d+|closing/);

    const { code, signal } = await b.exited;
    assert.equal(signal, null, b.output().slice(-3000));
    assert.equal(code, 0, b.output().slice(-3000));
    // The answered attempt finished (its mail arrived, the job is done); the other is due again, attempt unchanged.
    assert.ok(smtp.received.some((m) => m.rcptTo.includes('hold-team@example.com')));
    const jobs = await sql<{ state: string; n: string }>`
      select state::text as state, data->>'n' as n from pgboss.job where name = 'mail' and state <> 'completed'`.execute(shared.db.kysely);
    assert.deepEqual(
      jobs.rows.map((r) => [r.state, r.n]),
      [['created', '1']],
      'the attempt still running at the deadline went back to the queue',
    );
    // Every PATCH that arrived before the signal was applied.
    const prices = ((await api(a, 'GET', `/units?project=${project._id}`)).json() as { name: string; price: number }[])
      .map((u) => u.price)
      .sort((x, y) => x - y);
    assert.deepEqual(
      prices,
      units.map((_, i) => 1000 + i),
    );
    stream.close();
  });
});
