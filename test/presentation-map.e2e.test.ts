import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { STATUS_COLOURS } from '../web/status-colours.ts';
import { createGroup, createProject, freePort } from './helpers.ts';
import { startTileServer, type TileServer } from './support/map-tiles.ts';
import {
  base,
  browser,
  close,
  namespace,
  noise,
  openPage,
  owner,
  patchProject,
  patchUnit,
  PROJECT,
  projectId,
  SHOTS,
  skip,
  t,
  units,
  usePresentation,
  type Size,
} from './presentation-fixture.ts';
import { ENGINE } from './helpers.ts';

/**
 * Where the homes are (docs/map.md), in Chromium at a phone's size and a desktop's: the map loads only when it scrolls
 * into view, draws the marker, the perimeter, the site plan and the lots (coloured by status, opening their unit) from
 * a local tile server, and still draws them when the style and its tiles cannot be reached; Directions only with
 * `mapDirections`; the keyboard reaches the map and the marker. The flat site plan of a project with no location, and
 * the group page's map.
 */
const tiles: TileServer = await startTileServer();
/** A style URL nothing answers (as on a machine with no network). */
const deadStyle = `http://127.0.0.1:${await freePort()}/style.json`;
after(async () => tiles.close());
usePresentation({ env: () => ({ MAP_STYLE_LIGHT: tiles.styleUrl, MAP_STYLE_DARK: deadStyle, MAP_CONNECT_ORIGINS: tiles.url }) });

const SIZES: Record<Size, Parameters<typeof browser.newContext>[0]> = {
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
  desktop: { viewport: { width: 1440, height: 900 } },
};
const AT = { lat: 45.5017, lon: -73.5673 };
/** A square lot `d` degrees wide whose south-west corner is `dx`, `dy` degrees from the location, as "lat,lon" pairs. */
const square = (dx: number, dy: number, d = 0.0004) => {
  const [s, w] = [AT.lat + dy, AT.lon + dx];
  return `${s},${w} ${s},${w + d} ${s + d},${w + d} ${s + d},${w}`;
};
const PERIMETER = `{"type":"Polygon","coordinates":[[[${AT.lon - 0.0015},${AT.lat - 0.001}],[${AT.lon + 0.0015},${AT.lat - 0.001}],[${AT.lon + 0.0015},${AT.lat + 0.001}],[${AT.lon - 0.0015},${AT.lat + 0.001}],[${AT.lon - 0.0015},${AT.lat - 0.001}]]]}`;
const MAPPED = { lat: AT.lat, lon: AT.lon, zoomLevel: 17, mapStyle: 'Light', perimeter: PERIMETER, mapPointColor: '#6a1b9a', mapDirections: false };

async function open(size: Size, path = `/p/${namespace}?view=list`): Promise<Page> {
  return openPage(size, path, { context: await browser.newContext(SIZES[size]) });
}

/** The map chunk's script among what the page fetched. */
const chunkLoaded = (page: Page) => page.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/app-map-view\.\w+\.js$/.test(e.name)));

async function scrollToMap(page: Page) {
  await page.locator('#map-section').scrollIntoViewIfNeeded();
  // MapLibre is about 1 MB to parse: on a busy machine that takes a while.
  await page.waitForSelector('#map[data-ready="true"]', { state: 'attached', timeout: SLOW }).catch((err: Error) => {
    throw new Error(`${err.message}\n${noise.get(page)?.join('\n')}`);
  });
}

