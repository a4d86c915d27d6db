import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, ENGINE, userWithToken, type TestApp } from './helpers.ts';

function assertProblem(res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(res.json().code, code);
}

/** A real 2×2 RGB PNG. */
function png(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2, 0);
  ihdr.writeUInt32BE(2, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const raw = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(64, 7), Buffer.from([0xff, 0xd9])]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([40, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(32, 1)]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

type Part = { name: string; filename?: string; type?: string; body: Buffer | string };

function multipart(parts: Part[]) {
  const boundary = `----showsuite${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.isBuffer(p.body) ? p.body : Buffer.from(p.body));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe(`POST /media and GET /media/<name> (${ENGINE})`, () => {
  let t: TestApp;
  let auth: Record<string, string>;
  before(async () => {
    t = await buildTestApp();
    auth = (await userWithToken(t)).auth;
  });
  after(() => t.close());

  const upload = (body: Buffer | string, opts: { filename?: string; type?: string; headers?: Record<string, string>; parts?: Part[] } = {}) => {
    const m = multipart(opts.parts ?? [{ name: 'file', filename: opts.filename ?? 'upload.bin', type: opts.type ?? 'application/octet-stream', body }]);
    return t.app.inject({ method: 'POST', url: '/media', payload: m.payload, headers: { 'content-type': m.contentType, ...(opts.headers ?? auth) } });
  };
  const uploadOk = async (body: Buffer | string, filename?: string) => {
    const res = await upload(body, filename ? { filename } : {});
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { url: string; contentType: string; size: number };
  };
  const fetchMedia = (url: string) => t.app.inject({ method: 'GET', url });

  test('PNG, JPEG, WebP and PDF: 201 with url, contentType and size; served byte for byte with a year of immutable caching', async () => {
    for (const [body, type, ext] of [
      [png(), 'image/png', 'png'],
      [JPEG, 'image/jpeg', 'jpg'],
      [WEBP, 'image/webp', 'webp'],
      [PDF, 'application/pdf', 'pdf'],
    ] as const) {
      const res = await upload(body);
      assert.equal(res.statusCode, 201, res.body);
      const media = res.json();
      assert.equal(media.contentType, type);
      assert.equal(media.size, body.length);
      assert.match(media.url, new RegExp(`^/media/[0-9a-f]{32}\\.${ext}$`));
      assert.equal(res.headers.location, media.url);
      const got = await fetchMedia(media.url);
      assert.equal(got.statusCode, 200);
      assert.equal(got.headers['content-type'], type);
      assert.equal(got.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(got.headers['x-content-type-options'], 'nosniff');
      assert.match(String(got.headers['content-security-policy']), /sandbox/);
      assert.ok(got.rawPayload.equals(body), `${type} served unchanged`);
    }
  });

  test('recognised by content, not by name or declared type: a PNG called plan.svg sent as image/svg+xml is a PNG', async () => {
    const res = await upload(png(), { filename: 'plan.svg', type: 'image/svg+xml' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().contentType, 'image/png');
    assert.match(res.json().url, /\.png$/);
  });

  test('the same content twice has one address; files live under DATA_DIR/media', async () => {
    const a = await uploadOk(PDF, 'a.pdf');
    const b = await uploadOk(PDF, 'b.pdf');
    assert.equal(a.url, b.url);
    const file = join(t.config.dataDir, 'media', a.url.slice('/media/'.length));
    assert.ok(existsSync(file));
    assert.ok(readFileSync(file).equals(PDF));
  });

  test('anything else → 415: HTML called .png, plain text, GIF, XML that is not SVG, an SVG root in another namespace', async () => {
    const refused: [string, Buffer | string][] = [
      ['plan.png', '<!doctype html><html><body><script>alert(1)</script></body></html>'],
      ['notes.txt', 'just some words'],
      ['anim.gif', Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(20)])],
      ['data.xml', '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body/></html>'],
      ['fake.svg', '<svg xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></svg>'],
      ['broken.svg', '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0"></svg>'],
      ['exe.pdf', Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00])],
    ];
    for (const [filename, body] of refused) {
      const res = await upload(body, { filename, type: 'image/png' });
      assertProblem(res, 415, 'unsupported_media_type');
    }
  });

  test('an XXE or entity-expansion SVG is refused (entities are never expanded)', async () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>';
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>' +
      '<svg xmlns="http://www.w3.org/2000/svg"><text>&c;</text></svg>';
    for (const body of [xxe, laughs]) {
      const res = await upload(body, { filename: 'x.svg' });
      assertProblem(res, 415, 'unsupported_media_type');
      assert.doesNotMatch(res.body, /root:/);
    }
  });

  test('a hostile SVG is stored sanitised: no scripts, handlers, foreignObject, animation, external references; the drawing stays', async () => {
    const hostile = `<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:h="http://www.w3.org/1999/xhtml" viewBox="0 0 600 300" onload="alert('load')">
  <script>alert('script')</script>
  <script type="text/javascript"><![CDATA[ alert('cdata') ]]></script>
  <h:script>alert('namespaced')</h:script>
  <style>@import url(https://evil.example/x.css); .a { fill: red }</style>
  <style>.c { background: url(https://evil.example/track.png) }</style>
  <style>.b { fill: url(#grad) }</style>
  <defs><linearGradient id="grad"><stop offset="0" stop-color="#123456"/></linearGradient></defs>
  <rect id="plan" x="10" y="10" width="580" height="280" fill="url(#grad)" stroke="#333" onclick="alert('click')" ONMOUSEOVER="alert(2)"/>
  <path d="M20 20 h100 v80 h-100 Z" fill="url(https://evil.example/x.svg#p)" style="fill: url('https://evil.example/y')"/>
  <foreignObject width="100" height="100"><h:iframe src="https://evil.example"/><h:img src="x" onerror="alert(3)"/></foreignObject>
  <a xlink:href="javascript:alert('link')"><text x="30" y="60">Unit A1</text></a>
  <a href="https://evil.example"><circle cx="5" cy="5" r="2"/></a>
  <image href="https://evil.example/beacon.png" width="10" height="10"/>
  <image xlink:href="data:image/png;base64,iVBORw0KGgo=" width="10" height="10"/>
  <image href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==" width="10" height="10"/>
  <use href="https://evil.example/sprites.svg#icon"/>
  <use xlink:href="#plan" x="1"/>
  <animate attributeName="href" to="javascript:alert(4)" begin="0s"/>
  <set attributeName="onmouseover" to="alert(5)"/>
  <iframe src="https://evil.example"/>
  <text x="40" y="80" fill="javascript:alert(6)">Unit A2</text>
  <?xml-stylesheet href="https://evil.example/s.xsl"?>
</svg>`;
    const res = await upload(hostile, { filename: 'plan.png', type: 'image/png' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().contentType, 'image/svg+xml');
    assert.match(res.json().url, /\.svg$/);
    const served = await fetchMedia(res.json().url);
    assert.equal(served.headers['content-type'], 'image/svg+xml');
    const svg = served.body;
    assert.equal(res.json().size, Buffer.byteLength(svg));
    for (const banned of [
      /<script/i,
      /alert/,
      /\son\w+=/i,
      /foreignObject/i,
      /iframe/i,
      /evil\.example/,
      /javascript:/i,
      /<animate/,
      /<set/,
      /@import/,
      /data:text/,
      /<!--/,
      /<\?xml-stylesheet/,
      /<h:/,
    ]) {
      assert.doesNotMatch(svg, banned, `sanitised SVG must not contain ${banned}`);
    }
    // The drawing survives: shapes, the local gradient and its use, the link's text, the inline PNG.
    for (const kept of [
      /<rect id="plan"/,
      /fill="url\(#grad\)"/,
      /stop-color="#123456"/,
      /<path d="M20 20 h100 v80 h-100 Z"/,
      />Unit A1</,
      />Unit A2</,
      /href="#plan"/,
      /href="data:image\/png;base64,/,
      /\.b \{ fill: url\(#grad\) \}/,
    ]) {
      assert.match(svg, kept, `sanitised SVG keeps ${kept}`);
    }
    assert.match(svg, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  test('an SVG without xmlns, with a BOM, is accepted and served as SVG with its namespace', async () => {
    const res = await upload('\ufeff<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>', { filename: 'c.svg' });
    assert.equal(res.statusCode, 201, res.body);
    const served = (await fetchMedia(res.json().url)).body;
    assert.match(served, /<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"><\/circle><\/svg>/);
  });

  test('larger than 20 MiB → 413, nothing kept', async () => {
    const big = Buffer.concat([png(), Buffer.alloc(20 * 1024 * 1024)]);
    const res = await upload(big);
    assertProblem(res, 413, 'payload_too_large');
    const { readdirSync } = await import('node:fs');
    const dir = join(t.config.dataDir, 'media');
    const leftovers = existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith('.upload-')) : [];
    assert.deepEqual(leftovers, []);
  });

  test('temporary files a crash left mid-upload are swept (older than an hour); a fresh one, and stored files, are kept', async () => {
    const { mkdirSync, writeFileSync, utimesSync, readdirSync } = await import('node:fs');
    const stored = await uploadOk(png());
    const dir = join(t.config.dataDir, 'media');
    mkdirSync(dir, { recursive: true });
    const old = join(dir, '.upload-0123456789abcdef');
    writeFileSync(old, 'half an upload');
    const twoHoursAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    writeFileSync(join(dir, '.upload-fedcba9876543210'), 'an upload arriving now');
    assert.equal(await t.app.mediaSweeper.sweepTemporary(), 1);
    const left = readdirSync(dir);
    assert.ok(!left.includes('.upload-0123456789abcdef'));
    assert.ok(left.includes('.upload-fedcba9876543210'));
    assert.equal((await fetchMedia(stored.url)).statusCode, 200);
  });

  test('not multipart → 415; no part named file, or two parts → 400 naming file; no token → 401', async () => {
    const asJson = await t.app.inject({ method: 'POST', url: '/media', payload: { file: 'x' }, headers: auth });
    assertProblem(asJson, 415, 'unsupported_media_type');
    const wrongName = await upload(png(), { parts: [{ name: 'image', filename: 'a.png', body: png() }] });
    assertProblem(wrongName, 400, 'invalid_body');
    assert.equal(wrongName.json().errors[0].path, '/file');
    const two = await upload(png(), {
      parts: [
        { name: 'file', filename: 'a.png', body: png() },
        { name: 'file', filename: 'b.png', body: png() },
      ],
    });
    assertProblem(two, 400, 'invalid_body');
    const anonymous = await upload(png(), { headers: {} });
    assertProblem(anonymous, 401, 'unauthorized');
  });

  test('GET of a name that is not a stored file → 404 (no path tricks)', async () => {
    for (const url of ['/media/0123456789abcdef0123456789abcdef.png', '/media/..%2Fsecrets.json', '/media/%2e%2e%2fsecrets.json', '/media/x.html']) {
      assertProblem(await fetchMedia(url), 404, 'not_found');
    }
  });

  test('multipart bodies stay refused on every other route (415)', async () => {
    const m = multipart([{ name: 'file', filename: 'a.png', body: png() }]);
    const res = await t.app.inject({ method: 'POST', url: '/projects?name=X', payload: m.payload, headers: { 'content-type': m.contentType, ...auth } });
    assertProblem(res, 415, 'unsupported_media_type');
  });
});
