import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { middleOf } from '../src/presentation/group-html.ts';
import { filePart } from './support/plan-image.ts';
import { buildTestApp, createFloor, createGroup, createProject, createUnit, ENGINE, slug, userWithToken, type LoggedIn, type TestApp } from './helpers.ts';

/**
 * Shapes drawn over pictures: a floor's `path` and `alternativePaths` (SVG path data, 400 naming the field otherwise),
 * and the group page's picture of the site (`groupImageUrl`, else `groupSVGUrl`) with each project's `path` and
 * `alternativePaths` a link to the project as the group's `linkBehavior` says, in HTML without script.
 */
let t: TestApp;
let owner: LoggedIn;
let ns: string;
let groupId: string;
let floorId: string;
const projects: Record<string, string> = {};
const PAGES = { host: 'pages.localhost' };

const patch = (url: string, payload: Record<string, unknown>) => t.app.inject({ method: 'PATCH', url, headers: owner.auth, payload });
const page = async (query = '') => {
  const res = await t.app.inject({ method: 'GET', url: `/g/${ns}${query}`, headers: PAGES });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
};
/** The picture's links: each one's address, target and shapes. */
const shapes = (html: string) =>
  [...(/<section class="g-section g-picture"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '').matchAll(/<a class="g-shape ([^"]+)" ([^>]*)>([\s\S]*?)<\/a>/g)].map(
    (m) => ({
      tone: m[1],
      attrs: m[2]!,
      paths: [...m[3]!.matchAll(/<path d="([^"]+)"\/>/g)].map((p) => p[1]),
    }),
  );

before(async () => {
  t = await buildTestApp();
  owner = await userWithToken(t);
  ns = slug();
  for (const [name, body] of [
    ['Alder Court', { path: 'M100 500 L300 500 L300 900 L100 900 Z', alternativePaths: 'M700 500 H800 V900 H700 Z', websiteURL: 'https://alder.example.com' }],
    ['Birch Yard', { path: 'M400 400 H600 V900 H400 Z' }],
    ['Cedar Row', {}],
  ] as const) {
    const p = await createProject(t.app, owner.auth, { name, query: { namespace: `${ns}-${name[0]!.toLowerCase()}` }, body: { ...body, hideSold: false } });
    projects[name] = p._id;
    const f = await createFloor(t.app, owner.auth, p._id, { name: `${name} L1` });
    if (name === 'Alder Court') floorId = f._id;
    await createUnit(t.app, owner.auth, p._id, { name: `${name[0]}-1`, floor: f._id, body: { availability: name === 'Birch Yard' ? 'sold' : 'available' } });
  }
  const g = await createGroup(t.app, owner.auth, { name: 'Grove Homes', query: { namespace: ns } });
  groupId = g._id;
  const res = await patch(`/groups/${groupId}`, { projects: Object.values(projects), groupImageUrl: '/p/assets/demo-hero.webp' });
  assert.equal(res.statusCode, 200, res.body);
});
after(() => t.close());