/** What the map drew: each lot's colour by unit id, and whether the perimeter is among the rendered features. */
async function drawn(page: Page) {
  await page.waitForFunction(
    () => {
      const map = (document.getElementById('map') as unknown as { maplibre?: { loaded(): boolean } }).maplibre;
      return !!map && map.loaded();
    },
    undefined,
    { timeout: SLOW },
  );
  return page.evaluate(() => {
    type Feature = { properties: Record<string, string> };
    const map = (document.getElementById('map') as unknown as { maplibre: { queryRenderedFeatures(o: { layers: string[] }): Feature[] } }).maplibre;
    const lots: Record<string, string> = {};
    for (const f of map.queryRenderedFeatures({ layers: ['lots-fill'] })) lots[f.properties.id!] = f.properties.colour!;
    const points: Record<string, string> = {};
    for (const f of map.queryRenderedFeatures({ layers: ['lots-point'] })) points[f.properties.id!] = f.properties.colour!;
    return { lots, points, perimeter: map.queryRenderedFeatures({ layers: ['perimeter-line'] }).length };
  });
}

/** The screen point of a lot's centre (a square from `square`). */
async function lotPoint(page: Page, dx: number, dy: number, d = 0.0004) {
  const [x, y] = await page.evaluate(
    ([lon, lat]) => {
      const map = (document.getElementById('map') as unknown as { maplibre: { project(p: [number, number]): { x: number; y: number } } }).maplibre;
      const p = map.project([lon!, lat!]);
      return [p.x, p.y];
    },
    [AT.lon + dx + d / 2, AT.lat + dy + d / 2],
  );
  const box = (await page.locator('#map').boundingBox())!;
  return { x: box.x + x!, y: box.y + y! };
}

/** How long the map may take to arrive and draw (a bound, not a measure: the tests wait for what the map says it drew). */
const SLOW = 60_000;

const shot = (page: Page, name: string, size: Size) => page.screenshot({ path: `${SHOTS}/map-${name}-${size}-${ENGINE}.png` });

