import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBuilt, sharedPostgres, type BuiltNode, type SharedPostgres } from './built.ts';
import { createUser } from './helpers.ts';
import { launchBrowser, skip as noBrowser, SHOTS } from './support/browser.ts';
import { startTileServer, type TileServer } from './support/map-tiles.ts';

/**
 * The map (MapLibre and its worker) and the 3D viewer (<model-viewer>) are chunks the page imports only when asked for:
 * here through the built server (`npm start`'s dist/ and the built assets), a project page with a location and
 * `enable3d` names them, they are served, and in Chromium they load and draw (the map from a local tile server, the
 * building's model on its button).
 */
describe('the built server: the map and 3D chunks of a project page', () => {
  let pg: SharedPostgres;
  let tiles: TileServer;
  let node: BuiltNode;
  /** The buyer's pages' origin of the node (PAGES_URL). */
  let pages: string;
  const namespace = `built-places-${Date.now()}`;

  before(async () => {
    [pg, tiles] = await Promise.all([sharedPostgres(), startTileServer()]);
    node = await startBuilt({ env: { DATABASE_URL: pg.url, MAP_STYLE_LIGHT: tiles.styleUrl, MAP_CONNECT_ORIGINS: tiles.url } });
    pages = `http://localhost:${node.port}`;
    const user = await createUser(pg.db);
    const login = await fetch(`${node.url}/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: user.username, password: user.password }),
    });
    assert.equal(login.status, 200);
    const auth = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(node.url + path, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
      return (await res.json()) as { _id: string };
    };
    const project = await call('POST', `/projects?${new URLSearchParams({ name: 'Built Lofts', namespace })}`);
    const floor = await call('POST', `/floors?${new URLSearchParams({ project: project._id, name: 'Level 1' })}`);
    await call('POST', `/units?${new URLSearchParams({ project: project._id, floor: floor._id, name: 'A1' })}`);
    await call('PATCH', `/projects/${project._id}`, {
      published: true,
      lat: 45.5017,
      lon: -73.5673,
      zoomLevel: 16,
      mapStyle: 'Light',
      enable3d: true,
      _3dBuildingModelUrl: '/p/assets/demo-model.glb',
    });
  });
  after(async () => {
    await node?.stop();
    await tiles?.close();
    await pg?.drop();
  });

  test('the page names its lazily loaded scripts; the map chunk, its worker and the 3D chunk are served from the built assets', async () => {
    const html = await (await fetch(`${pages}/p/${namespace}`)).text();
    const main = /<script type="module" src="(\/p\/assets\/app\.\w+\.js)"/.exec(html)?.[1];
    assert.ok(main, 'the main script');
    const attr = /data-map="([^"]*)"/.exec(html)?.[1] ?? '{}';
    const { worker } = JSON.parse(attr.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))) as { worker?: string };
    assert.match(worker ?? '', /^\/p\/assets\/app-map-worker\.\w+\.js$/, "the map section names MapLibre's worker");
    // Every script the main one imports, and what those import in turn.
    const seen = new Map<string, string>();
    const queue = [main];
    while (queue.length) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      const res = await fetch(pages + path);
      assert.equal(res.status, 200, path);
      assert.match(String(res.headers.get('content-type')), /javascript/, path);
      const text = await res.text();
      seen.set(path, text);
      for (const m of text.matchAll(/app-[\w-]+\.\w+\.js/g)) queue.push(`/p/assets/${m[0]}`);
    }
    const named = (re: RegExp) => [...seen.keys()].find((p) => re.test(p));
    const map = named(/\/app-map-view\.\w+\.js$/);
    const viewer = named(/\/app-model-viewer\.\w+\.js$/);
    assert.ok(map, `the map chunk among ${[...seen.keys()].join(', ')}`);
    assert.ok(viewer, `the 3D chunk among ${[...seen.keys()].join(', ')}`);
    assert.match(seen.get(map) ?? '', /maplibre/i);
    assert.match(seen.get(viewer) ?? '', /model-viewer/);
    const w = await fetch(pages + String(worker));
    assert.equal(w.status, 200);
    assert.match(String(w.headers.get('content-type')), /javascript/);
  });

  test('in Chromium: the map loads when it scrolls into view and draws from the tiles; the building model on its button', { skip: noBrowser }, async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${pages}/p/${namespace}?view=list`);
      const loaded = (re: RegExp) => page.evaluate((src) => performance.getEntriesByType('resource').some((e) => new RegExp(src).test(e.name)), re.source);
      assert.equal(await loaded(/\/app-map-view\.\w+\.js$/), false, 'no map before it is in view');
      await page.locator('#map-section').scrollIntoViewIfNeeded();
      await page.waitForSelector('#map[data-style="loaded"]', { state: 'attached', timeout: 60_000 });
      await page.waitForFunction(
        () => (document.getElementById('map') as unknown as { maplibre?: { loaded(): boolean } }).maplibre?.loaded() === true,
        undefined,
        {
          timeout: 60_000,
        },
      );
      assert.ok(await loaded(/\/app-map-view\.\w+\.js$/), 'the map chunk');
      assert.ok(
        tiles.requested.some((p) => p.startsWith('/tiles/')),
        'tiles drawn',
      );
      await page.screenshot({ path: `${SHOTS}/built-map-desktop.png` });

      await page.goto(`${pages}/p/${namespace}?view=building`);
      await page.waitForSelector('#building-3d-open');
      assert.equal(await loaded(/\/app-model-viewer\.\w+\.js$/), false, 'no 3D before the button');
      await page.click('#building-3d-open');
      await page.waitForFunction(() => (document.getElementById('building-3d-viewer') as unknown as { loaded?: boolean } | null)?.loaded === true, undefined, {
        timeout: 60_000,
      });
      assert.ok(await loaded(/\/app-model-viewer\.\w+\.js$/), 'the 3D chunk');
      assert.ok(await loaded(/\/demo-model\.glb$/), 'the model');
      await page.screenshot({ path: `${SHOTS}/built-3d-desktop.png` });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
});
