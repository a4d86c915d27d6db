import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { openMediaStore, readAll, type MediaStore } from '../src/modules/media/media.store.ts';
import { buildTestApp, createFloor, createProject, createUnit, ENGINE, login, TestClock, userWithToken, type TestApp } from './helpers.ts';
import { startS3, type TestS3 } from './s3.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const AVIF_WEBP = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';

/** A real picture: a gradient with some noise, so every encoder has work to do. */
async function picture(format: 'png' | 'jpeg' | 'webp', width = 800, height = 600, seed = 0): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: { r: 40 + seed, g: 120, b: 200 } } });
  const noise = await sharp({ create: { width, height, channels: 3, background: 'black', noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
    .png()
    .toBuffer();
  return base
    .composite([{ input: noise, blend: 'overlay' }])
    .toFormat(format)
    .toBuffer();
}

function multipart(body: Buffer | string) {
  const boundary = `----showsuite${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.isBuffer(body) ? body : Buffer.from(body),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, contentType: `multipart/form-data; boundary=${boundary}` };
}

for (const kind of ['local', 's3'] as const) {
  describe(`media in the ${kind} store (${ENGINE})`, () => {
    let s3: TestS3 | undefined;
    let t: TestApp;
    let auth: { authorization: string };
    let uploader: Awaited<ReturnType<typeof userWithToken>>;
    let store: MediaStore;
    const clock = new TestClock();
    /** Moves the clock, and signs in again (tokens do not last days). */
    const advance = async (ms: number) => {
      clock.advance(ms);
      auth = { authorization: `Bearer ${(await login(t.app, uploader)).token}` };
    };

    before(async () => {
      s3 = kind === 's3' ? await startS3() : undefined;
      t = await buildTestApp({ env: s3?.env ?? {}, clock });
      uploader = await userWithToken(t);
      auth = uploader.auth;
      // A second handle on the same store, as another node would have.
      store = await openMediaStore(t.config);
    });
    after(async () => {
      await t.close();
      await s3?.stop();
    });

    const upload = async (body: Buffer | string) => {
      const m = multipart(body);
      const res = await t.app.inject({ method: 'POST', url: '/media', payload: m.payload, headers: { 'content-type': m.contentType, ...auth } });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as { url: string; contentType: string; size: number };
    };
    const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
    const keys = async (prefix = '') => {
      const found: string[] = [];
      for await (const o of store.list(prefix)) found.push(o.key);
      return found.sort();
    };
    const name = (url: string) => url.slice('/media/'.length);

    test('an upload is kept in the store under its content hash and served from it byte for byte, with the same /media/ address', async () => {
      const png = await picture('png', 320, 200);
      const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
      for (const [body, type] of [
        [png, 'image/png'],
        [pdf, 'application/pdf'],
      ] as const) {
        const media = await upload(body);
        assert.equal(media.contentType, type);
        assert.match(media.url, /^\/media\/[0-9a-f]{32}\.(png|pdf)$/);
        assert.ok((await keys()).includes(name(media.url)));
        const kept = await store.get(name(media.url));
        assert.ok(kept && (await readAll(kept.body)).equals(body));
        const served = await get(media.url);
        assert.equal(served.statusCode, 200);
        assert.equal(served.headers['content-type'], type);
        assert.equal(served.headers['content-length'], String(body.length));
        assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
        assert.doesNotMatch(String(served.headers.vary), /Accept/);
        assert.ok(served.rawPayload.equals(body));
        const again = await get(media.url, { 'if-none-match': String(served.headers.etag) });
        assert.equal(again.statusCode, 304);
        assert.equal(again.rawPayload.length, 0);
      }
      const onDisk = existsSync(join(t.config.dataDir, 'media', name((await upload(png)).url)));
      assert.equal(onDisk, kind === 'local', 'only the local store writes under DATA_DIR/media');
      assert.equal((await get('/media/0123456789abcdef0123456789abcdef.png')).statusCode, 404);
    });

    test('?w= resizes a picture: AVIF or WebP as Accept names them, else its own format; Vary: Accept; cached like the original', async () => {
      const media = await upload(await picture('png', 800, 600, 1));
      const hash = name(media.url).slice(0, 32);
      for (const [accept, type] of [
        [AVIF_WEBP, 'image/avif'],
        ['image/webp,*/*', 'image/webp'],
        ['image/*,*/*;q=0.8', 'image/png'],
        ['image/avif;q=0,image/webp', 'image/webp'],
      ] as const) {
        const res = await get(`${media.url}?w=320`, { accept });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['content-type'], type, accept);
        assert.match(String(res.headers.vary), /(^|, )Accept$/);
        assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.match(String(res.headers['content-security-policy']), /sandbox/);
        const meta = await sharp(res.rawPayload).metadata();
        assert.equal(meta.width, 320);
        assert.equal(meta.height, 240);
        assert.ok(res.rawPayload.length < (await get(media.url)).rawPayload.length);
        assert.equal((await get(`${media.url}?w=320`, { accept, 'if-none-match': String(res.headers.etag) })).statusCode, 304);
      }
      assert.deepEqual(await keys('variants/'), [`variants/${hash}-320.avif`, `variants/${hash}-320.png`, `variants/${hash}-320.webp`]);
      // Rounded up to a multiple of 16; never wider than the picture.
      assert.equal((await sharp((await get(`${media.url}?w=100`)).rawPayload).metadata()).width, 112);
      assert.equal((await sharp((await get(`${media.url}?w=2560`)).rawPayload).metadata()).width, 800);
    });

    test('a variant is encoded once: the next request is answered from the store', async () => {
      const media = await upload(await picture('jpeg', 640, 480, 2));
      const first = await get(`${media.url}?w=480`, { accept: 'image/webp' });
      assert.equal(first.headers['content-type'], 'image/webp');
      const key = `variants/${name(media.url).slice(0, 32)}-480.webp`;
      const kept = await store.get(key);
      assert.ok(kept && (await readAll(kept.body)).equals(first.rawPayload));
      // Replace the stored variant: what comes back now can only have come from the store.
      const marker = await sharp({ create: { width: 480, height: 10, channels: 3, background: 'red' } })
        .webp()
        .toBuffer();
      await store.put(key, marker, 'image/webp');
      const second = await get(`${media.url}?w=480`, { accept: 'image/webp' });
      assert.ok(second.rawPayload.equals(marker));
      assert.equal(second.headers.etag, first.headers.etag);
      const jpeg = await get(`${media.url}?w=480`);
      assert.equal(jpeg.headers['content-type'], 'image/jpeg');
    });

    test('bad widths → 400 naming w; a PDF has no width (400); an SVG is served as it is; a damaged picture as it is', async () => {
      const media = await upload(await picture('webp', 300, 200, 3));
      for (const w of ['63', '2561', 'abc', '1.5', '-64', '']) {
        const res = await get(`${media.url}?w=${w}`);
        assert.equal(res.statusCode, 400, `w=${w}`);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.equal(res.json().errors[0].path, '/w');
      }
      const pdf = await upload('%PDF-1.4\n%%EOF\n');
      const noWidth = await get(`${pdf.url}?w=640`);
      assert.equal(noWidth.statusCode, 400);
      assert.equal(noWidth.json().errors[0].path, '/w');
      const svg = await upload('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>');
      const asIs = await get(`${svg.url}?w=640`, { accept: AVIF_WEBP });
      assert.equal(asIs.statusCode, 200);
      assert.equal(asIs.headers['content-type'], 'image/svg+xml');
      assert.equal(asIs.body, (await get(svg.url)).body);
      // Starts like a JPEG and is not one: accepted on upload (recognised by its first bytes), not resizable.
      const broken = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(64, 7), Buffer.from([0xff, 0xd9])]);
      const damaged = await upload(broken);
      const res = await get(`${damaged.url}?w=320`, { accept: AVIF_WEBP });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'image/jpeg');
      assert.ok(res.rawPayload.equals(broken));
      assert.equal((await get('/media/0123456789abcdef0123456789abcdef.png?w=320')).statusCode, 404);
    });

    test('files no record refers to are deleted after MEDIA_ORPHAN_DAYS with their variants, once across nodes', async () => {
      const [kept, dropped, abandoned, revived, floorPlan, unitImage, groupImage] = (await Promise.all(
        [10, 11, 12, 13, 14, 15, 16].map(async (seed) => name((await upload(await picture('png', 128, 96, seed))).url)),
      )) as [string, string, string, string, string, string, string];
      const project = await createProject(t.app, auth, {
        body: { images: [`/media/${kept}`], projectImageUrl: `https://pages.example/media/${dropped}?w=640` },
      });
      const floor = await createFloor(t.app, auth, project._id, { body: { floorplanUrl: `/media/${floorPlan}` } });
      await createUnit(t.app, auth, project._id, { floor: floor._id, body: { images: [`/media/${unitImage}`] } });
      const group = await t.app.inject({ method: 'POST', url: '/groups?name=G', headers: auth, payload: { groupImageUrl: `/media/${groupImage}` } });
      assert.equal(group.statusCode, 201, group.body);
      for (const n of [kept, abandoned]) assert.equal((await get(`/media/${n}?w=64`)).statusCode, 200);
      const patch = (body: Record<string, unknown>) => t.app.inject({ method: 'PATCH', url: `/projects/${project._id}`, headers: auth, payload: body });

      const first = await t.app.mediaSweeper.tick();
      assert.ok(first.ran);
      // Another node ticking in the same interval does nothing.
      assert.deepEqual(await t.app.mediaSweeper.tick(), { ran: false });
      assert.deepEqual(first.deleted, []);

      await advance(3 * DAY);
      assert.equal((await patch({ projectImageUrl: '', alternativeCovers: [`/media/${revived}`] })).statusCode, 200);
      const second = await t.app.mediaSweeper.tick();
      assert.ok(second.ran);
      assert.deepEqual(second.deleted, []);

      // The never-referenced ones are 7 days unreferenced, `dropped` 4 (the hour covers the real time the uploads took).
      await advance(4 * DAY + HOUR);
      const third = await t.app.mediaSweeper.tick();
      assert.ok(third.ran);
      assert.ok(third.deleted.includes(abandoned));
      for (const n of [kept, dropped, revived, floorPlan, unitImage, groupImage]) assert.ok(!third.deleted.includes(n), n);
      assert.ok(third.variantsDeleted >= 1);
      const left = await keys();
      assert.ok(!left.includes(abandoned));
      assert.ok(!left.some((k) => k.startsWith(`variants/${abandoned.slice(0, 32)}`)));
      assert.ok(left.some((k) => k.startsWith(`variants/${kept.slice(0, 32)}`)));
      assert.equal((await get(`/media/${abandoned}`)).statusCode, 404);
      assert.equal((await get(`/media/${abandoned}?w=64`)).statusCode, 404);
      for (const n of [kept, dropped, revived, floorPlan, unitImage, groupImage]) assert.equal((await get(`/media/${n}`)).statusCode, 200, n);

      await advance(3 * DAY);
      const fourth = await t.app.mediaSweeper.tick();
      assert.ok(fourth.ran);
      assert.ok(fourth.deleted.includes(dropped));
      assert.equal((await get(`/media/${dropped}`)).statusCode, 404);
      for (const n of [kept, revived, floorPlan, unitImage, groupImage]) assert.equal((await get(`/media/${n}`)).statusCode, 200, n);
    });

    test("the buyer's page asks for the width it draws: srcset and sizes on an uploaded hero, none on an SVG logo", async () => {
      const hero = (await upload(await picture('jpeg', 1600, 900, 30))).url;
      const logo = (await upload('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 3"><rect width="10" height="3"/></svg>')).url;
      const namespace = `media-${Math.random().toString(36).slice(2, 8)}`;
      await createProject(t.app, auth, { query: { namespace }, body: { projectImageUrl: hero, sharePageLogo: logo } });
      // The page is served on the pages host (testConfig: PAGES_URL http://pages.localhost).
      const html = (await get(`/p/${namespace}`, { host: 'pages.localhost' })).body;
      const heroImg = /<img class="hero-img"[^>]*>/.exec(html)?.[0] ?? '';
      assert.match(heroImg, new RegExp(`srcset="[^"]*${hero}\\?w=640 640w[^"]*${hero}\\?w=2560 2560w"`));
      assert.match(heroImg, /sizes="100vw"/);
      assert.match(html, /<link rel="preload" as="image" [^>]*imagesrcset="[^"]*\?w=1280 1280w/);
      assert.doesNotMatch(/<img class="logo"[^>]*>/.exec(html)?.[0] ?? 'missing', /srcset/);
      const variant = await get(`${hero}?w=640`, { accept: AVIF_WEBP });
      assert.equal(variant.statusCode, 200);
      assert.equal((await sharp(variant.rawPayload).metadata()).width, 640);
    });

    test('uploading an unreferenced file again starts its time over', async () => {
      const body = await picture('png', 96, 64, 20);
      const n = name((await upload(body)).url);
      await advance(DAY);
      assert.ok((await t.app.mediaSweeper.tick()).ran);
      await advance(8 * DAY);
      // Uploaded anew the moment before the sweep that would have deleted it: the address handed out stays good.
      await upload(body);
      const sweep = await t.app.mediaSweeper.tick();
      assert.ok(sweep.ran);
      assert.ok(!sweep.deleted.includes(n));
      assert.equal((await get(`/media/${n}`)).statusCode, 200);
    });
  });
}
