import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFloor, createGroup, createProject, createUnit, type Caller, type LoggedIn, slug, type TestApp, useOwnerApp } from './helpers.ts';
import { parsePerimeter } from '../src/modules/shared/perimeter.ts';

/**
 * Where the homes are, as the service keeps and serves it (docs/map.md): a `perimeter` the map cannot draw is refused
 * (400 naming the field) on a project, a unit and a group; the page's map section, its Directions link and its CSP
 * follow the project's settings and the map settings.
 */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

const STYLE = 'https://tiles.example.org/styles/light.json';
useOwnerApp(
  { env: { MAP_STYLE_LIGHT: STYLE, MAP_STYLE_STREETS: '/p/assets/streets.json', MAP_CONNECT_ORIGINS: 'https://tiles-b.example.org' } },
  (f) => ({ t, owner, call } = f),
);

const PAIRS = '45.5017,-73.5673 45.5020,-73.5660 45.5010,-73.5655';
const GEOJSON = JSON.stringify({
  type: 'Feature',
  properties: {},
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [-73.5673, 45.5017],
        [-73.566, 45.502],
        [-73.5655, 45.501],
        [-73.5673, 45.5017],
      ],
    ],
  },
});
const BAD = [
  ['M10 10 L20 20 Z', /lat,lon pair/],
  ['45.5,-73.5 45.6,-73.6', /at least three/],
  ['95.0,-73.5 45.6,-73.6 45.7,-73.7', /±90/],
  ['{"type":"Point","coordinates":[-73.5,45.5]}', /Polygon/],
  ['{"type":"Polygon"', /does not parse/],
] as const;

function assertRefused(res: { statusCode: number; body: string; json(): unknown }, pattern: RegExp) {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json() as { code: string; errors: { path: string; message: string }[] };
  assert.equal(body.code, 'invalid_body');
  assert.equal(body.errors[0]?.path, '/perimeter');
  assert.match(body.errors[0]?.message ?? '', pattern);
}

test('a project keeps a perimeter as lat,lon pairs or GeoJSON, and refuses one the map cannot draw (400 naming perimeter), on create and on PATCH', async () => {
  const p = await createProject(t.app, owner.auth, { body: { perimeter: PAIRS } });
  assert.equal(p.perimeter, PAIRS);
  for (const good of [GEOJSON, '', PAIRS.replace(/ /g, ';')]) {
    const res = await call('PATCH', `/project/${p._id}`, { perimeter: good });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().perimeter, good);
  }
  for (const [bad, why] of BAD) assertRefused(await call('PATCH', `/project/${p._id}`, { perimeter: bad }), why);
  assertRefused(await call('POST', `/projects?name=${slug('bad')}`, { perimeter: BAD[0][0] }), BAD[0][1]);
  // Nothing was kept.
  assert.equal((await call('GET', `/project/${p._id}`)).json().perimeter, PAIRS.replace(/ /g, ';'));
});

test("a unit's perimeter (its lot on the map) and a group's are checked the same way", async () => {
  const p = await createProject(t.app, owner.auth);
  const floor = await createFloor(t.app, owner.auth, p._id);
  const u = await createUnit(t.app, owner.auth, p._id, { floor: floor._id, body: { perimeter: GEOJSON } });
  assert.equal(u.perimeter, GEOJSON);
  assertRefused(await call('PATCH', `/units/${u._id}`, { perimeter: BAD[2][0] }), BAD[2][1]);
  const res = await call('POST', `/units?project=${p._id}&name=Bad&position=0`, { perimeter: BAD[1][0] });
  assertRefused(res, BAD[1][1]);
  // In a bulk edit, the item's path names it.
  const bulk = await call('PATCH', '/units', [{ _id: u._id, perimeter: BAD[3][0] }]);
  assert.equal(bulk.statusCode, 400, bulk.body);
  assert.equal(bulk.json().errors[0].path, '/0/perimeter');
  const g = await createGroup(t.app, owner.auth, { body: { perimeter: PAIRS } });
  assertRefused(await call('PATCH', `/groups/${g._id}`, { perimeter: BAD[0][0] }), BAD[0][1]);
  assert.equal((await call('PATCH', `/groups/${g._id}`, { perimeter: GEOJSON })).statusCode, 200);
});

test('the parser: pairs become one closed ring of [lon, lat]; GeoJSON rings are closed; MultiPolygons kept', () => {
  assert.deepEqual(parsePerimeter('1,2 3,4 5,6'), [
    [
      [
        [2, 1],
        [4, 3],
        [6, 5],
        [2, 1],
      ],
    ],
  ]);
  const multi = parsePerimeter(
    JSON.stringify({
      type: 'MultiPolygon',
      coordinates: [
        [
          [
            [0, 0],
            [1, 0],
            [1, 1],
          ],
        ],
        [
          [
            [5, 5],
            [6, 5],
            [6, 6],
            [5, 5],
          ],
        ],
      ],
    }),
  );
  assert.ok(Array.isArray(multi) && multi.length === 2 && multi[0]![0]!.length === 4);
  assert.deepEqual(parsePerimeter('  '), []);
});