describe('the map on the buyer page in Chromium', { skip }, () => {
  before(async () => {
    await patchProject(MAPPED);
    await patchUnit('A1', { perimeter: square(0.0002, 0.0001) });
    await patchUnit('A2', { perimeter: square(-0.0007, 0.0001), availability: 'sold' });
  });
  after(async () => {
    await patchUnit('A1', { perimeter: '' });
    await patchUnit('A2', { perimeter: '', availability: 'available' });
    await patchProject({ lat: 0, lon: 0, perimeter: '', zoomLevel: 0 });
  });

  for (const size of ['phone', 'desktop'] as const) {
    test(`${size}: the map's chunk loads only once it scrolls into view; marker, perimeter and lots coloured by status from the local tiles`, async () => {
      const page = await open(size);
      const before = tiles.requested.length;
      assert.equal(await chunkLoaded(page), false, 'no map chunk on the first load');
      assert.equal(await page.locator('#map-section .map-address').textContent(), PROJECT.address, 'the address as text');
      assert.equal(await page.locator('#map').getAttribute('aria-label'), `View on map: ${PROJECT.address}`);
      assert.equal(await page.locator('#map-directions').count(), 0, 'no Directions without mapDirections');
      await scrollToMap(page);
      assert.equal(await chunkLoaded(page), true, 'the chunk once the map is in view');
      const seen = await drawn(page);
      assert.equal(await page.locator('#map').getAttribute('data-style'), 'loaded');
      assert.ok(tiles.requested.slice(before).includes('/style.json'), 'the style from the local server');
      assert.ok(
        tiles.requested.slice(before).some((p) => p.startsWith('/tiles/')),
        'tiles from the local server',
      );
      assert.ok(seen.perimeter > 0, 'the perimeter is drawn');
      assert.equal(seen.lots[units.A1!], PROJECT.colorAvailable, "an available lot in the project's own available colour");
      assert.equal(seen.lots[units.A2!], STATUS_COLOURS.sold, 'a sold lot in the sold colour');
      const marker = page.locator('#map .map-marker');
      assert.equal(await marker.count(), 1);
      assert.equal(await marker.getAttribute('aria-label'), `Quayside Lofts, ${PROJECT.address}`);
      assert.equal(await marker.locator('path').getAttribute('fill'), '#6a1b9a', 'a pin in mapPointColor');
      await shot(page, 'tiles', size);
      // A lot opens its unit, as on the floor plan.
      const p = await lotPoint(page, 0.0002, 0.0001);
      await (size === 'phone' ? page.touchscreen.tap(p.x, p.y) : page.mouse.click(p.x, p.y));
      await page.waitForFunction((name) => (document.querySelector('dialog[open] #unit-title')?.textContent ?? '').startsWith(name), 'A1');
      assert.match(page.url(), new RegExp(`/units/${units.A1}`));
      // Nothing refused by the CSP, no error; software WebGL's performance notes aside.
      assert.deepEqual(
        noise.get(page)!.filter((l) => !/GL Driver Message/.test(l)),
        [],
      );
      await close(page);
    });

    test(`${size}: with the style and its tiles unreachable, the marker and the perimeter still draw`, async () => {
      await patchProject({ mapStyle: 'Dark' });
      try {
        const page = await open(size);
        await scrollToMap(page);
        await page.waitForSelector('#map[data-style="fallback"]', { state: 'attached', timeout: SLOW });
        const seen = await drawn(page);
        assert.ok(seen.perimeter > 0, 'the perimeter on the blank ground');
        assert.equal(Object.keys(seen.lots).length, 2, 'both lots');
        assert.ok(await page.locator('#map .map-marker').isVisible());
        await shot(page, 'offline', size);
        await close(page);
      } finally {
        await patchProject({ mapStyle: 'Light' });
      }
    });
  }

  for (const size of ['phone', 'desktop'] as const)
    test(`${size}: a unit placed by its lat/lon alone is a point on the map in its status colour; Tab reaches it by name, a tap or a click opens it`, async () => {
      const at = { lat: AT.lat - 0.0004, lon: AT.lon + 0.0006 };
      await patchUnit('A3', { ...at, availability: 'reserved' });
      try {
        const page = await open(size);
        await scrollToMap(page);
        await page.waitForSelector('#map[data-lots="3"]', { state: 'attached', timeout: SLOW });
        const seen = await drawn(page);
        assert.deepEqual(seen.points, { [units.A3!]: STATUS_COLOURS.reserved }, 'one point, in the reserved colour');
        assert.equal(Object.keys(seen.lots).length, 2, 'the outlined lots stay outlines');
        assert.equal(await page.getByRole('button', { name: 'A3: Reserved' }).count(), 1);
        await shot(page, 'unit-point', size);
        const [x, y] = await page.evaluate(
          ([lon, lat]) => {
            const map = (document.getElementById('map') as unknown as { maplibre: { project(p: [number, number]): { x: number; y: number } } }).maplibre;
            const p = map.project([lon!, lat!]);
            return [p.x, p.y];
          },
          [at.lon, at.lat],
        );
        const box = (await page.locator('#map').boundingBox())!;
        await (size === 'phone' ? page.touchscreen.tap(box.x + x!, box.y + y!) : page.mouse.click(box.x + x!, box.y + y!));
        await page.waitForFunction((name) => (document.querySelector('dialog[open] #unit-title')?.textContent ?? '').startsWith(name), 'A3');
        assert.match(page.url(), new RegExp(`/units/${units.A3}`));
        await close(page);
      } finally {
        await patchUnit('A3', { lat: 0, lon: 0, availability: 'available' });
      }
    });

  test('showAvailability false: every lot in one neutral colour', async () => {
    await patchProject({ showAvailability: false });
    try {
      const page = await open('desktop');
      await scrollToMap(page);
      const seen = await drawn(page);
      const colours = new Set(Object.values(seen.lots));
      assert.equal(Object.keys(seen.lots).length, 2);
      assert.equal(colours.size, 1, [...colours].join());
      assert.ok(!colours.has(STATUS_COLOURS.sold) && !colours.has(PROJECT.colorAvailable), 'no status colour');
      await close(page);
    } finally {
      await patchProject({ showAvailability: true });
    }
  });

  test('mapDirections: a Directions link to the location that opens the maps app', async () => {
    await patchProject({ mapDirections: true });
    try {
      const page = await open('phone');
      const href = await page.locator('#map-directions').getAttribute('href');
      assert.equal(href, `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(`${AT.lat},${AT.lon}`)}`);
      assert.equal(await page.locator('#map-directions').textContent(), 'Directions');
      await close(page);
    } finally {
      await patchProject({ mapDirections: false });
    }
  });

  test('keyboard: Tab reaches the map (+ zooms in) and the marker, which is named', async () => {
    const page = await open('desktop');
    await scrollToMap(page);
    await drawn(page);
    await page.locator('#map-view-link').focus();
    const reached: string[] = [];
    for (let i = 0; i < 8 && reached.length < 8; i++) {
      await page.keyboard.press('Tab');
      const what = await page.evaluate(() => {
        const a = document.activeElement;
        if (!a) return '';
        if (a.classList.contains('maplibregl-canvas')) return 'canvas';
        if (a.classList.contains('map-marker')) return `marker:${a.getAttribute('aria-label')}`;
        return a.closest('#map') ? `map:${a.getAttribute('aria-label') ?? a.tagName}` : a.tagName;
      });
      reached.push(what);
      if (what === 'canvas') {
        const zoom = () => page.evaluate(() => (document.getElementById('map') as unknown as { maplibre: { getZoom(): number } }).maplibre.getZoom());
        const before = await zoom();
        await page.keyboard.press('+');
        await page.waitForFunction((z) => (document.getElementById('map') as unknown as { maplibre: { getZoom(): number } }).maplibre.getZoom() > z, before);
      }
    }
    assert.ok(reached.includes('canvas'), reached.join(' → '));
    assert.ok(reached.includes(`marker:Quayside Lofts, ${PROJECT.address}`), reached.join(' → '));
    await close(page);
  });

  for (const size of ['phone', 'desktop'] as const)
    test(`${size}: keyboard and screen readers: Tab reaches each lot after the marker, named by its unit and status; Enter opens the unit`, async () => {
      const page = await open(size);
      await scrollToMap(page);
      await drawn(page);
      await page.locator('#map .map-marker').focus();
      const names: string[] = [];
      for (let i = 0; i < 2; i++) {
        await page.keyboard.press('Tab');
        names.push(
          await page.evaluate(() => (document.activeElement?.classList.contains('map-lot') ? (document.activeElement.getAttribute('aria-label') ?? '') : '')),
        );
      }
      assert.deepEqual(names.sort(), ['A1: Available', 'A2: Sold']);
      // The lot's button is a button to assistive technology, named as the lot.
      const lot = page.getByRole('button', { name: 'A1: Available' });
      assert.equal(await lot.count(), 1);
      await lot.focus();
      await shot(page, 'lot-focused', size);
      await page.keyboard.press('Enter');
      await page.waitForFunction((name) => (document.querySelector('dialog[open] #unit-title')?.textContent ?? '').startsWith(name), 'A1');
      assert.match(page.url(), new RegExp(`/units/${units.A1}`));
      await close(page);
    });
});

