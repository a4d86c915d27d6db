import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { createFloor, createProject, createUnit, ENGINE, freePort } from './helpers.ts';
import { api, base, heading, json, owner, page, pageErrors, shots, skip, status, t, useSignedInConsole } from './fixtures-console.ts';
import { PHONE, DESKTOP, shotsAtBothSizes } from './support/browser.ts';
import { startTileServer, type TileServer } from './support/map-tiles.ts';
import { layoutFrame } from '../web/map/layout-frame.ts';
import sharp from 'sharp';

/**
 * The console's Map tab (docs/console.md), in Chromium at a desktop's size and a phone's: the marker placed and the
 * perimeter drawn by clicks on a map (MapLibre from its own chunk, tiles from a local server; with the style
 * unreachable, on the blank ground), lots drawn over the site plan and floors over the building's picture by clicks
 * and by the keyboard; each read back from the API as saved, with If-Match.
 */
const tiles: TileServer = await startTileServer();
/** A style URL nothing answers (as on a machine with no network). */
const deadStyle = `http://127.0.0.1:${await freePort()}/style.json`;
after(async () => tiles.close());
useSignedInConsole({ shots: `console-place-${ENGINE}`, env: { MAP_STYLE_LIGHT: tiles.styleUrl, MAP_STYLE_DARK: deadStyle, MAP_CONNECT_ORIGINS: tiles.url } });

/** demo-hero.webp: 1280 × 720, the building's picture and the site plan alike. */
const PICTURE = '/p/assets/demo-hero.webp';
/** A marker picture: a green square. */
const MARKER_PNG = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#2e7d32' } })
  .png()
  .toBuffer();
const AT = { lat: 45.5017, lon: -73.5673 };
let projectId = '';
const unitIds: Record<string, string> = {};
const floorIds: Record<string, string> = {};

type Project = { lat: number; lon: number; perimeter?: string; __v: number };
const project = () => json<Project>('GET', `/projects/${projectId}`);

async function openTab() {
  await page.goto(`${base}/admin/projects/${projectId}/map`);
  await heading('Map and pictures');
}

/** The map has drawn its style (its own, or the blank ground); MapLibre is about 1 MB to parse on a busy machine. */
async function mapReady(style: 'loaded' | 'fallback') {
  await page.waitForSelector(`.map-draw[data-style="${style}"]`, { state: 'attached', timeout: 60_000 });
  await page.waitForFunction(() => {
    const map = (document.querySelector('.map-draw') as unknown as { maplibre?: { loaded(): boolean } }).maplibre;
    return !!map && map.loaded();
  });
}

/** Clicks the map `x`, `y` pixels into it; the place (lon, lat) the map says is there. */
async function clickMap(x: number, y: number): Promise<[number, number]> {
  // The whole map in view (a click beside the viewport lands nowhere).
  await page.evaluate(() => document.querySelector('.map-draw')?.scrollIntoView({ block: 'nearest' }));
  const box = (await page.locator('.map-draw').boundingBox())!;
  const at = await page.evaluate(
    ([x, y]) => {
      const map = (document.querySelector('.map-draw') as unknown as { maplibre: { unproject(p: [number, number]): { lng: number; lat: number } } }).maplibre;
      const l = map.unproject([x!, y!]);
      return [l.lng, l.lat] as [number, number];
    },
    [x, y],
  );
  await page.mouse.click(box.x + x, box.y + y);
  return at;
}

/** Within a screen pixel at zoom 17 (a click lands on a whole pixel). */
const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 2e-5, `${what}: ${a} vs ${b}`);

/**
 * Clicks a picture drawing at (x, y) of the picture's own pixels: a click on the drawing itself at that point of it
 * (scrolled into view and steady first, wherever the page has scrolled to), never at a place on the screen measured
 * before (on a phone the list beside the picture scrolls the page when an item is picked).
 */
