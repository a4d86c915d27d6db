import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { buildTestApp, ENGINE, type TestApp } from './helpers.ts';

/**
 * /docs as a reader meets it: the guides (docs/*.md) as HTML pages under a strict policy, an index of them, every
 * link of every page answering 200 and every anchor found on its page; any other path under /docs is the
 * service's ordinary 404 problem.
 */
describe(`the guides under /docs (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url });
  const hrefsOf = (html: string) =>
    [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))));
  const idsOf = (html: string) => new Set([...html.matchAll(/ id="([^"]*)"/g)].map((m) => m[1]!));

  test('the index lists every guide of docs/, and every guide is an HTML page under a policy that allows no script', async () => {
    const names = readdirSync(new URL('../docs/', import.meta.url))
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3));
    assert.ok(names.includes('interface'), 'the interface is described by a guide of its own');
    for (const url of ['/docs/guides', '/docs/guides/']) {
      const index = await get(url);
      assert.equal(index.statusCode, 200, url);
      assert.match(String(index.headers['content-type']), /^text\/html/);
      const links = hrefsOf(index.body);
      for (const name of names) assert.ok(links.includes(`/docs/guides/${name}`), `the index links ${name}`);
    }
    for (const name of names) {
      const res = await get(`/docs/guides/${name}`);
      assert.equal(res.statusCode, 200, name);
      assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/, `${name}: ${csp}`);
      assert.doesNotMatch(csp, /script-src|unsafe-inline/, `${name}: no script may run`);
      assert.match(res.body, /<h1 id="[^"]+">/, `${name} is rendered, not raw Markdown`);
      assert.doesNotMatch(res.body, /<script/i, name);
    }
    // The old address with `.md` names the same page.
    assert.equal((await get('/docs/guides/errors.md')).statusCode, 200);
  });

  test('every link of every guide page resolves: 200 for each page it names, and the anchor is on that page', async () => {
    const start = ['/docs/guides'];
    const seen = new Set<string>(start);
    const pages = new Map<string, string>();
    const queue = [...start];
    const checked: string[] = [];
    while (queue.length) {
      const url = queue.shift()!;
      const res = await get(url);
      assert.equal(res.statusCode, 200, url);
      if (!/^text\/html/.test(String(res.headers['content-type']))) continue;
      pages.set(url, res.body);
      // Only the guides are crawled further (the reference page is a script-drawn application).
      if (!url.startsWith('/docs/guides')) continue;
      for (const href of hrefsOf(res.body)) {
        if (/^(https?:|mailto:)/.test(href)) {
          assert.match(href, /^(https:\/\/|mailto:)/, `${url} links ${href} over https`);
          continue;
        }
        assert.match(href, /^(\/|#)/, `${url}: ${href} is a path of this server or an anchor`);
        const target = new URL(href, `http://docs.test${url}`);
        checked.push(`${url} → ${href}`);
        const path = target.pathname;
        if (!seen.has(path)) {
          seen.add(path);
          queue.push(path);
        }
      }
    }
    // Anchors: checked once every page is in.
    for (const entry of checked) {
      const [from, href] = entry.split(' → ') as [string, string];
      const target = new URL(href, `http://docs.test${from}`);
      if (!target.hash) continue;
      const html = pages.get(target.pathname);
      assert.ok(html, `${entry}: the page is HTML`);
      assert.ok(idsOf(html).has(decodeURIComponent(target.hash.slice(1))), `${entry}: no heading ${target.hash} on ${target.pathname}`);
    }
    assert.ok(checked.length > 50, `${checked.length} links followed`);
    assert.ok([...pages.keys()].filter((p) => p.startsWith('/docs/guides/')).length >= 16, 'every guide reached from the index');
  });

  test('the reference page links the guides, and they answer', async () => {
    const doc = (await get('/openapi.json')).json();
    const links = [...String(doc.info.description).matchAll(/\]\((\/docs\/guides[a-z/-]*)\)/g)].map((m) => m[1]!);
    assert.ok(links.length >= 8, 'info.description links the guides and their index');
    for (const link of links) assert.equal((await get(link)).statusCode, 200, link);
  });

  test('any other path under /docs is the ordinary 404 problem', async () => {
    for (const url of ['/docs/nope', '/docs/guides/nope', '/docs/guides/../../package.json', '/docs/static/nope.js', '/docs/guides/errors/x']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/, url);
      const body = res.json();
      assert.equal(body.status, 404, url);
      assert.equal(body.code, 'not_found', url);
    }
    // What the reference page needs is still there.
    for (const url of ['/docs/', '/docs/static/swagger-ui.css', '/docs/json']) assert.equal((await get(url)).statusCode, 200, url);
  });
});