describe('the site plan in Chromium', { skip }, () => {
  // demo-hero.webp is 1280 × 720: lots are drawn in its pixels.
  const LOTS = { B1: 'M100 100 h300 v200 h-300 Z', B2: 'M500 100 h300 v200 h-300 Z' };
  before(async () => {
    await patchUnit('B1', { lotPath: LOTS.B1 });
    await patchUnit('B2', { lotPath: LOTS.B2, availability: 'reserved' });
  });
  after(async () => {
    await patchUnit('B1', { lotPath: '' });
    await patchUnit('B2', { lotPath: '', availability: 'available' });
    await patchProject({ layoutImageUrl: '', lat: 0, lon: 0, perimeter: '' });
  });

  for (const size of ['phone', 'desktop'] as const) {
    test(`${size}: no location: the layout picture flat in its own section, lots coloured by status, a lot opens its unit`, async () => {
      await patchProject({ layoutImageUrl: '/p/assets/demo-hero.webp', lat: 0, lon: 0 });
      const page = await open(size);
      assert.equal(await page.locator('#map-section').count(), 0);
      await page.locator('#site-plan').scrollIntoViewIfNeeded();
      await page.waitForSelector('#site-plan-frame[data-lots="2"]');
      const fills = await page.$$eval('#site-plan-frame .lot', (els) => els.map((e) => [e.getAttribute('data-unit'), e.getAttribute('fill')]));
      assert.deepEqual(Object.fromEntries(fills), { [units.B1!]: PROJECT.colorAvailable, [units.B2!]: STATUS_COLOURS.reserved });
      assert.equal(await page.locator(`#site-plan-frame .lot[data-unit="${units.B2}"]`).getAttribute('aria-label'), 'B2: Reserved');
      await shot(page, 'site-plan-flat', size);
      const lot = page.locator(`#site-plan-frame .lot[data-unit="${units.B1}"]`);
      await (size === 'phone' ? lot.tap() : lot.click());
      await page.waitForFunction((name) => (document.querySelector('dialog[open] #unit-title')?.textContent ?? '').startsWith(name), 'B1');
      await close(page);
    });
  }

  for (const size of ['phone', 'desktop'] as const)
    test(`${size}: lotsLayout plan with a location: the map keeps the marker and outline, the site plan is flat in its own section with its lots`, async () => {
      await patchProject({ ...MAPPED, layoutImageUrl: '/p/assets/demo-hero.webp', lotsLayout: 'plan' });
      try {
        const page = await open(size);
        await scrollToMap(page);
        const seen = await drawn(page);
        assert.ok(seen.perimeter > 0);
        assert.deepEqual(seen.lots, {}, 'no lot on the map: they are on the flat plan');
        assert.equal(await page.locator('#map').getAttribute('data-layout'), null, 'the picture is not placed on the map');
        await page.locator('#site-plan').scrollIntoViewIfNeeded();
        await page.waitForSelector('#site-plan-frame[data-lots="2"]');
        assert.equal(await page.locator(`#site-plan-frame .lot[data-unit="${units.B2}"]`).getAttribute('fill'), STATUS_COLOURS.reserved);
        await shot(page, 'lots-on-plan', size);
        await close(page);
      } finally {
        await patchProject({ lotsLayout: '', lat: 0, lon: 0, perimeter: '' });
      }
    });

  test('with a location: the layout placed on the map, its lots drawn over it in their colours', async () => {
    await patchProject({ ...MAPPED, layoutImageUrl: '/p/assets/demo-hero.webp', mapLayoutWidth: 160, mapLayoutRotation: 20 });
    const page = await open('desktop');
    await scrollToMap(page);
    await page.waitForSelector('#map[data-layout="drawn"]', { state: 'attached', timeout: SLOW });
    const seen = await drawn(page);
    assert.equal(seen.lots[units.B1!], PROJECT.colorAvailable);
    assert.equal(seen.lots[units.B2!], STATUS_COLOURS.reserved);
    await shot(page, 'site-plan-map', 'desktop');
    await close(page);
  });
});