async function clickPicture(frame: Locator, x: number, y: number, size = { w: 1280, h: 720 }) {
  const svg = frame.locator('svg');
  const box = (await svg.boundingBox())!;
  await svg.click({ position: { x: (x / size.w) * box.width, y: (y / size.h) * box.height } });
}

describe(`the console's Map tab in Chromium (${ENGINE})`, { skip }, () => {
  before(async () => {
    const p = await createProject(t.app, owner.auth, {
      name: 'Harbour Lots',
      body: { lat: AT.lat, lon: AT.lon, zoomLevel: 17, mapStyle: 'Light', projectImageUrl: PICTURE, layoutImageUrl: PICTURE },
    });
    projectId = p._id;
    for (const name of ['Level 1', 'Level 2']) floorIds[name] = (await createFloor(t.app, owner.auth, projectId, { name }))._id;
    for (const name of ['A1', 'A2']) unitIds[name] = (await createUnit(t.app, owner.auth, projectId, { name, floor: floorIds['Level 1'] }))._id;
  });

  test('desktop: the marker placed by a click on the map, saved with If-Match (a 412 said, then saved); the perimeter drawn by clicks, undo, saved', async () => {
    await page.setViewportSize(DESKTOP);
    const before = tiles.requested.length;
    await openTab();
    await mapReady('loaded');
    assert.ok(
      tiles.requested.slice(before).some((p) => p.startsWith('/tiles/')),
      'tiles from the local server',
    );
    assert.ok(
      await page.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/admin-map-draw\.\w+\.js$/.test(e.name))),
      "the map's own chunk",
    );

    const [lon, lat] = await clickMap(200, 150);
    await page.getByText(/^Marker at .*\(not saved\)\.$/).waitFor();
    // Someone else changes the project meanwhile: the save is refused (412), said, and the project reloaded.
    const res = await api('PATCH', `/projects/${projectId}`, { address: '1 Quay Street' });
    assert.equal(res.statusCode, 200);
    await page.getByRole('button', { name: 'Save location' }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone else changed this project meanwhile' }).waitFor();
    await page.getByRole('button', { name: 'Save location' }).click();
    await status('Location saved.');
    const saved = await project();
    near(saved.lat, lat, 'lat');
    near(saved.lon, lon, 'lon');

    await page.getByRole('radio', { name: 'Outline (perimeter)' }).click();
    const corners: [number, number][] = [];
    for (const [x, y] of [
      [120, 80],
      [380, 90],
      [360, 300],
      [140, 280],
    ] as const)
      corners.push(await clickMap(x, y));
    await clickMap(250, 380); // a stray corner…
    await page.getByRole('button', { name: 'Undo' }).click(); // …undone
    await page.waitForSelector('.map-draw[data-corners="4"]', { state: 'attached' });
    await shotsAtBothSizes(page, `console-place-${ENGINE}-perimeter-drawing`, { at: '.map-draw' });
    await page.getByRole('button', { name: 'Save outline' }).click();
    await status('Outline saved.');
    const pairs = (await project()).perimeter!.split(' ').map((p) => p.split(',').map(Number));
    assert.equal(pairs.length, 4);
    pairs.forEach(([la, lo], i) => {
      near(la!, corners[i]![1], `corner ${i + 1} lat`);
      near(lo!, corners[i]![0], `corner ${i + 1} lon`);
    });

    // The keyboard: a corner focused and moved with an arrow key, one added at the map's centre; Clear and save removes the outline.
    await page.getByRole('button', { name: /^Corner 1 of 4/ }).focus();
    await page.keyboard.press('Shift+ArrowRight');
    await page.getByRole('button', { name: "Add a corner at the map's centre" }).click();
    await page.waitForSelector('.map-draw[data-corners="5"]', { state: 'attached' });
    await page.getByRole('button', { name: 'Save outline' }).click();
    await status('Outline saved.');
    const moved = (await project()).perimeter!.split(' ').map((p) => p.split(',').map(Number));
    assert.equal(moved.length, 5);
    assert.ok(moved[0]![1]! > corners[0]![0], 'the first corner moved east');
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('button', { name: 'Save without an outline' }).click();
    await status('Outline removed.');
    assert.equal((await project()).perimeter ?? '', '');
  });

  test('phone: with the map style unreachable, the blank ground still takes the marker by a tap', async () => {
    await json('PATCH', `/projects/${projectId}`, { mapStyle: 'Dark' });
    try {
      await page.setViewportSize(PHONE);
      await openTab();
      await mapReady('fallback');
      const [lon, lat] = await clickMap(120, 140);
      await page.getByRole('button', { name: 'Save location' }).click();
      await status('Location saved.');
      const saved = await project();
      near(saved.lat, lat, 'lat');
      near(saved.lon, lon, 'lon');
      await page.locator('.map-draw').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `test-results/console-place-${ENGINE}-blank-map-phone.png` });
    } finally {
      await json('PATCH', `/projects/${projectId}`, { mapStyle: 'Light' });
      await page.setViewportSize(DESKTOP);
    }
  });

  for (const size of ['desktop', 'phone'] as const)
    test(`${size}: lots drawn over the site plan by clicks (undo), and by the keyboard; saved as the units' lotPath`, async () => {
      await page.setViewportSize(size === 'phone' ? PHONE : DESKTOP);
      await openTab();
      const lots = page.locator('#place-lots');
      const frame = lots.locator('.picture-frame');
      await lots.getByRole('button', { name: /^A1 / }).click();
      await lots.getByRole('heading', { name: 'Drawing A1' }).waitFor();
      // The grid on a 1280-wide picture is 20 px: corners snap to it.
      for (const [x, y] of [
        [101, 99],
        [398, 103],
        [402, 297],
        [99, 301],
        [700, 600],
      ] as const)
        await clickPicture(frame, x, y);
      await lots.getByRole('button', { name: 'Undo' }).click();
      await lots.getByRole('button', { name: 'Save shape' }).click();
      await lots.getByRole('status').filter({ hasText: 'A1: shape saved.' }).waitFor();
      const a1 = await json<{ lotPath?: string }>('GET', `/units/${unitIds.A1}`);
      assert.equal(a1.lotPath, 'M100 100 L400 100 L400 300 L100 300 Z');

      // A2 by the keyboard: the drawing focused, the arrows move the cross (Shift: ten grid steps), Enter adds a corner.
      await lots.getByRole('button', { name: /^A2 / }).click();
      await lots.getByRole('heading', { name: 'Drawing A2' }).waitFor();
      await frame.locator('svg').focus();
      // The cross starts at the middle, 640, 360.
      for (const keys of [['Enter'], ['Shift+ArrowRight', 'Enter'], ['Shift+ArrowDown', 'Enter']]) for (const k of keys) await page.keyboard.press(k);
      await frame.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `test-results/console-place-${ENGINE}-lots-drawing-${size}.png` });
      await lots.getByRole('button', { name: 'Save shape' }).click();
      await lots.getByRole('status').filter({ hasText: 'A2: shape saved.' }).waitFor();
      const a2 = await json<{ lotPath?: string }>('GET', `/units/${unitIds.A2}`);
      assert.equal(a2.lotPath, 'M640 360 L840 360 L840 560 Z');

      // Clear: A2 chosen again, started again and saved without a shape.
      await lots.getByRole('button', { name: /^A2 / }).click();
      await lots.getByRole('button', { name: 'Start again' }).click();
      await lots.getByRole('button', { name: 'Save without a shape' }).click();
      await lots.getByRole('status').filter({ hasText: 'A2: shape removed.' }).waitFor();
      assert.equal((await json<{ lotPath?: string }>('GET', `/units/${unitIds.A2}`)).lotPath ?? '', '');
      await page.setViewportSize(DESKTOP);
    });

  test('desktop: a floor drawn over the building picture with two shapes (path and alternativePaths), saved with If-Match', async () => {
    await page.setViewportSize(DESKTOP);
    await openTab();
    const floors = page.locator('#place-floors');
    const frame = floors.locator('.picture-frame');
    await floors.getByRole('button', { name: /^Level 2 / }).click();
    await floors.getByRole('heading', { name: 'Drawing Level 2' }).waitFor();
    for (const [x, y] of [
      [300, 400],
      [900, 400],
      [900, 520],
      [300, 520],
    ] as const)
      await clickPicture(frame, x, y);
    await floors.getByRole('button', { name: 'Add another shape' }).click();
    await floors.getByRole('heading', { name: 'Drawing Level 2, shape 2 of 2' }).waitFor();
    for (const [x, y] of [
      [1000, 400],
      [1200, 400],
      [1200, 520],
    ] as const)
      await clickPicture(frame, x, y);
    await shots('floors-drawing');
    await floors.getByRole('button', { name: 'Save shapes' }).click();
    await floors.getByRole('status').filter({ hasText: 'Level 2: 2 shapes saved.' }).waitFor();
    const f = await json<{ path?: string; alternativePaths?: string[] }>('GET', `/floors/${floorIds['Level 2']}`);
    assert.equal(f.path, 'M300 400 L900 400 L900 520 L300 520 Z');
    assert.deepEqual(f.alternativePaths, ['M1000 400 L1200 400 L1200 520 Z']);
    await shots('floors-drawn');
    assert.deepEqual(pageErrors, []);
  });
  test("desktop: the map's settings shown on the tab's map as typed (zoom, style, colour, marker, its picture, Directions, the site plan's width and turn, what the lots are drawn over); saved together with If-Match, a 412 said and the draft kept", async () => {
    await page.setViewportSize(DESKTOP);
    await openTab();
    await mapReady('loaded');
    const frame = page.locator('.map-draw');
    const box = page.locator('.map-settings');
    const zoom = () => page.evaluate(() => (document.querySelector('.map-draw') as unknown as { maplibre: { getZoom(): number } }).maplibre.getZoom());

    // Zoom, typed key by key: the map follows.
    const zoomField = box.getByLabel('Zoom (1 to 22)');
    await zoomField.fill('');
    await zoomField.pressSequentially('19');
    await page.waitForFunction(
      () => Math.abs((document.querySelector('.map-draw') as unknown as { maplibre: { getZoom(): number } }).maplibre.getZoom() - 19) < 0.01,
    );
    // The map zoomed out by its own button: "use the map's zoom now" takes it.
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await page.waitForFunction(() => (document.querySelector('.map-draw') as unknown as { maplibre: { getZoom(): number } }).maplibre.getZoom() < 18.5);
    await box.getByRole('button', { name: /^Use the map's zoom now \(18\)$/ }).click();
    assert.equal(await zoomField.inputValue(), '18');
    assert.ok(Math.abs((await zoom()) - 18) < 0.01);

    // Colour typed: the marker and the outline take it.
    const colour = box.getByRole('textbox', { name: 'Marker and outline colour', exact: true });
    await colour.pressSequentially('#00695c');
    await page.waitForSelector('.map-draw[data-colour="#00695c"]', { state: 'attached' });
    assert.equal(await frame.locator('.map-marker path').getAttribute('fill'), '#00695c');
    // The marker's shape: a dot.
    await box.getByLabel('Marker', { exact: true }).selectOption('dot');
    await page.waitForSelector('.map-draw .map-marker-dot');
    assert.equal(await frame.locator('.map-marker circle').getAttribute('fill'), '#00695c');
    // The marker's picture replaces it.
    await box.locator('input[type=file]').first().setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: MARKER_PNG });
    await page.waitForSelector('.map-draw .map-marker-image img');
    const markerImage = await frame.locator('.map-marker-image img').getAttribute('src');
    assert.match(markerImage ?? '', /^\/media\//);
    // Directions: the section's line as the page will read it.
    await box.getByLabel('Directions link').check();
    await box.getByText(/· View on map · Directions$/).waitFor();

    // The site plan placed on the map as the page places it: 160 m wide, turned 20°.
    const width = box.getByLabel('Site plan width on the ground (metres)');
    await width.pressSequentially('160');
    await box.getByLabel('Site plan turn (degrees clockwise)').pressSequentially('20');
    await page.waitForSelector('.map-draw[data-layout="160 20"]', { state: 'attached' });
    const corners = await page.evaluate(
      () =>
        (document.querySelector('.map-draw') as unknown as { maplibre: { getSource(id: string): { coordinates: [number, number][] } } }).maplibre.getSource(
          'layout',
        ).coordinates,
    );
    const saved = await project();
    const expected = layoutFrame([saved.lon, saved.lat], 160, 20, { w: 1280, h: 720 }).corners;
    corners.forEach((c, i) => {
      near(c[0], expected[i]![0], `layout corner ${i + 1} lon`);
      near(c[1], expected[i]![1], `layout corner ${i + 1} lat`);
    });
    await shotsAtBothSizes(page, `console-place-${ENGINE}-map-settings`, { at: '.map-draw' });
    // Lots over the flat site plan: the map no longer shows the picture.
    await box.getByLabel('The lots are drawn over').selectOption('plan');
    await page.waitForFunction(() => !(document.querySelector('.map-draw') as HTMLElement).dataset.layout);

    // Style: Dark (its host unreachable here): the map switches, then draws on the blank ground.
    await box.getByLabel('Map style').selectOption('Dark');
    await page.waitForSelector(`.map-draw[data-style-url="${deadStyle}"][data-style="fallback"]`, { state: 'attached', timeout: 60_000 });
    await page.waitForSelector('.map-draw .map-marker-image img');

    // Someone else saves meanwhile: 412, said; the draft is kept and saves on the second try.
    assert.equal((await api('PATCH', `/projects/${projectId}`, { address: '2 Quay Street' })).statusCode, 200);
    await box.getByText('9 unsaved changes').waitFor();
    await box.getByRole('button', { name: 'Save map settings' }).click();
    await box.getByRole('alert').filter({ hasText: 'Someone else changed this project meanwhile' }).waitFor();
    await box.getByText('9 unsaved changes').waitFor();
    assert.equal(await zoomField.inputValue(), '18');
    await box.getByRole('button', { name: 'Save map settings' }).click();
    await box.getByRole('status').filter({ hasText: 'Saved 9 map settings.' }).waitFor();
    const after = await json('GET', `/projects/${projectId}`);
    assert.deepEqual(
      Object.fromEntries(
        ['zoomLevel', 'mapStyle', 'mapPointColor', 'targetMarker', 'markerImageUrl', 'mapDirections', 'mapLayoutWidth', 'mapLayoutRotation', 'lotsLayout'].map(
          (k) => [k, after[k]],
        ),
      ),
      {
        zoomLevel: 18,
        mapStyle: 'Dark',
        mapPointColor: '#00695c',
        targetMarker: 'dot',
        markerImageUrl: markerImage,
        mapDirections: true,
        mapLayoutWidth: 160,
        mapLayoutRotation: 20,
        lotsLayout: 'plan',
      },
    );
    assert.equal(after.address, '2 Quay Street', "the other person's change kept");
    await json('PATCH', `/projects/${projectId}`, { mapStyle: 'Light', markerImageUrl: '', targetMarker: 'pin', lotsLayout: '', zoomLevel: 17 });
    assert.deepEqual(pageErrors, []);
  });

  test("desktop: a unit's lot drawn on the map by clicks (undo), a corner moved by keys, one added under the keyboard's cross; saved as its perimeter with If-Match (a 412 said, corners kept); cleared", async () => {
    await page.setViewportSize(DESKTOP);
    // A2 is placed by its lat/lon alone: a point on the map while A1 is drawn.
    await json('PATCH', `/units/${unitIds.A2}`, { lat: AT.lat + 0.0003, lon: AT.lon - 0.0003 });
    await openTab();
    await mapReady('loaded');
    await page.getByRole('radio', { name: "A unit's lot" }).click();
    await page
      .getByRole('list', { name: 'Units: lots on the map' })
      .getByRole('button', { name: /^A2 a point$/ })
      .waitFor();
    await page.getByRole('list', { name: 'Units: lots on the map' }).getByRole('button', { name: /^A1 / }).click();
    await page.getByRole('heading', { name: "Drawing A1's lot" }).waitFor();
    await page.waitForSelector('.map-draw[data-lots="1"]', { state: 'attached' });
    const corners: [number, number][] = [];
    for (const [x, y] of [
      [150, 100],
      [350, 110],
      [330, 280],
    ] as const)
      corners.push(await clickMap(x, y));
    await clickMap(500, 380);
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.waitForSelector('.map-draw[data-corners="3"]', { state: 'attached' });

    // Someone else edits A1 meanwhile: the save is refused (412), said, and the corners stay.
    assert.equal((await api('PATCH', `/units/${unitIds.A1}`, { description: 'Corner lot' })).statusCode, 200);
    await page.getByRole('button', { name: 'Save lot' }).click();
    await page.getByRole('alert').filter({ hasText: 'A1 was changed by someone else meanwhile' }).waitFor();
    assert.equal(await page.locator('.map-draw').getAttribute('data-corners'), '3');
    await page.getByRole('button', { name: 'Save lot' }).click();
    await status('A1: lot saved.');
    const pairs = (await json<{ perimeter?: string }>('GET', `/units/${unitIds.A1}`)).perimeter!.split(' ').map((p) => p.split(',').map(Number));
    assert.equal(pairs.length, 3);
    pairs.forEach(([la, lo], i) => {
      near(la!, corners[i]![1], `corner ${i + 1} lat`);
      near(lo!, corners[i]![0], `corner ${i + 1} lon`);
    });

    // Keys: corner 1 moved east; then the map focused, moved under its cross by an arrow key, and Enter adds a corner there.
    await page.getByRole('button', { name: /^Corner 1 of 3/ }).focus();
    await page.keyboard.press('Shift+ArrowRight');
    await page.locator('.map-draw canvas').focus();
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => {
      const map = (document.querySelector('.map-draw') as unknown as { maplibre: { isMoving(): boolean } }).maplibre;
      return !map.isMoving();
    });
    assert.ok(await page.locator('.map-cross').isVisible(), "the keyboard's cross at the map's middle");
    const centre = await page.evaluate(() => {
      const c = (document.querySelector('.map-draw') as unknown as { maplibre: { getCenter(): { lng: number; lat: number } } }).maplibre.getCenter();
      return [c.lng, c.lat] as [number, number];
    });
    await page.keyboard.press('Enter');
    await page.waitForSelector('.map-draw[data-corners="4"]', { state: 'attached' });
    await shotsAtBothSizes(page, `console-place-${ENGINE}-unit-lot`, { at: '#place-location' });
    await page.getByRole('button', { name: 'Save lot' }).click();
    await status('A1: lot saved.');
    const moved = (await json<{ perimeter?: string }>('GET', `/units/${unitIds.A1}`)).perimeter!.split(' ').map((p) => p.split(',').map(Number));
    assert.equal(moved.length, 4);
    assert.ok(moved[0]![1]! > corners[0]![0], 'the first corner moved east');
    near(moved[3]![0]!, centre[1], 'the cross corner lat');
    near(moved[3]![1]!, centre[0], 'the cross corner lon');

    // Clear and save: the lot is gone.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('button', { name: 'Save without a lot' }).click();
    await status('A1: lot removed.');
    assert.equal((await json<{ perimeter?: string }>('GET', `/units/${unitIds.A1}`)).perimeter ?? '', '');
    await json('PATCH', `/units/${unitIds.A2}`, { lat: 0, lon: 0 });
    assert.deepEqual(pageErrors, []);
  });
});
