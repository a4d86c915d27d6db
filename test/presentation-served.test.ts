import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { newObjectId } from '../src/lib/object-id.ts';
import { PAGE_MANIFEST, readManifest } from '../src/lib/built-assets.ts';
import { createFloor, createGroup, createProject, createUnit } from './helpers.ts';
import {
  base,
  BOTH,
  close,
  hostName,
  namespace,
  pagesHost,
  noise,
  openPage,
  patchProject,
  patchUnit,
  projectId,
  SHAPES,
  shot,
  skip,
  t,
  units,
  usePresentation,
  owner,
  consoleBase,
} from './presentation-fixture.ts';

/** The buyer's page and the group page as served: headers, HTML, share tags, the tag manager's CSP, assets, the bundle's sold rooms. */
usePresentation();

// ---------- as served: no browser needed ----------

describe('the presentation page, as served', () => {
  test('HTML: no-cache, a CSP allowing only its own script and its own inlined stylesheet (by hash), embeddable, a description, the hero drawn by the server; hashed assets cached for a year', async () => {
    const res = await fetch(`${base}/p/${namespace}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('x-frame-options'), null, 'embeddable in an iframe');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors \*/);
    assert.match(csp, /script-src 'self'(;|$)/);
    // The stylesheet is in the head (no request before the first paint), allowed by its hash and nothing wider.
    const hash = /style-src 'self' 'sha256-([A-Za-z0-9+/]+=*)'(;|$)/.exec(csp)?.[1];
    assert.ok(hash, csp);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|nonce-|googletagmanager|fonts\.g/);
    const html = await res.text();
    const styles = [...html.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1]!);
    assert.equal(styles.length, 1, 'one inline stylesheet');
    assert.equal(createHash('sha256').update(styles[0]!).digest('base64'), hash, 'the CSP hash is the inlined text');
    assert.doesNotMatch(html, /<link rel="stylesheet"/, 'no stylesheet request');
    assert.match(html, /<style>[^<]*<\/style>\n<script type="module"/, 'the stylesheet before the script');
    assert.match(html, new RegExp(`<body data-namespace="${namespace}"`));
    // The one parent whose unsaved settings a framed page draws (the console's preview): the console's origin.
    assert.match(html, new RegExp(`<body [^>]*data-console-origin="${consoleBase}"`));
    assert.match(html, /<meta name="description" content="Quayside Lofts, 3 Quay Lane: [^"]+">/);
    assert.match(html, /<h1>Quayside Lofts<\/h1>/);
    assert.match(html, /<img class="hero-img" src="[^"]+\/p\/assets\/demo-hero\.webp" alt="" width="1600" height="900" fetchpriority="high">/);
    assert.match(html, /<img class="logo" src="[^"]+demo-logo\.svg" alt="Quayside Lofts logo"/);
    assert.doesNotMatch(html, /og:title/, 'no share tags unless sharePageEnabled');
    assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script');
    const js = /src="(\/p\/assets\/app\.[\w-]+\.js)"/.exec(html)?.[1];
    // The hashed stylesheet is still served (the group page links it), with the same text as the inlined one.
    const css = `/p/assets/${readManifest(PAGE_MANIFEST).css}`;
    assert.ok(js, html);
    assert.equal((await (await fetch(`${base}${css}`)).text()).trim(), styles[0]);
    for (const [url, type] of [
      [js, /javascript/],
      [css, /text\/css/],
    ] as const) {
      const asset = await fetch(`${base}${url}`);
      assert.equal(asset.status, 200, url);
      assert.match(asset.headers.get('content-type') ?? '', type);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      if (url === js) assert.ok((await asset.arrayBuffer()).byteLength < 120_000);
    }
    assert.equal((await fetch(`${base}/p/assets/app.NOSUCH.js`)).status, 404);
  });

  test('the hero keeps room for its row of links when the only one is Book a visit (calUsername)', async () => {
    const slot = async () => /id="hero-links"/.test(await (await fetch(`${base}/p/${namespace}`)).text());
    assert.equal(await slot(), false, 'no link, no room');
    await patchProject({ calUsername: 'quayside-sales' });
    try {
      assert.equal(await slot(), true, 'the room for the Book a visit link the script draws');
    } finally {
      await patchProject({ calUsername: '' });
    }
    assert.equal(await slot(), false);
  });

  test('the demo drawings (SVG) and renderings (WebP) are served, small; text assets compressed for clients that accept it', async () => {
    for (const file of ['demo-floorplan.svg', 'demo-logo.svg', 'demo-plan-1bed.svg', 'demo-plan-2bed.svg', 'demo-plan-3bed.svg']) {
      const res = await fetch(`${base}/p/assets/${file}`, { headers: { 'accept-encoding': 'identity' } });
      assert.equal(res.status, 200, file);
      assert.match(res.headers.get('content-type') ?? '', /image\/svg\+xml/);
      const body = await res.text();
      assert.match(body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+"/, file);
      assert.doesNotMatch(body, /<script|on\w+=/i, `${file} is a plain drawing`);
      assert.ok(body.length < 25_000, `${file} is small (${body.length} bytes)`);
      if (file === 'demo-floorplan.svg') assert.match(body, /viewBox="0 0 600 300"/);
    }
    for (const file of ['demo-hero.webp', 'demo-living.webp', 'demo-kitchen.webp', 'demo-view.webp']) {
      const res = await fetch(`${base}/p/assets/${file}`);
      assert.equal(res.status, 200, file);
      assert.equal(res.headers.get('content-type'), 'image/webp');
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(bytes.subarray(0, 4).toString('latin1'), 'RIFF');
      assert.equal(bytes.subarray(8, 12).toString('latin1'), 'WEBP');
      assert.ok(bytes.length < 25_000, `${file} is small (${bytes.length} bytes)`);
    }
    // The script, the stylesheet and the drawings go out compressed (brotli, else gzip) to clients that say so.
    const html = await (await fetch(`${base}/p/${namespace}`)).text();
    const js = /src="(\/p\/assets\/app\.[\w-]+\.js)"/.exec(html)![1]!;
    const plain = await t.app.inject({ method: 'GET', url: js });
    assert.equal(plain.headers['content-encoding'], undefined);
    const br = await t.app.inject({ method: 'GET', url: js, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.ok(br.rawPayload.length < plain.rawPayload.length / 2);
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body);
    const gz = await t.app.inject({ method: 'GET', url: '/p/assets/demo-floorplan.svg', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.match(gunzipSync(gz.rawPayload).toString(), /^<svg/);
    // The page itself (it carries the stylesheet) too: brotli, else gzip, else as it is.
    const page = await t.app.inject({ method: 'GET', url: `/p/${namespace}`, headers: { host: pagesHost } });
    assert.equal(page.headers['content-encoding'], undefined);
    const pageBr = await t.app.inject({ method: 'GET', url: `/p/${namespace}`, headers: { host: pagesHost, 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(pageBr.headers['content-encoding'], 'br');
    assert.equal(pageBr.headers.vary, 'Accept-Encoding');
    assert.ok(pageBr.rawPayload.length < page.rawPayload.length / 2);
    assert.equal(brotliDecompressSync(pageBr.rawPayload).toString(), page.body);
    const pageGz = await t.app.inject({ method: 'GET', url: `/p/${namespace}`, headers: { host: pagesHost, 'accept-encoding': 'gzip' } });
    assert.equal(pageGz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(pageGz.rawPayload).toString(), page.body);
    const webp = await t.app.inject({ method: 'GET', url: '/p/assets/demo-hero.webp', headers: { 'accept-encoding': 'br' } });
    assert.equal(webp.headers['content-encoding'], undefined, 'images already compressed are sent as they are');
  });

  test("unknown namespace → 404 problem; a project's own host name (any case, any port) serves its page at /", async () => {
    const missing = await fetch(`${base}/p/no-such-${namespace}`);
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /application\/problem\+json/);
    const byHost = await t.app.inject({ method: 'GET', url: '/', headers: { host: `${hostName.toUpperCase()}:8443` } });
    assert.equal(byHost.statusCode, 200, byHost.body);
    const bundleUrl = /data-bundle="([^"]+)"/.exec(byHost.body)?.[1];
    assert.equal(bundleUrl, `/public/hosts/${hostName}`);
    assert.equal((await t.app.inject({ method: 'GET', url: bundleUrl! })).json().project._id, projectId);
    const unknown = await t.app.inject({ method: 'GET', url: '/', headers: { host: 'unknown.example.com' } });
    assert.equal(unknown.statusCode, 404);
  });

  test('/p/{namespace}/units/{unitId}: the page on that unit; Open Graph and Twitter tags only with sharePageEnabled; unknown unit → 404', async () => {
    const url = `${base}/p/${namespace}/units/${units.A2}`;
    const plain = await (await fetch(url)).text();
    assert.match(plain, new RegExp(`data-unit="${units.A2}"`));
    assert.match(plain, /<title>A2 · Quayside Lofts<\/title>/);
    assert.doesNotMatch(plain, /<meta [^>]*og:/);
    await patchProject({ sharePageEnabled: true, sharePageDescription: 'Lofts on the quay & more' });
    try {
      const html = await (await fetch(url)).text();
      const meta = (key: string) => new RegExp(`<meta (?:property|name)="${key}" content="([^"]*)">`).exec(html)?.[1];
      assert.equal(meta('og:title'), 'A2 · Quayside Lofts');
      assert.equal(meta('og:description'), 'Lofts on the quay &#38; more');
      assert.equal(meta('og:url'), url);
      assert.equal(meta('og:image'), `${base}/p/assets/demo-living.webp`, "the unit's first image");
      assert.equal(meta('twitter:card'), 'summary_large_image');
      assert.equal(meta('twitter:title'), 'A2 · Quayside Lofts');
      assert.match(html, new RegExp(`<link rel="canonical" href="${url}">`));
      const projectPage = await (await fetch(`${base}/p/${namespace}`)).text();
      assert.match(projectPage, /<meta property="og:image" content="[^"]+demo-logo\.svg">/, 'the project page shares sharePageLogo');
    } finally {
      await patchProject({ sharePageEnabled: false });
    }
    assert.equal((await fetch(`${base}/p/${namespace}/units/${newObjectId()}`)).status, 404);
    assert.equal((await fetch(`${base}/p/${namespace}/units/not-an-id`)).status, 404);
  });

  test("gtmEnabled: the tag manager's snippets in head and body with this response's nonce, its origins in that project's CSP only; styleFont: the font service allowed", async () => {
    const other = await createProject(t.app, owner.auth, {
      query: { namespace: `${namespace}-x` },
      body: { gtmEnabled: false, gtmHeadCode: '<script>window.no = 1</script>' },
    });
    const ns = `${namespace}-gtm`;
    await createProject(t.app, owner.auth, {
      query: { namespace: ns },
      body: {
        gtmEnabled: true,
        gtmHeadCode: '<script>window.dataLayer = [{ from: "head" }]</script>',
        gtmBodyCode: '<noscript><iframe src="https://www.googletagmanager.com/ns.html?id=GTM-X"></iframe></noscript>',
        styleFont: 'Montserrat',
      },
    });
    const res = await fetch(`${base}/p/${ns}`);
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce, csp);
    assert.match(csp, /script-src 'self' 'nonce-[^']+' https:\/\/www\.googletagmanager\.com/);
    assert.match(csp, /connect-src 'self' [^;]*google-analytics\.com/);
    assert.match(csp, /frame-src 'self' https:\/\/www\.googletagmanager\.com/);
    assert.match(csp, /style-src 'self' 'sha256-[^']+' https:\/\/fonts\.googleapis\.com/);
    assert.match(csp, /font-src 'self' data: https:\/\/fonts\.gstatic\.com/);
    const html = await res.text();
    assert.ok(html.includes(`<script nonce="${nonce}">window.dataLayer = [{ from: "head" }]</script>\n</head>`), 'head code at the end of <head>');
    assert.match(html, /<body [^>]*>\n<noscript><iframe src="https:\/\/www\.googletagmanager\.com/, 'body code first in <body>');
    assert.match(html, /<link rel="stylesheet" href="https:\/\/fonts\.googleapis\.com\/css2\?family=Montserrat:wght@400;600;700&amp;display=swap">/);
    const again = (await fetch(`${base}/p/${ns}`)).headers.get('content-security-policy')!;
    assert.notEqual(/'nonce-([^']+)'/.exec(again)?.[1], nonce, 'a new nonce per response');
    const plain = await fetch(`${base}/p/${namespace}-x`);
    assert.doesNotMatch(plain.headers.get('content-security-policy')!, /nonce|googletagmanager|fonts/);
    assert.doesNotMatch(await plain.text(), /window\.no/);
    assert.equal(other.gtmEnabled, false);
  });

  test('GET /g/{namespace}: the group page names and links its public projects with image, address, available count and lowest price, styled from the group; 404 unknown', async () => {
    const gns = `g-${newObjectId().slice(-8)}`;
    const hidden = await createProject(t.app, owner.auth, { name: 'Preview Only', query: { namespace: `${gns}-p` }, body: { previewMode: true } });
    const noPrices = await createProject(t.app, owner.auth, {
      name: 'Quiet Court',
      query: { namespace: `${gns}-q` },
      body: { showPrices: false, payProviderCurrency: 'eur' },
    });
    const f = await createFloor(t.app, owner.auth, noPrices._id);
    await createUnit(t.app, owner.auth, noPrices._id, { floor: f._id, body: { price: 1000 } });
    const g = await createGroup(t.app, owner.auth, {
      name: 'Harbour Homes',
      query: { namespace: gns },
      body: { colorBase: '#123456', groupLang: 'en', groupImageUrl: '/p/assets/demo-hero.webp', pricesStartingAt: true },
    });
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/groups/${g._id}`,
      headers: owner.auth,
      payload: { projects: [projectId, hidden._id, noPrices._id] },
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = await fetch(`${base}/g/${gns}`);
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy')!;
    assert.match(csp, /script-src 'none'/);
    const html = await page.text();
    assert.match(html, /<title>Harbour Homes<\/title>/);
    assert.match(html, new RegExp(`<h2><a href="/p/${namespace}">Quayside Lofts</a></h2>`));
    assert.match(html, /<h2><a href="\/p\/[^"]+-q">Quiet Court<\/a><\/h2>/);
    assert.doesNotMatch(html, /Preview Only/);
    const bundle = (await t.app.inject({ method: 'GET', url: `/public/projects/${namespace}` })).json();
    const free = bundle.floors
      .flatMap((fl: { units: { availability: string; price: number }[] }) => fl.units)
      .filter((u: { availability: string }) => u.availability === 'available');
    const lowest = Math.min(...free.map((u: { price: number }) => u.price));
    assert.match(html, new RegExp(`<span class="count">${free.length} available</span> · <span class="price">From \\$${lowest.toLocaleString('en')}</span>`));
    assert.match(html, /<span class="count">1 available<\/span><\/p>/, 'no price where the project hides prices');
    assert.match(html, /<p class="address">3 Quay Lane<\/p>/);
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(html.includes(`<style nonce="${nonce}">:root{--base:#123456}</style>`), 'styled from the group');
    const missing = await fetch(`${base}/g/no-such-${gns}`);
    assert.equal(missing.status, 404);
    if (!skip) {
      for (const size of BOTH) {
        const p = await openPage(size, `/g/${gns}`, { ready: '.projects' });
        assert.equal(await p.locator('.projects .card').count(), 2);
        await shot(p, 'group', size, true);
        await p.locator(`a[href="/p/${namespace}"]`).first().click();
        await p.waitForSelector('#app[aria-busy="false"]');
        assert.equal(new URL(p.url()).pathname, `/p/${namespace}`);
        assert.deepEqual(noise.get(p), []);
        await close(p);
      }
    }
  });

  test("the group's own switches govern its page (showPrices, showAvailability); its hostName serves the group page at /", async () => {
    const gns = `gh-${newObjectId().slice(-8)}`;
    const groupHost = `${gns}.homes.example`;
    const g = await createGroup(t.app, owner.auth, { name: 'Switch Homes', query: { namespace: gns, hostName: groupHost }, body: { pricesStartingAt: true } });
    const set = async (body: Record<string, unknown>) => {
      const res = await t.app.inject({ method: 'PATCH', url: `/groups/${g._id}`, headers: owner.auth, payload: body });
      assert.equal(res.statusCode, 200, res.body);
    };
    await set({ projects: [projectId] });
    const byHost = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/', headers: { host: `${groupHost.toUpperCase()}:8443` } });
      assert.equal(res.statusCode, 200, res.body);
      return res.body;
    };
    const shown = await byHost();
    assert.match(shown, /<title>Switch Homes<\/title>/);
    assert.match(shown, /<span class="count">\d+ available<\/span> · <span class="price">From \$/);
    await set({ showPrices: false });
    const noPrices = await byHost();
    assert.match(noPrices, /<span class="count">\d+ available<\/span><\/p>/);
    assert.doesNotMatch(noPrices, /class="price"/);
    await set({ showPrices: true, showAvailability: false });
    const noCounts = await byHost();
    assert.doesNotMatch(noCounts, /class="count"|available/);
    assert.match(noCounts, /<p class="summary"><span class="price">From \$/);
    // A host that is neither a project's nor a group's is still a 404.
    assert.equal((await t.app.inject({ method: 'GET', url: '/', headers: { host: `no-${groupHost}` } })).statusCode, 404);
  });

  test('hideSold: the bundle keeps a sold unit out of the units and names it nowhere; its floor keeps the shape only', async () => {
    await patchUnit('C4', { availability: 'sold' });
    await patchProject({ hideSold: true });
    try {
      const served = await t.app.inject({ method: 'GET', url: `/public/projects/${namespace}` });
      const b = served.json();
      const l3 = b.floors.find((f: { name: string }) => f.name === 'Level 3');
      assert.ok(!l3.units.some((u: { _id: string }) => u._id === units.C4));
      assert.ok(!served.body.includes(units.C4!) && !served.body.includes('"C4"'), 'the sold unit is named nowhere');
      assert.deepEqual(l3.soldShapes, [SHAPES[3]]);
    } finally {
      await patchProject({ hideSold: false });
      await patchUnit('C4', { availability: 'available' });
    }
  });
});

// ---------- in Chromium ----------
