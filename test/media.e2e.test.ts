import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { launchBrowser, skip, twoOrigins } from './support/browser.ts';
import { buildTestApp, createFloor, createProject, createUnit, userWithToken, type TestApp } from './helpers.ts';

/** A plain picture of one colour, `width` × `height`, as a PNG. */
const picture = (width: number, height: number, r: number) =>
  sharp({ create: { width, height, channels: 3, background: { r, g: 90, b: 160 } } })
    .png()
    .toBuffer();

describe("the buyer's page asks for uploaded pictures at the width it draws them (Chromium)", { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let namespace: string;
  let unitId: string;

  before(async () => {
    // The API on localhost, the buyer's pages on 127.0.0.1 (one port), as `npm start` serves them.
    const origins = await twoOrigins();
    t = await buildTestApp({ env: origins.env });
    await t.app.listen({ port: origins.port, host: '127.0.0.1' });
    base = origins.pagesBase;
    const api = origins.consoleBase;
    const { auth } = await userWithToken(t);
    const upload = async (body: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(body)]), 'p.png');
      const res = await fetch(`${api}/media`, { method: 'POST', body: form, headers: auth });
      assert.equal(res.status, 201);
      return ((await res.json()) as { url: string }).url;
    };
    const [hero, cover, photo] = [
      await upload(await picture(2400, 1350, 10)),
      await upload(await picture(1200, 800, 20)),
      await upload(await picture(1600, 1200, 30)),
    ];
    namespace = `media-e2e-${Math.random().toString(36).slice(2, 8)}`;
    const project = await createProject(t.app, auth, { query: { namespace }, body: { projectImageUrl: hero, alternativeCovers: [cover] } });
    const floor = await createFloor(t.app, auth, project._id);
    unitId = (await createUnit(t.app, auth, project._id, { floor: floor._id, body: { images: [photo], unitImageUrl: photo } }))._id;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function mediaRequests(path: string, viewport: { width: number; height: number }) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 2 });
    const page = await context.newPage();
    const seen: { url: string; type: string | undefined }[] = [];
    page.on('response', (res) => {
      if (new URL(res.url()).pathname.startsWith('/media/')) seen.push({ url: res.url(), type: res.headers()['content-type'] });
    });
    await page.goto(`${base}${path}`, { waitUntil: 'networkidle' });
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForLoadState('networkidle');
    await context.close();
    return seen;
  }

  test('phone: the hero, the gallery and the unit cards come as AVIF variants no wider than drawn at 2×; never the original', async () => {
    const seen = await mediaRequests(`/p/${namespace}`, { width: 390, height: 844 });
    assert.equal(new Set(seen.map((r) => new URL(r.url).pathname)).size, 3, JSON.stringify(seen)); // hero, cover, unit photo
    for (const r of seen) {
      const w = Number(new URL(r.url).searchParams.get('w'));
      assert.ok(w >= 160 && w <= 960, `${r.url} asks for a width that fits 390 px at 2×`);
      assert.equal(r.type, 'image/avif', r.url);
    }
  });

  test("desktop: the unit's own address draws its photos through variants too", async () => {
    const seen = await mediaRequests(`/p/${namespace}/units/${unitId}`, { width: 1280, height: 800 });
    assert.ok(seen.length >= 1, JSON.stringify(seen));
    for (const r of seen) assert.ok(new URL(r.url).searchParams.has('w'), r.url);
  });
});
