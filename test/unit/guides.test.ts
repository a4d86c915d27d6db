import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guideHref, renderGuides, slugOf } from '../../src/http/guides.ts';

const names = new Set(['errors', 'inventory']);

test('links between guides point to their pages; files that are no guide and other schemes become text', () => {
  assert.equal(guideHref('errors.md', names), '/docs/guides/errors');
  assert.equal(guideHref('./inventory.md#measured', names), '/docs/guides/inventory#measured');
  assert.equal(guideHref('../docs/errors.md', names), '/docs/guides/errors');
  assert.equal(guideHref('#a-heading', names), '#a-heading');
  assert.equal(guideHref('https://example.com/x', names), 'https://example.com/x');
  assert.equal(guideHref('/openapi.json', names), '/openapi.json');
  for (const href of [
    '../README.md',
    '../bench/README.md',
    'missing.md',
    '../src/app.ts',
    'javascript:alert(1)',
    'JaVaScRiPt:x',
    'data:text/html,x',
    '//evil.example/x',
  ]) {
    assert.equal(guideHref(href, names), undefined, href);
  }
});

test('heading anchors are GitHub’s', () => {
  assert.equal(slugOf('Step 21: PostgreSQL writes each listed project'), 'step-21-postgresql-writes-each-listed-project');
  assert.equal(slugOf('From a terminal: npm run inventory'), 'from-a-terminal-npm-run-inventory');
  assert.equal(slugOf('Third pass: the embedded engine (part 9, point 2)'), 'third-pass-the-embedded-engine-part-9-point-2');
});

test('raw HTML in a guide is shown as text, never passed through; unsafe links lose their address', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'showsuite-guides-'));
  try {
    writeFileSync(
      join(dir, 'hostile.md'),
      [
        '# Hostile <img src=x onerror=alert(1)>',
        '',
        '<script>alert(1)</script>',
        '',
        'Inline <b onclick="x()">bold</b>, [a link](javascript:alert(1)), [quoted](https://example.com/"onmouseover="x), ![pic](https://evil.example/p.png)',
        '',
        '## Same',
        '## Same',
        '',
        'See [the other](other.md#same) and [the readme](../README.md).',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'other.md'), '# Other\n\nText.\n');
    const { pages, index, csp } = await renderGuides(dir);
    const html = pages.get('hostile')!.html;
    assert.doesNotMatch(html, /<script|<img|<b |javascript:|evil\.example/i, 'no tag of the Markdown reaches the page');
    assert.match(html, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/, 'the script is shown as text');
    assert.match(html, /href="https:\/\/example.com\/&#34;onmouseover=&#34;x"/, 'an address cannot leave its attribute');
    assert.match(html, /<h2 id="same">Same<\/h2>[\s\S]*<h2 id="same-1">Same<\/h2>/);
    assert.match(html, /<a href="\/docs\/guides\/other#same">the other<\/a>/);
    assert.match(html, /and the readme\./, 'a file that is no guide stays as its text');
    assert.match(index.html, /<a href="\/docs\/guides\/hostile">Hostile &#60;img src=x onerror=alert\(1\)&#62;<\/a>/);
    assert.match(csp, /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src 'self'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