describe(`shapes over pictures (${ENGINE})`, () => {
  test("a floor's path and alternativePaths: SVG path data or ''; anything else 400 naming the field", async () => {
    const good = await patch(`/floors/${floorId}`, { path: 'M10 20 L30 20 L30 40 Z', alternativePaths: ['m 1.5,2 h10 v-3.2e1 z', ''] });
    assert.equal(good.statusCode, 200, good.body);
    assert.equal(good.json().path, 'M10 20 L30 20 L30 40 Z');
    assert.equal((await patch(`/floors/${floorId}`, { path: '' })).statusCode, 200);
    for (const [payload, field] of [
      [{ path: '<script>alert(1)</script>' }, '/path'],
      [{ path: 'L10 10' }, '/path'],
      [{ path: 'M10 10 url(x)' }, '/path'],
      [{ alternativePaths: ['M0 0 H1 Z', 'M0 0 "/><script>'] }, '/alternativePaths/1'],
    ] as const) {
      const res = await patch(`/floors/${floorId}`, payload);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.ok(
        (res.json().errors as { path: string }[]).some((e) => e.path === field),
        res.body,
      );
    }
  });

  test("the group page: the site's picture with each project's shapes as links, coloured by availability, following linkBehavior; none without a picture", async () => {
    const html = await page();
    assert.match(html, /<h2 class="section-title" id="picture-title">Choose a building<\/h2>/);
    assert.match(html, /<img src="[^"]*\/p\/assets\/demo-hero\.webp"[^>]*><svg viewBox="0 0 1000 1000" preserveAspectRatio="none" role="group"/);
    assert.doesNotMatch(html, /<script/);
    const drawn = shapes(html);
    // Cedar Row has no path: no shape.
    assert.equal(drawn.length, 2);
    const [alder, birch] = drawn;
    assert.equal(alder!.tone, 'b-available');
    assert.equal(birch!.tone, 'b-sold');
    assert.deepEqual(alder!.paths, ['M100 500 L300 500 L300 900 L100 900 Z', 'M700 500 H800 V900 H700 Z']);
    assert.match(alder!.attrs, new RegExp(`^href="/p/${ns}-a" aria-label="Alder Court, 1 available"$`));
    // Each project's name over the middle of its first shape, placed by the page's one nonce'd style block.
    assert.match(
      html,
      /<span class="g-label b-available" id="g-label-0">Alder Court<span class="g-count"> · 1 available<\/span><\/span><span class="g-label b-sold" id="g-label-1">Birch Yard<span class="g-count"> · 0 available<\/span><\/span>/,
    );
    assert.match(html, /<style nonce="[^"]+">#g-label-0\{left:20\.00%;top:70\.00%\}#g-label-1\{left:50\.00%;top:65\.00%\}<\/style>/);
    await patch(`/groups/${groupId}`, { linkBehavior: 'NewTab' });
    assert.match(shapes(await page())[0]!.attrs, new RegExp(`^href="/p/${ns}-a" target="_blank" rel="noopener"`));
    await patch(`/groups/${groupId}`, { linkBehavior: 'Website' });
    assert.match(shapes(await page())[0]!.attrs, /^href="https:\/\/alder\.example\.com\/" target="_blank" rel="noopener"/);
    // Without availability: one neutral colour, no count.
    await patch(`/groups/${groupId}`, { linkBehavior: 'Service', showAvailability: false });
    assert.deepEqual(
      shapes(await page()).map((s) => s.tone),
      ['b-none', 'b-none'],
    );
    // A path that is not path data is not drawn (stored before the check, or on a project).
    await patch(`/project/${projects['Birch Yard']}`, { path: '"/><script>x</script>' });
    assert.equal(shapes(await page()).length, 1);
    // The grid view has it too; the SVG of the site is used when there is no image.
    await patch(`/groups/${groupId}`, { groupImageUrl: '', groupSVGUrl: '/p/assets/demo-floorplan.svg' });
    assert.match(await page('?view=grid'), /<section class="g-section g-picture"[\s\S]*<img src="[^"]*\/p\/assets\/demo-floorplan\.svg"/);
    await patch(`/groups/${groupId}`, { groupSVGUrl: '' });
    assert.doesNotMatch(await page(), /g-picture/);
  });

  test("svgGroupId: a project without a path is the element of that id in the group's uploaded SVG, a link as linkBehavior says; the group's own is the site's outline", async () => {
    // A site of 200 × 100: Cedar Row's building is a group (moved 10 to the right) holding a rectangle.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><rect width="200" height="100" fill="#eee"/><g id="bldg-cedar" transform="translate(10 0)"><rect x="100" y="20" width="40" height="60" fill="#999"/></g><path id="bldg-other" d="M10 10 H30 V30 Z"/></svg>`;
    const m = filePart(Buffer.from(svg), 'site.svg', 'image/svg+xml');
    const up = await t.app.inject({ method: 'POST', url: '/media', headers: { ...owner.auth, 'content-type': m.contentType }, payload: m.payload });
    assert.equal(up.statusCode, 201, up.body);
    const url = up.json<{ url: string }>().url;
    await patch(`/project/${projects['Birch Yard']}`, { path: '' });
    assert.equal((await patch(`/project/${projects['Cedar Row']}`, { svgGroupId: 'bldg-cedar' })).statusCode, 200);
    await patch(`/groups/${groupId}`, { groupImageUrl: '', groupSVGUrl: url, linkBehavior: 'NewTab', showAvailability: true });
    const html = await page();
    assert.match(html, new RegExp(`<img src="[^"]*${url.replace(/\./g, '\\.')}"`));
    const cedar = new RegExp(
      `<a class="g-shape b-available" href="/p/${ns}-c" target="_blank" rel="noopener" aria-label="Cedar Row, 1 available"><title>Cedar Row, 1 available</title><path d="M100 20H140V80H100Z" transform="scale\\(5 10\\) translate\\(0 0\\) translate\\(10 0\\)"/></a>`,
    );
    assert.match(html, cedar);
    // Its label over the middle of the shape: (130, 50) of 200 × 100.
    assert.match(html, /#g-label-1\{left:65\.00%;top:50\.00%\}/);
    // A project with its own path keeps it; an id the SVG does not have draws nothing.
    assert.equal(shapes(html)[0]?.paths[0], 'M100 500 L300 500 L300 900 L100 900 Z');
    // The group's own svgGroupId: the site's outline, under the buildings, dashed in the group's mapPointColor.
    await patch(`/groups/${groupId}`, { svgGroupId: 'bldg-other', mapPointColor: '#00695c' });
    const outlined = await page();
    assert.match(
      outlined,
      /<svg viewBox="0 0 1000 1000"[^>]*><g class="g-boundary" fill="none" stroke="#00695c" aria-hidden="true"><path d="M10 10 H30 V30 Z" transform="scale\(5 10\)[^"]*"\/><\/g><a class="g-shape/,
    );
    await patch(`/groups/${groupId}`, { svgGroupId: 'no-such-id' });
    assert.doesNotMatch(await page(), /g-boundary/);
    await patch(`/groups/${groupId}`, { svgGroupId: '' });
    await patch(`/project/${projects['Cedar Row']}`, { svgGroupId: 'no-such-id' });
    assert.doesNotMatch(await page(), /Cedar Row, 1 available<\/title>/);
    // An SVG elsewhere is not read by the server: no shape from it.
    await patch(`/project/${projects['Cedar Row']}`, { svgGroupId: 'bldg-cedar' });
    await patch(`/groups/${groupId}`, { groupSVGUrl: 'https://sites.example.com/site.svg' });
    assert.doesNotMatch(await page(), /Cedar Row, 1 available<\/title>/);
    await patch(`/groups/${groupId}`, { groupSVGUrl: '', linkBehavior: 'Service' });
    await patch(`/project/${projects['Cedar Row']}`, { svgGroupId: '' });
  });

  test("a label's place: the middle of the path's box; a relative path's first point", () => {
    assert.deepEqual(middleOf('M100 500 L300 500 L300 900 L100 900 Z'), [200, 700]);
    assert.deepEqual(middleOf('M400,400 H600 V900 H400 Z'), [500, 650]);
    assert.deepEqual(middleOf('M0 0 C 100 0 200 100 200 200 Z'), [100, 100]);
    assert.deepEqual(middleOf('m 40 60 l 100 0 l 0 100 z'), [40, 60]);
  });

  test("the page's CSP allows the 3D viewer only with enable3d, and each project model's https origin", async () => {
    const ns = `${(await t.app.inject({ method: 'GET', url: `/projects/${projects['Alder Court']}`, headers: owner.auth })).json().namespace}`;
    const csp = async () => String((await t.app.inject({ method: 'GET', url: `/p/${ns}`, headers: PAGES })).headers['content-security-policy']);
    const models = {
      _3dModelUrl: '/p/assets/demo-model.glb',
      _3dBuildingModelUrl: 'https://models.example.com/b/tower.glb',
      _3dFloorSelectorModelUrl: 'https://floors.example.net/f.gltf',
    };
    assert.equal((await patch(`/project/${projects['Alder Court']}`, { ...models, enable3d: false })).statusCode, 200);
    const off = await csp();
    assert.doesNotMatch(off, /wasm-unsafe-eval|blob:|models\.example\.com/);
    assert.equal((await patch(`/project/${projects['Alder Court']}`, { enable3d: true })).statusCode, 200);
    const on = await csp();
    assert.match(on, /script-src 'self' 'wasm-unsafe-eval'/);
    assert.match(on, /img-src 'self' data: https: blob:/);
    assert.match(on, /connect-src 'self' https:\/\/models\.example\.com https:\/\/floors\.example\.net;/);
  });
});