describe('the group page map in Chromium', { skip }, () => {
  for (const size of ['phone', 'desktop'] as const)
    test(`${size}: the group's markerImageUrl is every project's marker; targetMarker pin marks the group's own place, named by its address`, async () => {
      const other = await createProject(t.app, owner.auth, {
        name: 'Harbour Court',
        query: { namespace: `${namespace}-hcm${size.length}` },
        body: { lat: AT.lat + 0.004, lon: AT.lon + 0.003 },
      });
      await patchProject({ lat: AT.lat, lon: AT.lon });
      const groupNs = `${namespace}-gm${size.length}`;
      await createGroup(t.app, owner.auth, {
        query: { namespace: groupNs },
        body: {
          projects: [projectId, other._id],
          mapPointColor: '#00695c',
          markerImageUrl: '/p/assets/demo-living.webp',
          targetMarker: 'pin',
          lat: AT.lat + 0.002,
          lon: AT.lon + 0.0015,
          zoomLevel: 15,
          address: 'Sales centre, 5 Quay Street',
        },
      });
      try {
        const context = await browser.newContext(SIZES[size]);
        const page = await context.newPage();
        await page.goto(`${base}/g/${groupNs}`);
        await page.locator('#group-map').scrollIntoViewIfNeeded();
        await page.waitForSelector('#map[data-ready="true"]', { state: 'attached', timeout: SLOW });
        const pictures = page.locator('#map .map-marker-image');
        assert.deepEqual((await pictures.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).sort(), ['Harbour Court', 'Quayside Lofts']);
        assert.deepEqual(await pictures.locator('img').evaluateAll((els) => els.map((e) => new URL((e as HTMLImageElement).src).pathname)), [
          '/p/assets/demo-living.webp',
          '/p/assets/demo-living.webp',
        ]);
        const own = page.locator('#map .map-marker-own');
        assert.equal(await own.getAttribute('aria-label'), 'Sales centre, 5 Quay Street');
        assert.equal(await own.locator('path').getAttribute('fill'), '#00695c');
        await page.waitForFunction(() => (document.getElementById('map') as unknown as { maplibre?: { loaded(): boolean } }).maplibre?.loaded());
        await page.screenshot({ path: `${SHOTS}/map-group-markers-${size}-${ENGINE}.png` });
        await context.close();
      } finally {
        await patchProject({ lat: 0, lon: 0 });
      }
    });

  for (const [behavior, expect] of [
    ['Service', 'here'],
    ['NewTab', 'tab'],
  ] as const) {
    test(`linkBehavior ${behavior}: a marker per located project; a click opens the project ${expect === 'here' ? 'here' : 'in a new tab'}`, async () => {
      const other = await createProject(t.app, owner.auth, {
        name: 'Harbour Court',
        query: { namespace: `${namespace}-hc${behavior.length}` },
        body: { lat: AT.lat + 0.004, lon: AT.lon + 0.003 },
      });
      await patchProject({ lat: AT.lat, lon: AT.lon });
      const groupNs = `${namespace}-g${behavior.length}`;
      const g = await createGroup(t.app, owner.auth, {
        query: { namespace: groupNs },
        body: { projects: [projectId, other._id], linkBehavior: behavior, mapPointColor: '#00695c' },
      });
      assert.ok(g._id);
      try {
        const context = await browser.newContext(SIZES.desktop);
        const page = await context.newPage();
        await page.goto(`${base}/g/${groupNs}`);
        assert.equal(await page.evaluate(() => performance.getEntriesByType('resource').some((e) => /app-map-view/.test(e.name))), false);
        await page.locator('#group-map').scrollIntoViewIfNeeded();
        await page.waitForSelector('#map[data-ready="true"]', { state: 'attached', timeout: SLOW });
        const markers = page.locator('#map .map-marker');
        assert.deepEqual((await markers.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).sort(), ['Harbour Court', 'Quayside Lofts']);
        await page.screenshot({ path: `${SHOTS}/map-group-${behavior}-desktop-${ENGINE}.png` });
        const quayside = page.locator('#map .map-marker[aria-label="Quayside Lofts"]');
        if (expect === 'here') {
          await quayside.click();
          await page.waitForURL(`${base}/p/${namespace}`);
        } else {
          const [popup] = await Promise.all([context.waitForEvent('page'), quayside.click()]);
          await popup.waitForURL(`${base}/p/${namespace}`);
        }
        await context.close();
      } finally {
        await patchProject({ lat: 0, lon: 0 });
      }
    });
  }
});