async function page(namespace: string) {
  const res = await t.app.inject({ method: 'GET', url: `/p/${namespace}`, headers: { host: 'pages.localhost' } });
  assert.equal(res.statusCode, 200, res.body);
  return { html: res.body, csp: String(res.headers['content-security-policy']) };
}

test('the page: a map section with the address, "View on map" and Directions only with mapDirections; the CSP allows the map hosts only on a page with a map', async () => {
  const namespace = slug('map');
  const p = await createProject(t.app, owner.auth, { query: { namespace }, body: { published: true, address: '1 Rue Test' } });
  let seen = await page(namespace);
  assert.ok(!seen.html.includes('id="map-section"'), 'no location, no map');
  assert.ok(!seen.csp.includes('tiles.example.org'), seen.csp);

  assert.equal((await call('PATCH', `/project/${p._id}`, { lat: 45.5, lon: -73.56, zoomLevel: 16, mapStyle: 'Light' })).statusCode, 200);
  seen = await page(namespace);
  assert.match(seen.html, /<section[^>]*id="map-section"/);
  assert.match(seen.html, /<span class="map-address">1 Rue Test<\/span>/);
  assert.match(seen.html, /aria-label="View on map: 1 Rue Test"/);
  assert.ok(!seen.html.includes('id="map-directions"'), 'no Directions without mapDirections');
  const data = JSON.parse(/data-map="([^"]*)"/.exec(seen.html)![1]!.replace(/&#34;/g, '"').replace(/&#38;/g, '&').replace(/&#39;/g, "'")) as Record<
    string,
    unknown
  >;
  assert.equal(data.style, STYLE);
  assert.equal(data.zoom, 16);
  assert.match(String(data.worker), /^\/p\/assets\/app-map-worker\.\w+\.js$/);
  const connect = seen.csp.split('; ').find((d) => d.startsWith('connect-src')) ?? '';
  assert.equal(connect, "connect-src 'self' https://tiles.example.org https://tiles-b.example.org");
  assert.match(seen.csp, /script-src 'self'(;| )/, 'the worker is a script of this origin: no blob:, no eval');
  assert.ok(!seen.csp.includes('blob:'), seen.csp);
  // The worker is served.
  const worker = await t.app.inject({ method: 'GET', url: String(data.worker), headers: { host: 'pages.localhost' } });
  assert.equal(worker.statusCode, 200);
  assert.match(String(worker.headers['content-type']), /javascript/);

  assert.equal((await call('PATCH', `/project/${p._id}`, { mapDirections: true, mapStyle: 'Streets' })).statusCode, 200);
  seen = await page(namespace);
  assert.match(
    seen.html,
    /id="map-directions"[^>]*href="https:\/\/www\.google\.com\/maps\/dir\/\?api=1&#38;destination=45\.5%2C-73\.56"|href="https:\/\/www\.google\.com\/maps\/dir\/\?api=1&#38;destination=45\.5%2C-73\.56"[^>]*>Directions/,
  );
  assert.match(seen.html, /&#34;style&#34;:&#34;http:\/\/pages\.localhost\/p\/assets\/streets\.json&#34;/, 'a style of this service, made absolute');
});

test('the group page: a map of its located projects only when one has a location; its one script and the map hosts in its CSP', async () => {
  const a = await createProject(t.app, owner.auth, { query: { namespace: slug('ga') }, body: { published: true } });
  const ns = slug('grp');
  await createGroup(t.app, owner.auth, { query: { namespace: ns }, body: { projects: [a._id] } });
  const get = async () => {
    const res = await t.app.inject({ method: 'GET', url: `/g/${ns}`, headers: { host: 'pages.localhost' } });
    assert.equal(res.statusCode, 200, res.body);
    return { html: res.body, csp: String(res.headers['content-security-policy']) };
  };
  let seen = await get();
  assert.ok(!seen.html.includes('id="group-map"'));
  assert.match(seen.csp, /script-src 'none'/);
  assert.equal((await call('PATCH', `/project/${a._id}`, { lat: 45.5, lon: -73.56 })).statusCode, 200);
  seen = await get();
  assert.match(seen.html, /id="group-map"/);
  assert.match(seen.html, /<script type="module" src="\/p\/assets\/app-group\.\w+\.js"><\/script>/);
  assert.match(seen.csp, /script-src 'self';/);
  assert.match(
    seen.csp,
    /connect-src 'self' https:\/\/tiles-b\.example\.org https:\/\/tiles\.example\.org|connect-src 'self' https:\/\/tiles\.example\.org https:\/\/tiles-b\.example\.org/,
  );
});
