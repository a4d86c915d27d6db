import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTestApp, createUser, ENGINE, freePort, login as loginDirect, slug, tempDir, TEST_PASSWORD, type TestApp } from './helpers.ts';

/**
 * Live traffic checked against the served document by Prism's validating proxy. A broad
 * scenario goes through `prism proxy` to the running service; Prism checks each request and each answer
 * (status, headers, body) against the document and reports what does not fit in an `sl-violations` header.
 * Steps marked `bad` send a request that breaks the document on purpose (to reach a 400, 401, 413, …): their
 * request violations are expected, their answers are checked all the same. Nothing else may be reported,
 * and no path may be one the document does not have ("Selected route not found").
 *
 * Prism runs without `--errors`: with it, a request violation is answered by Prism itself (422) and never
 * reaches the service, so the answers to bad requests would go unchecked.
 */
type Json = Record<string, any>;
interface Violation {
  location: string[];
  severity: string;
  message: string;
  code?: string | number;
}
interface Sent {
  status: number;
  headers: Headers;
  body: any;
}

const PRISM = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

describe(`live traffic through Prism's validating proxy (${ENGINE})`, () => {
  let t: TestApp;
  let prism: ChildProcess;
  let base: string;
  let direct: string;
  let prismLog = '';
  const found: string[] = [];
  let steps = 0;

  before(async () => {
    // Low account-request limit: the scenario reaches a 429 with a few password-reset requests.
    t = await buildTestApp({ env: { PUBLIC_URL: 'http://127.0.0.1', ACCOUNT_REQUESTS_PER_MINUTE: '3', ALLOW_PRIVATE_TARGETS: 'true' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    assert.ok(address && typeof address === 'object');
    direct = `http://127.0.0.1:${address.port}`;
    const file = join(tempDir('showsuite-prism-'), 'openapi.json');
    writeFileSync(file, (await t.app.inject({ method: 'GET', url: '/openapi.json' })).body);
    const port = await freePort();
    // Prism's own script under this Node (not through npx), so stopping it stops Prism itself.
    prism = spawn(process.execPath, [PRISM, 'proxy', file, `http://127.0.0.1:${address.port}`, '--port', String(port), '--verboseLevel', 'warn'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    prism.stdout?.on('data', (d: Buffer) => (prismLog += d.toString()));
    prism.stderr?.on('data', (d: Buffer) => (prismLog += d.toString()));
    base = `http://127.0.0.1:${port}`;
    // Prism reads and resolves the document first (a few seconds, more on a loaded machine).
    for (let i = 0; ; i++) {
      const up = await fetch(`${base}/health`).then(
        () => true,
        () => false,
      );
      if (up) break;
      assert.ok(i < 600 && prism.exitCode === null, `prism did not start: ${prismLog}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  after(async () => {
    if (prism && prism.exitCode === null) {
      const exited = new Promise((r) => prism.once('exit', r));
      prism.kill('SIGTERM');
      await exited;
    }
    await t?.close();
  });

  /** One request through Prism; what it reports is kept (request violations of a `bad` request excepted). */
  async function send(
    method: string,
    url: string,
    opts: { headers?: Record<string, string>; json?: unknown; raw?: string; bad?: boolean } = {},
  ): Promise<Sent> {
    steps++;
    const headers: Record<string, string> = { ...opts.headers };
    let body: string | undefined = opts.raw;
    if (opts.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(opts.json);
    }
    const res = await fetch(`${base}${url}`, { method, headers, body });
    const text = await res.text();
    const header = res.headers.get('sl-violations');
    const violations = header ? (JSON.parse(header) as Violation[]) : [];
    for (const v of violations) {
      const unknownPath = v.message === 'Selected route not found';
      if (opts.bad && v.location[0] === 'request' && !unknownPath) continue;
      found.push(`${method} ${url.split('?')[0]} → ${res.status}: ${v.location.join('.')} ${v.message}`);
    }
    let parsed: unknown = text;
    if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed };
  }

  /** `send`, and the answer must have this status (its body in the message when not). */
  async function expectStatus(status: number, ...args: Parameters<typeof send>): Promise<Sent> {
    const res = await send(...args);
    assert.equal(res.status, status, `${args[0]} ${args[1]}: ${JSON.stringify(res.body).slice(0, 500)}`);
    return res;
  }

  test('a broad scenario: no violation, no undocumented path', { timeout: 300_000 }, async (context) => {
    const user = await createUser(t.db);
    const ns = slug('prism');

    // Probes and log-in.
    await expectStatus(200, 'GET', '/health');
    await expectStatus(200, 'GET', '/ready');
    const wrong = await send('POST', '/users/login', { json: { username: user.username, password: 'not the password' } });
    assert.equal(wrong.status, 401);
    const login = await send('POST', '/users/login', { json: { username: user.username, password: TEST_PASSWORD } });
    assert.equal(login.status, 200);
    const auth = { authorization: `Bearer ${login.body.access_token as string}` };
    const viaQuery = await send('POST', `/users/login?username=${encodeURIComponent(user.username)}&password=${encodeURIComponent(TEST_PASSWORD)}`);
    assert.equal(viaQuery.status, 200);
    const me = await send('GET', '/users/me', { headers: auth });
    assert.equal(me.status, 200);
    if (me.headers.get('etag')) await expectStatus(304, 'GET', '/users/me', { headers: { ...auth, 'if-none-match': me.headers.get('etag')! } });
    await expectStatus(200, 'PATCH', '/users/me', { headers: auth, json: { name: 'Prism', city: 'Lisbon' } });

    // Projects: create (idempotent), search, read (both paths), change with If-Match (and a stale one).
    const createProject = () =>
      send('POST', `/projects?name=Harbour&namespace=${ns}`, { headers: { ...auth, 'idempotency-key': `create-${ns}` }, json: { enableForms: true } });
    const project = await createProject();
    assert.equal(project.status, 201);
    assert.equal((await createProject()).headers.get('idempotent-replayed'), 'true');
    const pid = project.body._id as string;
    await expectStatus(200, 'GET', '/projects?filters[name]=Harb&options[limit]=5&options[sort]=name', { headers: auth });
    await expectStatus(200, 'GET', `/projects?filters=${encodeURIComponent('{"name":"Harb"}')}`, { headers: auth });
    const read = await send('GET', `/project/${pid}`, { headers: auth });
    await expectStatus(304, 'GET', `/project/${pid}`, { headers: { ...auth, 'if-none-match': read.headers.get('etag')! } });
    await expectStatus(200, 'GET', `/projects/${pid}`, { headers: auth });
    const settings = { onHoldExperienceEnabled: true, waitlistEnabled: true, hideSold: true };
    const changed = await send('PATCH', `/project/${pid}`, { headers: { ...auth, 'if-match': read.headers.get('etag')! }, json: settings });
    assert.equal(changed.status, 200);
    await expectStatus(412, 'PATCH', `/projects/${pid}`, { headers: { ...auth, 'if-match': '"1"' }, json: { name: 'Stale' } });

    // Floors and units.
    const floor = await send('POST', `/floors?project=${pid}&name=Ground`, { headers: { ...auth, 'content-type': 'application/json' }, raw: '' });
    assert.equal(floor.status, 201, JSON.stringify(floor.body));
    const fid = floor.body._id as string;
    await expectStatus(200, 'GET', `/floors?project=${pid}`, { headers: auth });
    const floorRead = await send('GET', `/floors/${fid}`, { headers: auth });
    await expectStatus(304, 'GET', `/floors/${fid}`, { headers: { ...auth, 'if-none-match': floorRead.headers.get('etag')! } });
    await expectStatus(200, 'PATCH', `/floors/${fid}`, { headers: auth, json: { name: 'Level 0' } });
    const units: Json[] = [];
    for (const [name, price, availability] of [
      ['G-01', 300000, 'available'],
      ['G-02', 450000, 'available'],
      ['G-03', 600000, 'sold'],
    ] as const) {
      const unit = await send('POST', `/units?project=${pid}&name=${name}&floor=${fid}`, { headers: auth, json: { price, availability, bedrooms: '2' } });
      assert.equal(unit.status, 201, JSON.stringify(unit.body));
      units.push(unit.body as Json);
    }
    const search = await send(
      'GET',
      `/units?project=${pid}&filters[priceMin]=400000&filters[availability]=available,sold&options[skip]=0&options[limit]=1&options[sort]=-name`,
      {
        headers: auth,
      },
    );
    assert.equal(search.status, 200, JSON.stringify(search.body));
    assert.equal(search.headers.get('x-total-count'), '2');
    await expectStatus(200, 'GET', `/units?project=${pid}&availability=available&floor=${fid}`, { headers: auth });
    const unit = units[0]!;
    const unitRead = await send('GET', `/units/${unit._id}`, { headers: auth });
    await expectStatus(304, 'GET', `/units/${unit._id}`, { headers: { ...auth, 'if-none-match': unitRead.headers.get('etag')! } });
    const patched = await send('PATCH', `/units/${unit._id}`, { headers: { ...auth, 'if-match': `"${unit.__v}"` }, json: { price: 310000 } });
    assert.equal(patched.status, 200);
    await expectStatus(412, 'PATCH', `/units/${unit._id}`, { headers: { ...auth, 'if-match': `"${unit.__v}"` }, json: { price: 1 } });
    const bulk = await send('PATCH', '/units', {
      headers: auth,
      json: units.slice(1).map((u) => ({ _id: u._id, price: (u.price as number) + 1000, ifMatch: `"${u.__v}"` })),
    });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    await expectStatus(200, 'GET', `/units/${unit._id}/history?limit=10`, { headers: auth });
    await expectStatus(200, 'GET', `/projects/${pid}/events?after=0&limit=50`, { headers: auth });

    // Groups and invitations.
    const group = await send('POST', `/groups?name=Waterfront`, { headers: auth, json: { projects: [pid] } });
    assert.equal(group.status, 201, JSON.stringify(group.body));
    const gid = group.body._id as string;
    await expectStatus(200, 'GET', '/groups?options[limit]=10', { headers: auth });
    const groupRead = await send('GET', `/groups/${gid}`, { headers: auth });
    await expectStatus(304, 'GET', `/groups/${gid}`, { headers: { ...auth, 'if-none-match': groupRead.headers.get('etag')! } });
    await expectStatus(200, 'PATCH', `/groups/${gid}`, { headers: { ...auth, 'if-match': groupRead.headers.get('etag')! }, json: { accentColor: '#336699' } });
    const invite = await send('POST', `/projects/${pid}/invites`, { headers: auth, json: { email: 'eve@example.com', level: 'editor' } });
    assert.equal(invite.status, 201, JSON.stringify(invite.body));
    await expectStatus(204, 'DELETE', `/projects/${pid}/invites/${invite.body._id as string}`, { headers: auth });
    const groupInvite = await send('POST', `/groups/${gid}/invites`, { headers: auth, json: { email: 'eve@example.com', level: 'administrator' } });
    assert.equal(groupInvite.status, 201, JSON.stringify(groupInvite.body));
    await expectStatus(404, 'GET', `/invites/${'x'.repeat(40)}`);

    // The public page: bundle (and 304), enquiry, hold, waitlist; then the leads.
    const bundle = await send('GET', `/public/projects/${ns}`);
    assert.equal(bundle.status, 200);
    await expectStatus(304, 'GET', `/public/projects/${ns}`, { headers: { 'if-none-match': bundle.headers.get('etag')! } });
    await expectStatus(404, 'GET', `/public/projects/${slug('none')}`);
    const visitor = { firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', phone: '+1 555 0100' };
    await expectStatus(201, 'POST', '/public/leads', { headers: { 'idempotency-key': `lead-${ns}` }, json: { namespace: ns, ...visitor } });
    await expectStatus(200, 'POST', `/public/units/${units[1]!._id as string}/hold`, { json: visitor });
    await expectStatus(409, 'POST', `/public/units/${units[1]!._id as string}/hold`, { json: visitor });
    await expectStatus(201, 'POST', '/public/waitlist', { json: { project: pid, firstName: 'Bo', lastName: 'Li', email: 'bo@example.com' } });
    await expectStatus(200, 'GET', `/leads?project=${pid}&options[sort]=createdAt&options[limit]=10`, { headers: auth });

    // Webhooks.
    const hook = await send('POST', `/projects/${pid}/webhooks`, {
      headers: { ...auth, 'idempotency-key': `hook-${ns}` },
      json: { url: 'http://127.0.0.1:9/hooks/showsuite', events: ['unit.updated', 'lead.created'], description: 'CRM' },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const hid = hook.body._id as string;
    await expectStatus(200, 'GET', `/projects/${pid}/webhooks`, { headers: auth });
    const hookRead = await send('GET', `/projects/${pid}/webhooks/${hid}`, { headers: auth });
    assert.equal(hookRead.status, 200);
    const hookTag = hookRead.headers.get('etag');
    if (hookTag) await expectStatus(304, 'GET', `/projects/${pid}/webhooks/${hid}`, { headers: { ...auth, 'if-none-match': hookTag } });
    await expectStatus(200, 'PATCH', `/projects/${pid}/webhooks/${hid}`, { headers: auth, json: { events: ['*'] } });
    await expectStatus(200, 'GET', `/projects/${pid}/webhooks/${hid}/deliveries?limit=10`, { headers: auth });
    await expectStatus(204, 'DELETE', `/projects/${pid}/webhooks/${hid}`, { headers: auth });

    // Inventory (a dry run of a small CSV) and media.
    const csv = 'name,price,availability\nG-01,320000,available\n';
    const dry = await send('POST', `/projects/${pid}/inventory/import?dryRun=true`, { headers: { ...auth, 'content-type': 'text/csv' }, raw: csv });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    await expectStatus(200, 'GET', `/projects/${pid}/inventory/syncs`, { headers: auth });
    // The upload itself goes to the service directly: Prism forwards a multipart body re-encoded, so the file no
    // longer reads as a PNG (415). What the document says of the answer is checked on the reads through Prism.
    const form = new FormData();
    form.append('file', new Blob([PNG_1X1], { type: 'image/png' }), 'dot.png');
    const uploaded = await fetch(`${direct}/media`, { method: 'POST', headers: auth, body: form });
    assert.equal(uploaded.status, 201, await uploaded.clone().text());
    const media = { body: (await uploaded.json()) as Json };
    const mediaPath = String(media.body.url);
    const file = await send('GET', mediaPath);
    assert.equal(file.status, 200);
    await expectStatus(304, 'GET', mediaPath, { headers: { 'if-none-match': file.headers.get('etag')! } });

    // Refusals, each declared where it happens.
    const unknownId = '65f0c0ffee00000000000001';
    await expectStatus(404, 'GET', `/units/${unknownId}`, { headers: auth });
    await expectStatus(400, 'GET', `/units?project=${pid}&options[limit]=0`, { headers: auth, bad: true });
    await expectStatus(400, 'GET', `/units/not-an-id`, { headers: auth, bad: true });
    await expectStatus(400, 'PATCH', `/units/${unit._id}`, { headers: { ...auth, 'content-type': 'application/json' }, raw: '{"price":', bad: true });
    await expectStatus(400, 'PATCH', `/units/${unit._id}`, { headers: auth, json: { price: 'a lot' }, bad: true });
    await expectStatus(401, 'GET', `/project/${pid}`, { bad: true });
    const big = { note: 'x'.repeat(1024 * 1024) };
    await expectStatus(413, 'PATCH', `/units/${unit._id}`, { headers: auth, json: big, bad: true });
    await expectStatus(415, 'PATCH', `/units/${unit._id}`, { headers: { ...auth, 'content-type': 'application/xml' }, raw: '<a/>', bad: true });
    await expectStatus(414, 'GET', `/units/${'a'.repeat(101)}`, { headers: auth, bad: true });
    let limited = 0;
    for (let i = 0; i < 5 && limited !== 429; i++) limited = (await send('POST', '/users/password-reset', { json: { username: 'nobody@example.com' } })).status;
    assert.equal(limited, 429);

    // Clean-up by the documented routes, and the session's end.
    await expectStatus(412, 'DELETE', `/units/${units[2]!._id as string}`, { headers: { ...auth, 'if-match': `"${units[2]!.__v}"` } });
    await expectStatus(204, 'DELETE', `/units/${units[2]!._id as string}`, { headers: auth });
    await expectStatus(204, 'DELETE', `/groups/${gid}`, { headers: auth });
    // A refresh token of a session of its own (the proxy passes no Set-Cookie on), sent in the body.
    const { refreshToken } = await loginDirect(t.app, { username: user.username, password: TEST_PASSWORD });
    await expectStatus(200, 'POST', '/users/refresh', { json: { refresh_token: refreshToken } });
    await expectStatus(204, 'DELETE', `/projects/${pid}`, { headers: auth });
    await expectStatus(204, 'POST', '/users/logout', { headers: auth });

    context.diagnostic(`${steps} requests through Prism, ${found.length} violations`);
    assert.deepEqual(found, [], `${steps} requests; Prism reported:\n${found.join('\n')}`);
  });
});
