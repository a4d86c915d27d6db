import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, createFloor, createGroup, createProject, createUnit, ENGINE, slug, userWithToken, type LoggedIn, type TestApp } from './helpers.ts';

/**
 * The group page (`/g/{namespace}`, and `/` for the group's `hostName`) follows the group's own settings over each
 * project's: each switch set to a marked value through the API and looked for in the HTML as served.
 */
let t: TestApp;
let owner: LoggedIn;
let ns: string;
let groupId: string;
let groupHost: string;
let projectHost: string;
let alderId: string;
const unitIds: Record<string, string> = {};

const setGroup = async (body: Record<string, unknown>) => {
  const res = await t.app.inject({ method: 'PATCH', url: `/groups/${groupId}`, headers: owner.auth, payload: body });
  assert.equal(res.statusCode, 200, res.body);
};
/** The pages origin's host (the tests' PAGES_URL): pages are served there. */
const PAGES = { host: 'pages.localhost' };
const page = async (query = '') => {
  const res = await t.app.inject({ method: 'GET', url: `/g/${ns}${query}`, headers: PAGES });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
};
/** The text of the page's unit list, one entry per home. */
const homes = (html: string) =>
  [...html.matchAll(/<li class="g-unit[^>]*>([\s\S]*?)<\/li>/g)].map((m) =>
    m[1]!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );

before(async () => {
  t = await buildTestApp();
  owner = await userWithToken(t);
  ns = slug();
  groupHost = `${ns}.group.example`;
  projectHost = `${ns}.project.example`;
  // Two projects, each showing prices, availability and areas on its own page; the group decides what its page shows.
  const a = await createProject(t.app, owner.auth, {
    name: 'Alder Court',
    query: { namespace: `${ns}-a`, hostName: projectHost },
    body: { showPrices: true, hideSold: false, hideArea: false, areaUnit: 'm²', showTaxes: false, deliveryDates: false },
  });
  alderId = a._id;
  const b = await createProject(t.app, owner.auth, {
    name: 'Birch Yard',
    query: { namespace: `${ns}-b` },
    body: { showPrices: true, hideSold: false, payProviderCurrency: 'eur' },
  });
  const fa = await createFloor(t.app, owner.auth, a._id, { name: 'Alder L1' });
  const fb = await createFloor(t.app, owner.auth, b._id, { name: 'Birch L1' });
  for (const [name, project, floor, price, area, availability] of [
    ['AL-1', a._id, fa._id, 625000, 80, 'sold'],
    ['AL-2', a._id, fa._id, 710000, 95, 'available'],
    ['BI-1', b._id, fb._id, 480000, 60, 'reserved'],
    ['BI-2', b._id, fb._id, 530000, 70, 'available'],
  ] as const) {
    const u = await createUnit(t.app, owner.auth, project, { name, floor, body: { price, squareFeet: area, availability, deliveryDate: '2027-03' } });
    unitIds[name] = u._id;
  }
  const g = await createGroup(t.app, owner.auth, { name: 'Grove Homes', query: { namespace: ns, hostName: groupHost } });
  groupId = g._id;
  await setGroup({ projects: [a._id, b._id] });
});
after(() => t.close());

describe(`the group page follows the group's own settings (${ENGINE})`, () => {
  test("hostName: `/` on the group's host is the group page, with the project page's caching; a project's host is still its page; an unknown host 404", async () => {
    const byHost = await t.app.inject({ method: 'GET', url: '/', headers: { host: `${groupHost.toUpperCase()}:8080` } });
    assert.equal(byHost.statusCode, 200, byHost.body);
    assert.match(byHost.body, /<title>Grove Homes<\/title>/);
    assert.match(byHost.body, /Alder Court[\s\S]*Birch Yard/);
    const byNamespace = await t.app.inject({ method: 'GET', url: `/g/${ns}`, headers: PAGES });
    const project = await t.app.inject({ method: 'GET', url: '/', headers: { host: projectHost } });
    assert.equal(project.statusCode, 200);
    assert.match(project.body, /<title>Alder Court<\/title>/);
    for (const header of ['cache-control', 'vary', 'content-type']) {
      assert.equal(byHost.headers[header], project.headers[header], header);
      assert.equal(byNamespace.headers[header], project.headers[header], header);
    }
    assert.equal(byHost.headers['cache-control'], 'no-cache');
    assert.equal(byHost.headers.etag, project.headers.etag, 'neither page carries a validator');
    // The view and filters reach the group page on its host too.
    assert.match((await t.app.inject({ method: 'GET', url: '/?view=grid', headers: { host: groupHost } })).body, /class="g-units as-grid"/);
    const unknown = await t.app.inject({ method: 'GET', url: '/', headers: { host: `nobody-${groupHost}` } });
    assert.equal(unknown.statusCode, 404);
    assert.match(String(unknown.headers['content-type']), /application\/problem\+json/);
    assert.equal((await t.app.inject({ method: 'GET', url: `/g/nobody-${ns}`, headers: PAGES })).statusCode, 404);
  });

  test('showPrices false: no price anywhere though each project shows prices; pricesStartingAt adds "From" to cards', async () => {
    await setGroup({ showPrices: false, pricesStartingAt: true, showFloorOverview: true, hideSold: false });
    const none = await page();
    assert.doesNotMatch(none, /\$|€|From |class="price"|price-filter/);
    await setGroup({ showPrices: true });
    const shown = await page();
    assert.match(shown, /<span class="price">From \$710,000<\/span>/, 'the lowest on offer (AL-1 is sold)');
    assert.match(shown, /<span class="price">From €530,000<\/span>/);
    assert.match(shown, /<p class="price">\$625,000 <span class="taxes">/);
    await setGroup({ pricesStartingAt: false });
    assert.doesNotMatch(await page(), /From /);
  });

  test("a project's change shows on the group page at the next view (its bundle is built once per version, not kept past it)", async () => {
    await setGroup({ showPrices: true, pricesStartingAt: true });
    assert.match(await page(), /From €530,000/);
    const patch = async (price: number) =>
      assert.equal((await t.app.inject({ method: 'PATCH', url: `/units/${unitIds['BI-2']}`, headers: owner.auth, payload: { price } })).statusCode, 200);
    await patch(515000);
    assert.match(await page(), /From €515,000/);
    await patch(530000);
    assert.match(await page(), /From €530,000/);
    await setGroup({ pricesStartingAt: false });
  });

  test('showAllUnits: every home of every project in one list; off: cards only', async () => {
    await setGroup({ showAllUnits: true, showAvailableFirst: false, hideSold: false });
    assert.deepEqual(
      homes(await page()).map((h) => h.split(' ')[0]),
      ['AL-1', 'AL-2', 'BI-1', 'BI-2'],
    );
    await setGroup({ showAllUnits: false });
    const off = await page();
    assert.equal(homes(off).length, 0);
    assert.doesNotMatch(off, /AL-1|id="group-units"/);
    await setGroup({ showAllUnits: true });
  });

  test('showAvailableFirst, hideSold, showAvailability', async () => {
    await setGroup({ showAvailableFirst: true });
    assert.deepEqual(
      homes(await page()).map((h) => h.split(' ')[0]),
      ['AL-2', 'BI-2', 'AL-1', 'BI-1'],
    );
    await setGroup({ hideSold: true });
    const hidden = await page();
    assert.doesNotMatch(hidden, /AL-1/);
    assert.match(hidden, /3 of 3 homes/);
    await setGroup({ hideSold: false, showAvailability: false, showAvailableFirst: true });
    const quiet = await page();
    assert.doesNotMatch(quiet, /\b(available|sold|reserved|Available|Sold|Reserved)\b|data-availability|badge|s-available/);
    assert.deepEqual(
      homes(quiet).map((h) => h.split(' ')[0]),
      ['AL-1', 'AL-2', 'BI-1', 'BI-2'],
      'no order that gives the statuses away',
    );
    await setGroup({ showAvailability: true, showAvailableFirst: false });
  });

  test('showTaxes and priceBeforeTax, deliveryDates, hideArea', async () => {
    await setGroup({ showTaxes: true, priceBeforeTax: true, deliveryDates: true, hideArea: false });
    const a = homes(await page());
    assert.match(a[0]!, /\$625,000 \+ taxes/);
    assert.match(a[0]!, /80 m²/);
    assert.match(a[0]!, /Delivery: March 2027/);
    await setGroup({ priceBeforeTax: false });
    assert.match(homes(await page())[0]!, /\$625,000 taxes included/);
    await setGroup({ showTaxes: false, deliveryDates: false, hideArea: true });
    const b = await page();
    assert.doesNotMatch(b, /taxes|Delivery|m²|area-filter/);
  });

  test('showPriceFilter and showAreaFilter: the form and the query filter the homes; bad values → 400 naming the field', async () => {
    await setGroup({ showPriceFilter: true, showAreaFilter: true, hideArea: false });
    const all = await page();
    assert.match(all, /id="price-filter"/);
    assert.match(all, /id="area-filter"/);
    assert.deepEqual(
      homes(await page('?minPrice=500000&maxPrice=700000')).map((h) => h.split(' ')[0]),
      ['AL-1', 'BI-2'],
    );
    assert.deepEqual(
      homes(await page('?minArea=75')).map((h) => h.split(' ')[0]),
      ['AL-1', 'AL-2'],
    );
    assert.match(await page('?minArea=75'), /2 of 4 homes/);
    const kept = await page('?minArea=75');
    assert.match(kept, /id="view-grid" href="\?view=grid&#38;minArea=75"/, kept.slice(kept.indexOf('<nav'), kept.indexOf('</nav>')));
    assert.equal(homes(await page('?view=list&minPrice=&maxPrice=&minArea=&maxArea=')).length, 4, 'an empty bound (the form sends every field) is no bound');
    await setGroup({ showPriceFilter: false });
    const noPriceFilter = await page('?minPrice=500000');
    assert.doesNotMatch(noPriceFilter, /id="price-filter"/);
    assert.equal(homes(noPriceFilter).length, 4, 'a filter the group does not offer filters nothing');
    await setGroup({ showPriceFilter: true });
    const bad = await t.app.inject({ method: 'GET', url: `/g/${ns}?minPrice=cheap`, headers: PAGES });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /minPrice/);
    assert.equal((await t.app.inject({ method: 'GET', url: `/g/${ns}?view=carousel`, headers: PAGES })).statusCode, 400);
  });

  test('showFloorOverview, showBranding, initialView, unitImageOnGrid, theme, groupLang, alternativeCovers', async () => {
    await setGroup({ showFloorOverview: true, showBranding: true, initialView: 'Grid', unitImageOnGrid: 'Unit Plan', pricesStartingAt: true });
    const grid = await page();
    assert.match(
      grid,
      /<details class="g-floors"><summary>Floors<\/summary><ul><li><span class="g-floor-name">Alder L1<\/span><span class="count">1\/2 available<\/span>/,
    );
    assert.match(grid, /Presentation by Showsuite/);
    assert.match(grid, /class="g-units as-grid"/);
    assert.match(grid, /id="view-grid" href="\?view=grid" aria-current="page"/);
    assert.match(await page('?view=list'), /class="g-units as-list"/);
    await setGroup({ initialView: 'Map' });
    assert.match(await page(), /class="g-units as-list"/, 'no map view yet: the list');
    await setGroup({
      showFloorOverview: false,
      showBranding: false,
      theme: 'dark',
      groupLang: 'fr',
      alternativeCovers: ['/p/assets/demo-living.webp', '/p/assets/demo-view.webp'],
    });
    const fr = await page();
    assert.doesNotMatch(fr, /g-floors|Showsuite/);
    assert.match(fr, /<html lang="fr" data-theme="dark">/);
    assert.match(fr, /<h2 class="section-title" id="homes-title">Logements/);
    assert.match(fr, /:root\{--page:#15181d/);
    assert.match(fr, /<img class="hero-img" src="http:\/\/[^"]+\/p\/assets\/demo-living\.webp"/, 'the first cover is the hero without a group image');
    assert.match(fr, /<ul class="covers" id="group-covers"><li><img src="http:\/\/[^"]+\/p\/assets\/demo-view\.webp"/);
    await setGroup({ theme: 'light', groupLang: 'en', initialView: 'List', alternativeCovers: [] });
  });

  test('linkBehavior: Service opens here, NewTab here in a new tab, Website the project’s websiteURL', async () => {
    const alder = `${ns}-a`;
    await setGroup({ linkBehavior: 'Service' });
    const here = await page();
    assert.match(here, new RegExp(`<h2><a href="/p/${alder}">Alder Court</a></h2>`));
    assert.match(here, new RegExp(`<a class="name" href="/p/${alder}/units/${unitIds['AL-1']}">AL-1</a>`));
    await setGroup({ linkBehavior: 'NewTab' });
    assert.match(await page(), new RegExp(`<h2><a href="/p/${alder}" target="_blank" rel="noopener">Alder Court</a></h2>`));
    assert.equal(
      (await t.app.inject({ method: 'PATCH', url: `/project/${alderId}`, headers: owner.auth, payload: { websiteURL: 'https://alder.example.com/' } }))
        .statusCode,
      200,
    );
    await setGroup({ linkBehavior: 'Website' });
    const site = await page();
    assert.match(site, /<h2><a href="https:\/\/alder\.example\.com\/" target="_blank" rel="noopener">Alder Court<\/a><\/h2>/);
    assert.match(site, new RegExp(`<h2><a href="/p/${ns}-b">Birch Yard</a></h2>`), 'a project without a website: its page here');
    await setGroup({ linkBehavior: 'Service' });
  });
});
